// Directory listing straight from getdents64 through FFI (Linux x86-64 and AArch64): one system
// call per 64 KiB of entries and one decode per directory, where Deno.readDirSync builds an object
// per entry in its op (about 40 % less CPU on a 70k-file tree). Returns null whenever it cannot
// answer exactly (no FFI, another OS, an entry type the directory does not say, a name that is not
// UTF-8, any error): the caller then lists the directory the usual way.

import { setImmediate } from "node:timers";
import type { DirEntry, EntryType } from "../../ops/file_backend.ts";

const SYMBOLS = {
  open: { parameters: ["buffer", "i32", "u32"], result: "i32" },
  close: { parameters: ["i32"], result: "i32" },
  getdents64: { parameters: ["i32", "buffer", "usize"], result: "isize" },
} as const;

type Libc = Deno.DynamicLibrary<typeof SYMBOLS>["symbols"];

// struct linux_dirent64: d_ino u64, d_off s64, d_reclen u16, d_type u8, d_name (NUL-terminated).
const RECLEN = 16;
const TYPE = 18;
const NAME = 19;
const TYPES: Record<number, EntryType> = { 4: "dir", 8: "file", 10: "symlink" };
const DT_UNKNOWN = 0;
const O_CLOEXEC = 0o2000000;
// O_DIRECTORY differs between the two architectures.
const O_DIRECTORY = Deno.build.arch === "aarch64" ? 0o40000 : 0o200000;

let libc: Libc | null | undefined;

function load(): Libc | null {
  if (libc !== undefined) return libc;
  libc = null;
  if (Deno.build.os !== "linux" || !["x86_64", "aarch64"].includes(Deno.build.arch)) return null;
  try {
    if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") return null;
    libc = Deno.dlopen("libc.so.6", SYMBOLS).symbols; // glibc 2.30+ has getdents64
  } catch {
    libc = null;
  }
  return libc;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
// Reused by listings that finish without an await (all but the steps of a huge directory, which
// get their own): each is read and decoded before the next one starts.
const records = new Uint8Array(64 * 1024);
let names: Uint8Array<ArrayBuffer> = new Uint8Array(64 * 1024);

/**
 * Entries read between two turns of the event loop by fastListDirInTurns: reading and decoding a
 * directory of 1,000,000 entries in one go held the server (and every `ping`) for a second.
 */
export const TURN_ENTRIES = 32_768;

/** A listing under way: the directory's fd, its buffers, and what was decoded so far. */
interface Reading {
  fd: number;
  records: Uint8Array;
  view: DataView;
  names: Uint8Array<ArrayBuffer>;
  entries: DirEntry[];
}

/** The entries of `path` (no "." or ".."), or null when the usual listing must answer. */
export function fastListDir(path: string): DirEntry[] | null {
  const c = load();
  if (!c) return null;
  const r = openReading(c, path);
  if (!r) return null;
  try {
    return readSome(c, r, Infinity) === "done" ? r.entries : null;
  } finally {
    names = r.names; // keep a grown buffer for the next listing
    c.close(r.fd);
  }
}

/**
 * fastListDir, with `await turn()` after every `perTurn` entries (about): a small directory is read at
 * once as before, a huge one in steps (on buffers of its own, as other listings run between).
 */
export async function fastListDirInTurns(
  path: string,
  turn: () => Promise<unknown> = nextTurn,
  perTurn = TURN_ENTRIES,
): Promise<DirEntry[] | null> {
  const c = load();
  if (!c) return null;
  const r = openReading(c, path);
  if (!r) return null;
  try {
    let step = readSome(c, r, perTurn);
    if (step === "more") {
      // From here on other listings may run: this one leaves the shared buffers to them.
      r.records = new Uint8Array(records.length);
      r.view = new DataView(r.records.buffer);
      r.names = new Uint8Array(names.length);
    }
    while (step === "more") {
      await turn();
      step = readSome(c, r, r.entries.length + perTurn);
    }
    return step === "done" ? r.entries : null;
  } finally {
    if (r.records === records) names = r.names;
    c.close(r.fd);
  }
}

/** A turn of the event loop (setImmediate: no timer clamping). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

function openReading(c: Libc, path: string): Reading | null {
  const fd = c.open(encoder.encode(`${path}\0`), O_DIRECTORY | O_CLOEXEC, 0);
  if (fd < 0) return null;
  return { fd, records, view: new DataView(records.buffer), names, entries: [] };
}

/**
 * Reads entries until the directory ends ("done") or `limit` entries are decoded ("more"); "fail"
 * when the usual listing must answer (an error, an unknown type, a name that is not UTF-8).
 */
function readSome(c: Libc, r: Reading, limit: number): "done" | "more" | "fail" {
  const types: EntryType[] = [];
  let filled = 0;
  let done = false;
  while (r.entries.length + types.length < limit) {
    const got = Number(c.getdents64(r.fd, r.records, BigInt(r.records.length)));
    if (got < 0) return "fail";
    if (got === 0) {
      done = true;
      break;
    }
    const { records, view } = r;
    for (let at = 0; at < got; at += view.getUint16(at + RECLEN, true)) {
      const start = at + NAME;
      const end = records.indexOf(0, start);
      if (
        records[start] === 46 &&
        (end === start + 1 || (end === start + 2 && records[start + 1] === 46))
      ) continue;
      const type = records[at + TYPE]!;
      if (type === DT_UNKNOWN) return "fail"; // the file system does not say: a stat would
      types.push(TYPES[type] ?? "other");
      if (filled + end - start + 1 > r.names.length) {
        r.names = grow(r.names, filled + end - start + 1);
      }
      r.names.set(records.subarray(start, end), filled);
      filled += end - start;
      r.names[filled++] = 0;
    }
  }
  if (types.length > 0) {
    const text = decoder.decode(r.names.subarray(0, filled - 1));
    // Bytes that are not UTF-8 came out as U+FFFD: the raw-name path lists those exactly.
    if (text.includes("\uFFFD")) return "fail";
    const list = text.split("\0");
    for (let i = 0; i < list.length; i++) r.entries.push({ name: list[i]!, type: types[i]! });
  }
  return done ? "done" : "more";
}

function grow(buffer: Uint8Array, needed: number): Uint8Array<ArrayBuffer> {
  const bigger = new Uint8Array(Math.max(buffer.length * 2, needed));
  bigger.set(buffer);
  return bigger;
}
