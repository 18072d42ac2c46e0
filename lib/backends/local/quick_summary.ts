// A listed file's summary from one open, one read and a close: the quick path of local listings,
// run on the main thread and, by its source text, inside the listing's worker threads. It never
// decides an error: anything it cannot settle is null, for the caller's careful path.

import type { FileSummary } from "../../core/text/head_summary.ts";

/** The parts of node:fs that quickSummary and the workers' scanFile use (passed in: see below). */
export interface SummaryFs {
  openSync(path: string, flags: number): number;
  readSync(
    fd: number,
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number | null,
  ): number;
  closeSync(fd: number): void;
  fstatSync(fd: number): { size: number; isFile(): boolean };
  constants: { O_RDONLY: number; O_NONBLOCK?: number };
}

/**
 * The summary of the file at `path` from its first `headBytes` bytes, read into `buf` (a stat
 * only when the head filled it, for the full size); null when the careful path must decide (an
 * empty file, an error, a name only the backend can open). The walk saw a regular file: opened
 * with O_NONBLOCK, a FIFO put in its place since cannot hang the thread, and it reads as empty,
 * which goes to the careful path. Self-contained (its source also runs in worker threads, where
 * imports do not exist), so `fs` and `summarize` (summarizeHead) are passed in.
 */
export function quickSummary(
  path: string,
  buf: Uint8Array,
  headBytes: number,
  fs: SummaryFs,
  summarize: (head: Uint8Array, size: number) => FileSummary,
): FileSummary | null {
  // A name that is not UTF-8 (lone surrogates, see core/path/path_quote.ts) is opened only by the
  // backend: Deno would open the name with U+FFFD instead, another file or none.
  if (headBytes <= 0 || !path.isWellFormed()) return null;
  let fd = -1;
  try {
    fd = fs.openSync(path, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    // One read: a regular file on a local disk reads short only at its end, and a listing row is
    // an estimate anyway, so the second read that would return 0 is not worth a syscall per file.
    const filled = fs.readSync(fd, buf, 0, headBytes, null);
    if (filled === 0) return null;
    let size = filled;
    if (filled === headBytes) {
      const info = fs.fstatSync(fd);
      if (!info.isFile()) return null;
      size = Math.max(info.size, filled);
    }
    return summarize(buf.subarray(0, filled), size);
  } catch {
    return null;
  } finally {
    if (fd !== -1) fs.closeSync(fd);
  }
}
