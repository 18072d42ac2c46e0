// System calls on descriptors for the confined local backend (confined_local.ts): statx, whole
// and bounded reads, writes, fsync and the *at calls of a write (create, link, rename, unlink),
// each relative to a descriptor opened beneath an allowed directory. No path is looked up by its
// text here. Long reads, writes and fsyncs run off the main thread (nonblocking FFI calls).

import type { EntryType, FileInfo, SpecialKind } from "../../ops/ports/file_backend.ts";
import { BoundedRead } from "./bounded_read.ts";
import { cName, ERRNO, errnoOf, type Libc, LINUX, sysError } from "./beneath.ts";
import { handOver } from "../../core/handed_bytes.ts";
import { decodeNameBytes } from "../../core/path/path_quote.ts";
import type { ExactListing } from "./fast_dir.ts";

/** What statx says about one file (links not followed unless asked). */
export interface FdStat {
  type: EntryType;
  special?: SpecialKind;
  size: number;
  mode: number;
  nlink: number;
  uid: number;
  gid: number;
  ino: bigint;
  dev: string;
  mtimeSec: bigint;
  mtimeNsec: number;
}

// STATX_BASIC_STATS: type, mode, nlink, uid, gid, times, ino, size, blocks.
const STATX_BASIC = 0x7ff;
const S_IFMT = 0o170000;
const TYPES: Record<number, [EntryType, SpecialKind?]> = {
  0o100000: ["file"],
  0o040000: ["dir"],
  0o120000: ["symlink"],
  0o010000: ["other", "fifo"],
  0o020000: ["other", "character device"],
  0o060000: ["other", "block device"],
  0o140000: ["other", "socket"],
};

const statBuffer = new Uint8Array(256);
const statView = new DataView(statBuffer.buffer);

/**
 * statx of `name` in the directory `dir` (`""`: `dir` itself); null when nothing is there
 * (ENOENT, ENOTDIR); other failures throw. `follow`: the last symlink is followed (only ever
 * for `dir` itself, already opened beneath a root).
 */
export function statAt(c: Libc, dir: number, name: string, follow = false): FdStat | null {
  const flags = (name === "" ? LINUX.AT_EMPTY_PATH : 0) | (follow ? 0 : LINUX.AT_SYMLINK_NOFOLLOW);
  if (c.statx(dir, cName(name), flags, STATX_BASIC, statBuffer) !== 0) {
    const errno = errnoOf(c);
    if (errno === ERRNO.ENOENT || errno === ERRNO.ENOTDIR) return null;
    throw sysError(errno, "statx");
  }
  const v = statView;
  const mode = v.getUint16(28, true);
  const [type, special] = TYPES[mode & S_IFMT] ?? ["other"];
  return {
    type,
    ...(special && { special }),
    size: Number(v.getBigUint64(40, true)),
    mode: mode & 0o7777,
    nlink: v.getUint32(16, true),
    uid: v.getUint32(20, true),
    gid: v.getUint32(24, true),
    ino: v.getBigUint64(32, true),
    dev: `${v.getUint32(136, true)}:${v.getUint32(140, true)}`,
    mtimeSec: v.getBigInt64(112, true),
    mtimeNsec: v.getUint32(120, true),
  };
}

/** The descriptor's own statx (it exists: it is open). */
export function statFd(c: Libc, fd: number): FdStat {
  const s = statAt(c, fd, "", true);
  if (!s) throw sysError(ERRNO.ENOENT, "statx");
  return s;
}

/** FdStat as the FileBackend's FileInfo. */
export function infoOf(s: FdStat): FileInfo {
  return {
    type: s.type,
    size: s.size,
    mode: s.mode,
    mtimeMs: Number(s.mtimeSec) * 1000 + Math.floor(s.mtimeNsec / 1e6),
    ...(s.special && { special: s.special }),
  };
}

/** Whether two stats show the same file unchanged (inode, size, mtime to the nanosecond). */
export function sameVersion(a: FdStat, b: FdStat): boolean {
  return a.ino === b.ino && a.dev === b.dev && a.size === b.size && a.mtimeSec === b.mtimeSec &&
    a.mtimeNsec === b.mtimeNsec;
}

/** Reads and writes up to this size run on the main thread; bigger ones on a blocking thread. */
const SYNC_CHUNK = 256 * 1024;

const ESPIPE = 29;

/**
 * The open file `fd` to its end, at most `max + 1` bytes (BoundedRead), by positioned reads; a
 * file that cannot seek (ESPIPE) is read on in order. A failed call off the main thread left its
 * errno there: it is repeated here to learn it.
 */
