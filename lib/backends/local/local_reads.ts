// Local disk, the reading side of LocalBackend: file info from a stat, the refusal of anything but
// a regular file, whole reads into one buffer sized from the stat, the bulk reads and the heads
// read for listings (quick and careful), and the raw-name helpers the writes share.

import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import { mapFsError } from "../fs_errors.ts";
import type {
  EntryType,
  FileInfo,
  ReadFilesOptions,
  SpecialKind,
} from "../../ops/ports/file_backend.ts";
import { assertRegularFile } from "../../core/read_refusals.ts";
import { hasRawBytes } from "../../core/path/path_quote.ts";
import { AnchorError } from "../../core/errors.ts";
import { BoundedRead, readBulkOne } from "./bounded_read.ts";
import { type RawNames, rawNames } from "./raw_names.ts";
import { type FileSummary, summarizeHead } from "../../core/text/head_summary.ts";
import { quickSummary } from "./quick_summary.ts";
import { handOver } from "../../core/handed_bytes.ts";

function entryType(info: { isFile: boolean; isDirectory: boolean; isSymlink: boolean }): EntryType {
  return info.isFile ? "file" : info.isDirectory ? "dir" : info.isSymlink ? "symlink" : "other";
}

function specialKind(info: Deno.FileInfo): SpecialKind | undefined {
  if (info.isFifo) return "fifo";
  if (info.isCharDevice) return "character device";
  if (info.isBlockDevice) return "block device";
  if (info.isSocket) return "socket";
  return undefined;
}

export function toInfo(s: Deno.FileInfo): FileInfo {
  const info: FileInfo = {
    type: entryType(s),
    size: s.size,
    mode: s.mode === null ? null : s.mode & 0o7777,
    mtimeMs: s.mtime?.getTime() ?? null,
  };
  const special = specialKind(s);
  if (special) info.special = special;
  return info;
}

/**
 * Opening a FIFO blocks until a writer comes and a device may never end: stat first (following
 * links) and refuse anything but a regular file. Directories are left to the open's own error.
 */
export function refuseSpecial(path: string, s: Deno.FileInfo): void {
  if (!s.isFile && !s.isDirectory) assertRegularFile(path, toInfo(s), "anchorfs");
}

/** The raw-name helper for a path holding bytes that are not UTF-8 (see raw_names.ts). */
export function raw(path: string): RawNames {
  const names = rawNames();
  if (names) return names;
  throw new AnchorError({
    code: "UNREACHABLE_NAME",
    message:
      `Cannot reach ${
        JSON.stringify(path)
      }: its name is not valid UTF-8, and such names are reachable only on Linux (x86-64, AArch64) ` +
      "with FFI allowed (deno run -A or --allow-ffi).",
    hint: "Rename it with the shell (e.g. mv with a shell glob), then use the new name.",
    fault: "environment",
  });
}

/** Runs `op` with a path Deno can open: a name that is not UTF-8 goes through its fd alias. */
export function hosted<T>(path: string, op: (path: string) => Promise<T>): Promise<T> {
  return hasRawBytes(path) ? raw(path).withAlias(path, op) : op(path);
}

/**
 * Flags of every read of a file's content: O_NONBLOCK makes a read that would wait for data
 * (/proc/kmsg, which waits for the next kernel message; a FIFO put where the stat saw a file)
 * fail at once with EAGAIN (WOULD_BLOCK), where a blocking read would hold the main thread, or
 * a thread of the blocking pool, until data came, maybe never. Regular files read as usual.
 * Windows has no such flag (0).
 */
export const READ_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0);

/**
 * Reads an open file to its end into one buffer allocated here, sized from the stat (grown if the
 * file grew). Deno.readFile allocates its buffer on a blocking-pool thread instead: under many
 * concurrent reads each such thread's malloc arena kept its freed buffers, and the resident size
 * grew by tens of MB (10,000 views; BENCHMARKS.md). At most `max + 1` bytes whatever the stat
 * said (bounded_read.ts).
 */
