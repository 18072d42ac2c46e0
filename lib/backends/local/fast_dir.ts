// Directory listing straight from getdents64 through FFI (Linux x86-64 and AArch64): one system
// call per 64 KiB of entries and one decode per directory, where Deno.readDirSync builds an object
// per entry in its op (about 40 % less CPU on a 70k-file tree). Returns null whenever it cannot
// answer exactly (no FFI, another OS, an entry type the directory does not say, a name that is not
// UTF-8, any error): the caller then lists the directory the usual way.

import { eventTurn } from "../../core/event_turn.ts";
import { type DirEntry, type EntryType, HUGE_DIR_ENTRIES } from "../../ops/ports/file_backend.ts";

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
// get their own; the confined backend's listings share them): each is read and decoded before the
// next one starts.
const records = new Uint8Array(64 * 1024);
let names: Uint8Array<ArrayBuffer> = new Uint8Array(64 * 1024);

/**
 * Entries read between two turns of the event loop by fastListDirInTurns: reading and decoding a
 * directory of 1,000,000 entries in one go held the server (and every `ping`) for a second.
 */
const TURN_ENTRIES = 32_768;

/** How `readEntries` reads a directory exactly (the confined backend: no usual listing after). */
export interface ExactListing {
  /** The type of an entry the directory does not say (DT_UNKNOWN). */
  typeOf(name: string): EntryType;
  /** A name that is not UTF-8, its bytes kept (path_quote.ts). */
  decode(bytes: Uint8Array): string;
  /** Throws for getdents' negative errno. */
  fail(n: number): never;
}

/** A listing under way: how to read more, its buffers, and what was decoded so far. */
interface Reading {
  getdents: (buf: Uint8Array<ArrayBuffer>) => number;
  records: Uint8Array<ArrayBuffer>;
  view: DataView;
  names: Uint8Array<ArrayBuffer>;
  entries: DirEntry[];
}

// Exported for tests.
/** The entries of `path` (no "." or ".."), or null when the usual listing must answer. */
export function fastListDir(path: string): DirEntry[] | null {
  const c = load();
  if (!c) return null;
  const fd = openDir(c, path);
  if (fd < 0) return null;
  try {
    return readEntries((buf) => Number(c.getdents64(fd, buf, BigInt(buf.length))));
  } finally {
    c.close(fd);
  }
}

/** How a listing in steps goes on past its first: the turns between steps, and the huge wait. */
interface Steps {
  /** Awaited after every `perTurn` entries (about) past the first step. */
  turn?: () => Promise<unknown>;
  perTurn?: number;
  /** Awaited once, before the second step, by a directory of more than HUGE_DIR_ENTRIES entries. */
  whenHuge?: () => Promise<unknown>;
}

/**
 * fastListDir in steps (readEntriesInSteps): a small directory is read at once as before, a huge
 * one in steps with turns of the event loop between. The answer is a promise only for a directory
 * read in steps: a walk lists every directory through here, and two async frames and their awaits
 * per directory made ~1.5 MB of garbage per search of a node_modules tree (1,689 directories;
 * search_profile_bench).
 */
export function fastListDirInTurns(
  path: string,
  steps: Steps = {},
): DirEntry[] | null | Promise<DirEntry[] | null> {
  const c = load();
  if (!c) return null;
  const fd = openDir(c, path);
  if (fd < 0) return null;
  let closeNow = true;
  try {
    const listed = readEntriesInSteps(
      (buf) => Number(c.getdents64(fd, buf, BigInt(buf.length))),
      steps,
    );
    if (!(listed instanceof Promise)) return listed;
    closeNow = false;
    return listed.finally(() => c.close(fd));
  } finally {
    if (closeNow) c.close(fd);
  }
}

/**
 * readEntries, awaiting between steps: the first HUGE_DIR_ENTRIES entries (about: reads are whole
 * 64 KiB buffers of records) at once; past them `steps.whenHuge`, then `steps.perTurn` entries
 * between two `steps.turn`s, on buffers of its own (other listings use the shared ones between).
 * A promise only then: a directory read in one step is answered as it is.
 */
export function readEntriesInSteps(
  getdents: (buf: Uint8Array<ArrayBuffer>) => number,
  steps: Steps,
  exact?: ExactListing,
): DirEntry[] | null | Promise<DirEntry[] | null> {
  const r = reading(getdents);
  let step: "done" | "more" | "fail";
  try {
    step = readSome(r, Math.min(steps.perTurn ?? TURN_ENTRIES, HUGE_DIR_ENTRIES), exact);
  } finally {
    names = r.names; // keep a grown buffer for the next listing
  }
  if (step !== "more") return step === "done" ? r.entries : null;
  // From here on other listings may run: this one leaves the shared buffers to them.
  r.records = new Uint8Array(records.length);
  r.view = new DataView(r.records.buffer);
  r.names = new Uint8Array(names.length);
  return moreSteps(r, steps, exact);
}