export async function readToEnd(
  c: Libc,
  fd: number,
  size: number,
  max: number,
): Promise<Uint8Array> {
  const read = new BoundedRead(size, max);
  let position = 0;
  let seekable = true;
  while (!read.done) {
    const [buf, at, length] = read.next();
    const into = buf.subarray(at, at + length) as Uint8Array<ArrayBuffer>;
    const wide = BigInt(length);
    let n = seekable && length > SYNC_CHUNK
      ? Number(await c.preadLong(fd, into, wide, BigInt(position)))
      : -1;
    if (n < 0 && seekable) n = Number(c.pread(fd, into, wide, BigInt(position)));
    if (n < 0 && seekable && errnoOf(c) === ESPIPE) {
      seekable = false;
      n = Number(c.read(fd, into, wide));
    } else if (n < 0 && !seekable) n = Number(c.read(fd, into, wide));
    if (n < 0) throw sysError(errnoOf(c), "read");
    position += n;
    read.took(n);
  }
  // A fresh buffer nothing else holds: a caller done with it may free it at once.
  return handOver(read.bytes());
}

/** readToEnd on this thread (the bulk reads of listings and searches), reads in order. */
export function readToEndSync(c: Libc, fd: number, size: number, max: number): Uint8Array {
  const read = new BoundedRead(size, max);
  while (!read.done) {
    const [buf, at, length] = read.next();
    const into = buf.subarray(at, at + length) as Uint8Array<ArrayBuffer>;
    const n = Number(c.read(fd, into, BigInt(length)));
    if (n < 0) throw sysError(errnoOf(c), "read");
    read.took(n);
  }
  return read.bytes();
}

/** Up to `length` bytes at `offset` (plain reads from the start: a stream cannot seek). */
export function readRangeSync(c: Libc, fd: number, offset: number, length: number): Uint8Array {
  const buf = new Uint8Array(Math.max(0, length));
  let filled = 0;
  while (filled < length) {
    const into = buf.subarray(filled);
    const rest = BigInt(length - filled);
    const n = Number(
      offset === 0 ? c.read(fd, into, rest) : c.pread(fd, into, rest, BigInt(offset + filled)),
    );
    if (n < 0) throw sysError(errnoOf(c), "read");
    if (n === 0) break;
    filled += n;
  }
  return buf.subarray(0, filled);
}

/** Writes all of `data` to `fd` in order (big chunks off the main thread). */
export async function writeAll(c: Libc, fd: number, data: Uint8Array): Promise<void> {
  for (let at = 0; at < data.length;) {
    const end = Math.min(data.length, at + 16 * SYNC_CHUNK);
    const part = data.subarray(at, end) as Uint8Array<ArrayBuffer>;
    const wide = BigInt(part.length);
    let n = part.length > SYNC_CHUNK ? Number(await c.writeLong(fd, part, wide)) : -1;
    // -1 wrote nothing: the same write here succeeds or says why.
    if (n < 0) n = Number(c.write(fd, part, wide));
    if (n < 0) throw sysError(errnoOf(c), "write");
    at += n;
  }
}

/**
 * fsync of `fd` off the main thread (a flush can take long); throws when it fails, as EIO: the
 * errno stayed on that thread, and a second fsync could report success for data that was lost.
 */
export async function syncFd(c: Libc, fd: number): Promise<void> {
  if (await c.fsync(fd) === 0) return;
  throw Object.assign(new Error("fsync failed: the data may not be on disk"), { code: "EIO" });
}

/** Runs `call` (a *at system call returning 0 or -1) and throws its errno when it fails. */
export function check(c: Libc, what: string, result: number): void {
  if (result !== 0) throw sysError(errnoOf(c), what);
}

/**
 * getdents64 on the directory `fd`, and how fast_dir.ts reads its entries exactly: a type the
 * directory does not say by a stat, names that are not UTF-8 kept as bytes, an error thrown.
 */
export function dirListing(
  c: Libc,
  fd: number,
): { getdents: (buf: Uint8Array<ArrayBuffer>) => number; exact: ExactListing } {
  return {
    getdents: (buf) => Number(c.getdents64(fd, buf, BigInt(buf.length))),
    exact: {
      typeOf: (name) => statAt(c, fd, name)?.type ?? "other",
      decode: decodeNameBytes,
      fail: () => {
        throw sysError(errnoOf(c), "getdents64");
      },
    },
  };
}
