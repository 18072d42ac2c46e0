// The byte level of SFTP: status codes and modes, errors mapped to anchorfs's, ssh2's callbacks as
// promises, and whole-file and ranged reads and writes with many requests in flight. No file
// semantics of its own (sftp_files.ts) and no bulk paths (sftp_bulk.ts).

import { Buffer } from "node:buffer";
import type { SFTPWrapper, Stats } from "./ssh2_types.d.ts";
import { AnchorError } from "../../core/errors.ts";
import type { EntryType, FileInfo, SpecialKind } from "../../ops/ports/file_backend.ts";
import { mapFsError, notFound } from "../fs_errors.ts";
import { concatBytes } from "./concat_bytes.ts";

export const SFTP_NO_SUCH_FILE = 2;
const SFTP_PERMISSION_DENIED = 3;
/** Parallel SFTP requests in the fallback paths (pipelining hides latency). */
const SFTP_PARALLEL = 32;

function specialOfMode(mode: number): SpecialKind | undefined {
  switch (mode & 0o170000) {
    case 0o010000:
      return "fifo";
    case 0o020000:
      return "character device";
    case 0o060000:
      return "block device";
    case 0o140000:
      return "socket";
    default:
      return undefined;
  }
}

export function typeOfMode(mode: number): EntryType {
  switch (mode & 0o170000) {
    case 0o100000:
      return "file";
    case 0o040000:
      return "dir";
    case 0o120000:
      return "symlink";
    default:
      return "other";
  }
}

export function sftpCode(e: unknown): number | undefined {
  const code = (e as { code?: unknown })?.code;
  return typeof code === "number" ? code : undefined;
}

export function mapSftpError(e: unknown, action: string, path: string): AnchorError {
  if (e instanceof AnchorError) return e;
  const code = sftpCode(e);
  if (code === SFTP_NO_SUCH_FILE) return notFound(path);
  if (code === SFTP_PERMISSION_DENIED) return mapFsError({ code: "EACCES" }, action, path);
  return mapFsError(e, action, path);
}

export function call<T>(
  fn: (cb: (err: Error | null | undefined, value: T) => void) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    fn((err, value) => err ? reject(err) : resolve(value));
  });
}

/** What SFTP stat attributes say, as a FileInfo. */
export function toInfo(s: Stats): FileInfo {
  const info: FileInfo = {
    type: typeOfMode(s.mode),
    size: s.size,
    mode: s.mode & 0o7777,
    mtimeMs: typeof s.mtime === "number" ? s.mtime * 1000 : null,
  };
  const special = specialOfMode(s.mode);
  if (special) info.special = special;
  return info;
}

/** Runs `fn` over `items`, SFTP_PARALLEL at a time (pipelining hides latency). */
export async function forEachParallel<T>(
  items: readonly T[],
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(SFTP_PARALLEL, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  });
  await Promise.all(workers);
}

/** Bytes per SFTP read or write request. */
const CHUNK = 32 * 1024;

/** Reads a whole open file with several reads in flight (sizes may have changed: read to EOF). */
export async function readAll(
  sftp: SFTPWrapper,
  handle: Uint8Array,
  sizeHint: number,
  cap: number,
): Promise<Uint8Array> {
  const first = await readSpan(sftp, handle, 0, Math.min(Math.max(sizeHint, 0), cap));
  // A snapshot as of fstat: a file that grows meanwhile is read to its size then, saving the
  // extra end-of-file round trip on every small file.
  if (sizeHint > 0 && first.length <= sizeHint) return first;
  // Stated 0 (/proc) or cut at the cap: chunks until the end, never past `cap` (a remote
  // /proc/self/pagemap would otherwise stream gigabytes).
  const chunks = [first];
  let offset = first.length;
  while (offset < cap) {
    const more = await readSpan(sftp, handle, offset, Math.min(CHUNK, cap - offset));
    if (more.length === 0) break;
    chunks.push(more);
    offset += more.length;
  }
  return chunks.length === 1 ? first : concatBytes(chunks);
}

/** Reads up to `length` bytes at `offset`, pipelining 32 KiB requests. */
export async function readSpan(
  sftp: SFTPWrapper,
  handle: Uint8Array,
  offset: number,
  length: number,
): Promise<Uint8Array> {
  if (length <= 0) return new Uint8Array(0);
  const buf = Buffer.alloc(length);
  const starts: number[] = [];
  for (let at = 0; at < length; at += CHUNK) starts.push(at);
  const got = new Array<number>(starts.length).fill(0);
  await forEachParallel(starts.map((s, i) => [s, i] as const), async ([start, i]) => {
    let filled = 0;
    const want = Math.min(CHUNK, length - start);
    while (filled < want) {
      const n = await new Promise<number>((resolve, reject) => {
        sftp.read(
          handle as never,
          buf as never,
          start + filled,
          want - filled,
          offset + start + filled,
          (err, bytesRead) => {
            // ssh2 reports EOF as an error with code 1 (or 0 bytes).
            if (err) return sftpCode(err) === 1 ? resolve(0) : reject(err);
            resolve(bytesRead);
          },
        );
      });
      if (n === 0) break;
      filled += n;
    }
    got[i] = filled;
  });
  // The data is contiguous up to the first short chunk.
  let total = 0;
  for (let i = 0; i < starts.length; i++) {
    total += got[i]!;
    if (got[i]! < Math.min(CHUNK, length - starts[i]!)) break;
  }
  return new Uint8Array(buf.buffer, buf.byteOffset, total);
}

/** Writes `data` at offset 0 of an open file, several requests in flight. */
export async function writeAll(
  sftp: SFTPWrapper,
  handle: Uint8Array,
  data: Uint8Array,
): Promise<void> {
  const starts: number[] = [];
  for (let at = 0; at < data.length; at += CHUNK) starts.push(at);
  await forEachParallel(starts, async (start) => {
    const end = Math.min(start + CHUNK, data.length);
    await call<void>((cb) =>
      sftp.write(
        handle as never,
        Buffer.from(data.buffer, data.byteOffset + start, end - start),
        0,
        end - start,
        start,
        cb,
      )
    );
  });
}