/** A directory's steps past its first (readEntriesInSteps), on buffers of its own. */
async function moreSteps(
  r: Reading,
  steps: Steps,
  exact?: ExactListing,
): Promise<DirEntry[] | null> {
  const { turn = nextTurn, perTurn = TURN_ENTRIES, whenHuge } = steps;
  await whenHuge?.();
  let step = readSome(r, perTurn, exact);
  while (step === "more") {
    await turn();
    step = readSome(r, r.entries.length + perTurn, exact);
  }
  return step === "done" ? r.entries : null;
}

/**
 * The entries of an open directory, read with `getdents` (getdents64 on its descriptor: the byte
 * count, 0 at the end, negative on error) in one go on the shared buffers. Without `exact`, null
 * when the usual listing must answer (an error, an entry type the directory does not say, a name
 * that is not UTF-8). With it, an error throws its errno, `exact.typeOf` settles an unknown type
 * and such names keep their bytes.
 */
export function readEntries(
  getdents: (buf: Uint8Array<ArrayBuffer>) => number,
  exact?: ExactListing,
): DirEntry[] | null {
  const r = reading(getdents);
  try {
    return readSome(r, Infinity, exact) === "done" ? r.entries : null;
  } finally {
    names = r.names; // keep a grown buffer for the next listing
  }
}

/** A turn of the event loop in which I/O completes (core/event_turn.ts). */
const nextTurn = eventTurn;

function openDir(c: Libc, path: string): number {
  return c.open(encoder.encode(`${path}\0`), O_DIRECTORY | O_CLOEXEC, 0);
}

function reading(getdents: Reading["getdents"]): Reading {
  return { getdents, records, view: new DataView(records.buffer), names, entries: [] };
}

/**
 * Reads entries until the directory ends ("done") or `limit` entries are decoded ("more"); "fail"
 * when the usual listing must answer (an error, an unknown type, a name that is not UTF-8) and
 * there is no `exact` way to settle it.
 */
function readSome(r: Reading, limit: number, exact?: ExactListing): "done" | "more" | "fail" {
  const types: (EntryType | undefined)[] = [];
  let filled = 0;
  let done = false;
  while (r.entries.length + types.length < limit) {
    const got = r.getdents(r.records);
    if (got < 0) return exact ? exact.fail(got) : "fail";
    if (got === 0) {
      done = true;
      break;
    }
    const { records, view } = r;
    for (let at = 0; at < got; at += view.getUint16(at + RECLEN, true)) {
      const start = at + NAME;
      // A name is short and ends within its record: a byte loop finds its end and copies it
      // without the native call and the subarray (one object per entry) of indexOf and set.
      let end = start;
      while (end < got && records[end] !== 0) end++;
      if (
        records[start] === 46 &&
        (end === start + 1 || (end === start + 2 && records[start + 1] === 46))
      ) continue;
      const type = records[at + TYPE]!;
      if (type === DT_UNKNOWN && !exact) return "fail"; // the file system does not say: a stat would
      types.push(type === DT_UNKNOWN ? undefined : TYPES[type] ?? "other");
      if (filled + end - start + 1 > r.names.length) {
        r.names = grow(r.names, filled + end - start + 1);
      }
      const names = r.names;
      for (let i = start; i < end; i++) names[filled++] = records[i]!;
      names[filled++] = 0;
    }
  }
  if (types.length > 0) {
    const text = decoder.decode(r.names.subarray(0, filled - 1));
    // Bytes that are not UTF-8 came out as U+FFFD: the raw-name path lists those exactly.
    if (text.includes("\uFFFD") && !exact) return "fail";
    const list = text.includes("\uFFFD")
      ? splitExact(r.names, filled, exact!.decode)
      : text.split("\0");
    for (let i = 0; i < list.length; i++) {
      const name = list[i]!;
      r.entries.push({ name, type: types[i] ?? exact!.typeOf(name) });
    }
  }
  return done ? "done" : "more";
}

/** The names in `names` (NUL-separated), each decoded by `decode` (keeping bytes that are not UTF-8). */
function splitExact(
  names: Uint8Array,
  filled: number,
  decode: (bytes: Uint8Array) => string,
): string[] {
  const out: string[] = [];
  for (let start = 0; start < filled;) {
    const end = names.indexOf(0, start);
    out.push(decode(names.subarray(start, end)));
    start = end + 1;
  }
  return out;
}

function grow(buffer: Uint8Array, needed: number): Uint8Array<ArrayBuffer> {
  const bigger = new Uint8Array(Math.max(buffer.length * 2, needed));
  bigger.set(buffer);
  return bigger;
}
