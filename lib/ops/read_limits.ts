// Bounds on what one call may read: only regular files are opened (a FIFO or a device would
// block or never end), whole-file reads stop at `maxFileBytes`, and a process-wide byte budget
// makes big reads queue instead of piling up in memory. The errors say the size, the limit and
// what to use instead. No I/O of its own: callers pass the backend.

import { AnchorError } from "../core/errors.ts";
import { type Guide, guide, step } from "../core/next_step.ts";
import { plural } from "../core/plural.ts";
import { fileShellDialect, shellStepForFile } from "../core/shell/file_shell_step.ts";
import type { ShellKind } from "../core/platform/platform.ts";
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
export const DEFAULT_READ_BUDGET_BYTES = 32 * 1024 * 1024;

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

/** After this many bytes of reads were given back, the budget asks for a full collection. */
export const RECLAIM_EVERY_BYTES = 2 * 1024 * 1024;

/**
 * A counting semaphore over bytes. A call takes what it will hold (clamped to the capacity, so
 * one read larger than the budget still runs, alone) and gives it back when done; waiters are
 * served first come, first served so a big read is not starved by a stream of small ones.
 */
export class ByteBudget {
  private used = 0;
  private readonly waiters: { bytes: number; wake: () => void }[] = [];
  private released = 0;

  /**
   * `reclaim` (a request for a full garbage collection, from the composition root; it decides
   * when) is called after every `reclaimEveryBytes` given back: what big reads leave behind is
   * garbage V8 would otherwise let pile up for a long while.
   */
  constructor(
    readonly capacity: number,
    private readonly options: { reclaim?: () => void; reclaimEveryBytes?: number } = {},
  ) {}

  /** Bytes taken right now (for tests and benchmarks). */
  get inUse(): number {
    return this.used;
  }

  async use<T>(bytes: number, body: () => Promise<T>): Promise<T> {
    const release = await this.take(bytes);
    try {
      return await body();
    } finally {
      release();
    }
  }

  /**
   * Takes `bytes` (waiting for room) and returns the function that gives them back, for a hold
   * that outlives one call (a reply held until it is written). Calling it twice is harmless.
   */
  async take(bytes: number, signal?: AbortSignal): Promise<() => void> {
    const take = Math.min(Math.max(0, Math.ceil(bytes)), this.capacity);
    if (this.waiters.length > 0 || this.used + take > this.capacity) {
      // A cancelled call leaves the queue (it rejects with the signal's reason) instead of
      // waiting for bytes it no longer needs.
      signal?.throwIfAborted();
      await new Promise<void>((wake, reject) => {
        const waiter = {
          bytes: take,
          wake: () => {
            signal?.removeEventListener("abort", onAbort);
            wake();
          },
        };
        const onAbort = () => {
          const at = this.waiters.indexOf(waiter);
          if (at === -1) return; // already woken: the bytes are ours, the caller gives them back
          this.waiters.splice(at, 1);
          this.wakeWaiters(); // a smaller waiter behind this one may fit now
          reject(signal!.reason);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        this.waiters.push(waiter);
      });
    } else {
      this.used += take;
    }
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.used -= take;
      this.wakeWaiters();
      this.noteReleased(take);
    };
  }

  private noteReleased(bytes: number): void {
    const reclaim = this.options.reclaim;
    if (!reclaim) return;
    this.released += bytes;
    if (this.released < (this.options.reclaimEveryBytes ?? RECLAIM_EVERY_BYTES)) return;
    this.released = 0;
    reclaim();
  }

  private wakeWaiters(): void {
    while (this.waiters.length > 0) {
      const next = this.waiters[0]!;
      if (this.used + next.bytes > this.capacity && this.used > 0) return;
      this.waiters.shift();
      this.used += next.bytes;
      next.wake();
    }
  }
}

/** What a non-regular file is, in words ("a FIFO (named pipe)", "a character device"). */
export function describeSpecial(info: FileInfo): string {
  switch (info.special) {
    case "fifo":
      return "a FIFO (named pipe)";
    case "character device":
      return "a character device";
    case "block device":
      return "a block device";
    case "socket":
      return "a socket";
    default:
      return "not a regular file";
  }
}

/**
 * Refuses anything but a regular file before it is opened: opening a FIFO blocks until a writer
 * comes, and a device such as /dev/zero never ends. `shell`: the one the hint's call is written
 * for (Locations.shellFor; bash when not known).
 */