export async function readToEnd(
  file: fsp.FileHandle,
  size: number,
  max: number,
): Promise<Uint8Array> {
  const read = new BoundedRead(size, max);
  while (!read.done) {
    const [buf, at, length] = read.next();
    read.took((await file.read(buf, at, length, null)).bytesRead);
  }
  // A fresh buffer nothing else holds: a caller done with it may free it at once.
  return handOver(read.bytes());
}

/** readToEnd on this thread, for the bulk reads (opened with READ_FLAGS: it cannot block). */
function readSyncUpTo(path: string, size: number, max: number): Uint8Array {
  const fd = fs.openSync(path, READ_FLAGS);
  try {
    const read = new BoundedRead(size, max);
    while (!read.done) read.took(fs.readSync(fd, ...read.next(), null));
    return read.bytes();
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * One file for readFiles: stat, refuse anything but a regular file, read its head or the whole
 * file, stopping one byte past `skipLargerThan` whatever the stat said (FILE_TOO_LARGE).
 */
export function readOneSync(
  path: string,
  options: ReadFilesOptions,
): { path: string; data?: Uint8Array; size?: number; error?: Error } {
  try {
    const read = (p: string) => {
      const s = Deno.statSync(p);
      refuseSpecial(path, s); // a FIFO would block the thread, a device never end
      return readBulkOne(path, s.size, options, (max) => readSyncUpTo(p, s.size, max));
    };
    return hasRawBytes(path) ? raw(path).withAliasSync(path, read) : read(path);
  } catch (e) {
    return { path, error: mapFsError(e, "read", path) };
  }
}

/**
 * The buffer of summarizeQuick and summarizeCareful, shared: each summary is made before the
 * next read starts, so a listing reads its 1,000 heads without a buffer per file.
 */
let summaryBuffer = new Uint8Array(0);

function summaryRoom(headBytes: number): Uint8Array {
  if (summaryBuffer.length < headBytes) summaryBuffer = new Uint8Array(headBytes);
  return summaryBuffer;
}

/**
 * Up to `max` bytes from the start of the open file `fd` into `buf`; the count read. A read that
 * would wait (the file was opened with READ_FLAGS) throws EAGAIN.
 */
function readHeadInto(fd: number, buf: Uint8Array, max: number): number {
  let filled = 0;
  while (filled < max) {
    const n = fs.readSync(fd, buf, filled, max - filled, null);
    if (n === 0) break;
    filled += n;
  }
  return filled;
}

/**
 * A file's summary from an open, a read into the shared buffer and a close (quick_summary.ts,
 * the code the listing's worker threads run too); null when the careful path must decide.
 */
export function summarizeQuick(path: string, headBytes: number): FileSummary | null {
  if (hasRawBytes(path)) return null;
  return quickSummary(path, summaryRoom(headBytes), headBytes, fs, summarizeHead);
}

/**
 * summarizeQuick's fallback, with readFiles' checks and errors: a stat (links followed), anything
 * but a regular file refused unopened, then the head into the shared buffer.
 */
export function summarizeCareful(
  path: string,
  headBytes: number,
): { path: string; summary?: FileSummary; error?: Error } {
  try {
    const summarize = (p: string) => {
      const s = Deno.statSync(p);
      refuseSpecial(path, s);
      const buf = summaryRoom(headBytes);
      const fd = fs.openSync(p, READ_FLAGS);
      try {
        const filled = readHeadInto(fd, buf, headBytes);
        return { path, summary: summarizeHead(buf.subarray(0, filled), Math.max(s.size, filled)) };
      } finally {
        fs.closeSync(fd);
      }
    };
    return hasRawBytes(path) ? raw(path).withAliasSync(path, summarize) : summarize(path);
  } catch (e) {
    return { path, error: mapFsError(e, "read", path) };
  }
}
