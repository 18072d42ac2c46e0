// Bounds on what one call may read: only regular files are opened (a FIFO or a device would
// block or never end), whole-file reads stop at `maxFileBytes`, and a process-wide byte budget
// makes big reads queue instead of piling up in memory. The errors say the size, the limit and
// what to use instead. No I/O of its own: callers pass the backend.

import { AnchorError } from "../core/errors.ts";
import { type Guide, guide } from "../core/next_step.ts";
import { ByteBudget } from "../core/byte_budget.ts";
import { assertRegularFile, exactSize, sizeClause } from "../core/read_refusals.ts";
import type { FileBackend, FileInfo } from "./ports/file_backend.ts";

/**
 * Default limit for operations that hold a whole file in memory (view of a file, edits, the
 * extract_lines source, undo). An edit holds the file several times over (bytes, decoded lines,
 * the new text, the undo copy, the diff): about 6x its size at peak, so 16 MiB keeps one edit
 * near 100 MB, well under the 300 MB the server is held to, while every source file, lock
 * file and generated bundle worth editing by line fits. Change it with --max-file-bytes.
 */
export const DEFAULT_MAX_FILE_BYTES = 16 * 1024 * 1024;

/**
 * Bytes of file or log content that may be in flight in memory at once across all calls of the
 * process (the budget): twice the default file limit, so two biggest files can be worked on
 * together and smaller reads share the rest.
 */
const DEFAULT_READ_BUDGET_BYTES = 32 * 1024 * 1024;

/** Bytes read from the start of a file to tell text from binary (as git and grep do). */
export const SNIFF_BYTES = 8192;

export interface ReadLimits {
  /** Whole-file operations refuse files larger than this (FILE_TOO_LARGE). */
  maxFileBytes: number;
  /** Shared by every call of the process: big reads wait for their turn. */
  budget: ByteBudget;
}

export function createReadLimits(
  options: { maxFileBytes?: number; budgetBytes?: number; reclaim?: () => void } = {},
): ReadLimits {
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  return {
    maxFileBytes,
    budget: new ByteBudget(
      options.budgetBytes ?? Math.max(DEFAULT_READ_BUDGET_BYTES, 2 * maxFileBytes),
      options.reclaim ? { reclaim: options.reclaim } : {},
    ),
  };
}

/** Refuses a whole-file operation on a file above the limit, saying what to use instead. */
export function assertWithinLimit(
  url: string,
  size: number,
  limits: ReadLimits,
  action: string,
  alternatives: string | Guide,
  statSize?: number,
): void {
  if (size <= limits.maxFileBytes) return;
  throw new AnchorError({
    code: "FILE_TOO_LARGE",
    message: `${sizeClause(url, size, limits.maxFileBytes, statSize)}; ${action} holds the ` +
      `whole file in memory and is limited to ${exactSize(limits.maxFileBytes)}, so nothing was ` +
      `read or changed.`,
    hint: guide`${alternatives} The limit is set by the server's --max-file-bytes flag.`,
  });
}

/**
 * The whole file for `action`, reading at most `maxFileBytes + 1` bytes whatever `statSize` (its
 * stat's size) said: a file holding more is refused with FILE_TOO_LARGE, so a /proc file that
 * states 0 bytes or a log that grows while read never fills memory.
 */
export async function readWithinLimit(
  backend: FileBackend,
  path: string,
  url: string,
  statSize: number,
  limits: ReadLimits,
  action: string,
  alternatives: string | Guide,
): Promise<Uint8Array> {
  const bytes = await backend.readFile(path, { maxBytes: limits.maxFileBytes });
  assertWithinLimit(url, bytes.length, limits, action, alternatives, statSize);
  return bytes;
}

/**
 * At most `maxBytes` from the start of a regular file, with its size as stated. Non-regular files
 * are refused before any open; a file that grows past its stat size is cut at `maxBytes`.
 */
export async function readHead(
  backend: FileBackend,
  path: string,
  maxBytes: number,
  info?: FileInfo,
): Promise<{ data: Uint8Array; size: number }> {
  const st = info ?? await backend.stat(path);
  if (st && st.type !== "file" && st.type !== "dir") assertRegularFile(path, st, "reading");
  const size = st?.size ?? 0;
  // A size of 0 may be a /proc-style file that has content: read up to the bound anyway. A file
  // that grew since the stat is still read only to the bound (readFile stops one byte past it).
  const data = size > 0 && size <= maxBytes
    ? await backend.readFile(path, { maxBytes })
    : await backend.readRange(path, 0, maxBytes);
  return { data: data.length > maxBytes ? data.subarray(0, maxBytes) : data, size };
}

export { parseByteCount } from "../core/byte_count.ts";