export function assertRegularFile(
  url: string,
  info: FileInfo,
  action: string,
  shell?: ShellKind,
): void {
  if (info.type === "file" || info.type === "dir") return;
  throw new AnchorError({
    code: "NOT_A_REGULAR_FILE",
    message:
      `${JSON.stringify(url)} is ${
        describeSpecial(info)
      }, not a regular file; ${action} opens only regular files (reading it could block or never ` +
      "end), so nothing was read or changed.",
    hint: guide`Use the shell for it, e.g. ${
      shellStepForFile(url, { kind: "describe" }, shell)
    }, or name a regular file.`,
  });
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
 * A file a bounded bulk read (a search) did not read because it is larger than `limit`. Callers
 * count these and say which were left out; the hint is for a caller that shows it alone.
 * `statSize`: what the stat said, when the read itself went past the limit.
 */
export function fileTooLargeToRead(
  url: string,
  size: number,
  limit: number,
  statSize?: number,
): AnchorError {
  return new AnchorError({
    code: "FILE_TOO_LARGE",
    message: `${sizeClause(url, size, limit, statSize)}, over the ${
      formatSize(limit)
    } limit of this read, so it was not read.`,
    hint: guide`${
      bigFileAlternatives(url)
    } The limit is set by the server's --max-file-bytes flag.`,
  });
}

/**
 * The file and its size, for FILE_TOO_LARGE. A read that went past a smaller stat size (a /proc
 * file says 0 bytes, a log grows while read) stopped one byte past the limit: its real size is
 * unknown, so the clause says "more than" the limit and what the stat said.
 */
/** "2.0 MB (2,097,152 bytes)"; "17 bytes" once, where the short form is already exact. */
function exactSize(bytes: number): string {
  const exact = plural(bytes, "byte");
  const short = formatSize(bytes);
  return short === exact ? exact : `${short} (${exact})`;
}

function sizeClause(url: string, size: number, limit: number, statSize?: number): string {
  if (statSize === undefined || statSize >= size) {
    return `${JSON.stringify(url)} is ${exactSize(size)}`;
  }
  return `${JSON.stringify(url)} holds more than ${
    formatSize(limit)
  } although its size on disk says ${
    plural(statSize, "byte")
  } (a /proc-style file, or one growing while it was read)`;
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
 * The alternatives for reading part of a big file: the shell (written for `shell`, see
 * Locations.shellFor), since a search (view with content) skips files above the same
 * --max-file-bytes limit.
 */
export function bigFileAlternatives(url: string, shell?: ShellKind): Guide {
  const job = /^anchorfs:\/\/jobs\/([0-9]+-[0-9]+)$/.exec(url)?.[1];
  if (job !== undefined) {
    // A job's log is not a path the shell can read, and a search skips it like any big file:
    // name the call that reads it.
    return guide`Read its end: ${step("jobs", { action: "read", id: job, bytes: 1000000 })}.`;
  }
  const search = { kind: "search", text: "TEXT", max: 100, match: "word" } as const;
  return guide`Search it with the shell: ${
    shellStepForFile(url, search, shell)
  }; or read a range: ${shellStepForFile(url, { kind: "head", lines: 200 }, shell)}${
    fileShellDialect(url, shell) === "posix" ? " (head and tail work too)" : ""
  }.`;
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

export function formatSize(n: number): string {
  if (n < 1024) return plural(n, "byte");
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(1)} GB`;
}

/**
 * Parses a byte count given to --max-file-bytes: a whole number, optionally with a K, M or G
 * suffix (powers of 1024; "64M", "1G"). Throws INVALID_FLAG naming the flag otherwise.
 */
export function parseByteCount(flag: string, raw: string): number {
  const m = /^\s*([0-9]+)\s*([kmg]?)(?:i?b)?\s*$/i.exec(raw);
  const unit = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(m?.[2] ?? "").toLowerCase()];
  const value = m && unit ? Number(m[1]) * unit : NaN;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new AnchorError({
      code: "INVALID_FLAG",
      message: `${flag} takes a positive number of bytes, got ${JSON.stringify(raw)}.`,
      hint: `e.g. ${flag} 67108864, or with a suffix: ${flag} 64M (K, M, G are powers of 1024).`,
    });
  }
  return value;
}
