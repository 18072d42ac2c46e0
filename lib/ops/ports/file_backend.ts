// The one file-backend interface. Ops talk only to this; lib/backends/{local,memory,ssh}
// implement it. Paths given to a backend are absolute paths on that backend's machine, spelled
// as its `paths` rules write them (POSIX, or Windows on a Windows disk).

import type { PathRules } from "../../core/path/path_rules.ts";
import type { FileSummary } from "../../core/text/head_summary.ts";

/** What a path is: a regular file, a directory, a symlink (when not followed), or anything else. */
export type EntryType = "file" | "dir" | "symlink" | "other";

/** What an "other" entry is, where the backend can tell: none of them is opened for reading. */
export type SpecialKind = "fifo" | "character device" | "block device" | "socket";

/** What `stat` reports about a path (symlinks followed). */
export interface FileInfo {
  /** What the path is. */
  type: EntryType;
  /** Size in bytes (0 for directories on some backends). */
  size: number;
  /** Permission bits (e.g. 0o644), or null where the backend cannot tell. */
  mode: number | null;
  /** Modification time in ms, or null where unknown. */
  mtimeMs: number | null;
  /** For type "other": what it is, when the backend can tell. */
  special?: SpecialKind;
}

/** One entry of a directory listing (`readDir`). */
export interface DirEntry {
  /** The entry's name inside the directory (no slashes). */
  name: string;
  /** From the directory entry itself (no stat per entry); "symlink" is not followed. */
  type: EntryType;
}

/** Options of `readDir`. */
export interface ReadDirOptions {
  /**
   * Awaited once, before the rest is read, when the directory turns out to hold more than
   * HUGE_DIR_ENTRIES entries (the walk waits there for its turn among huge directories). A
   * backend that gets a directory whole in one reply (sftp) may never call it.
   */
  whenHuge?: () => Promise<unknown>;
}

/**
 * Entries past which a directory is huge (ReadDirOptions.whenHuge): read, sorted and counted in
 * steps of the event loop, while other calls run between.
 */
export const HUGE_DIR_ENTRIES = 4096;

/** Options of `writeFileAtomic`. */
export interface WriteOptions {
  /** Permission bits for the file; an existing file's mode is kept when omitted. */
  mode?: number;
  /**
   * Refuse the write (FILE_CHANGED) when the file's content on disk is no longer `bytes`, the
   * content the edit was based on (compared byte for byte just before the rename, not by size
   * and mtime). `null` means the file must not exist.
   */
  expect?: { bytes: Uint8Array } | null;
}

/**
 * The `cause` of a FILE_CHANGED thrown at a write's very last step: another program wrote the file
 * in the instant the new content replaced it, and the write was taken back (the file is as that
 * program left it). `kept`: a file that had to be kept beside the target (named as shown).
 */
export interface ChangedAtReplace {
  atReplace: true;
  kept?: string;
}

/** What a FILE_CHANGED at the last step says after the file's name (backend and edit alike). */
export function changedAtReplaceText(atReplace: ChangedAtReplace): string {
  const kept = atReplace.kept === undefined
    ? ""
    : ` It was written more than once in that instant: another version is kept in ${
      JSON.stringify(atReplace.kept)
    } (compare it with the file, then delete it).`;
  return "changed on disk at the moment this edit replaced it (another program wrote it then); " +
    "the edit was taken back, so the file is as that program left it and nothing was " +
    `written.${kept}`;
}

/** The ChangedAtReplace cause of `error`, if it has one. */
export function changedAtReplace(error: unknown): ChangedAtReplace | undefined {
  const cause = (error as { cause?: unknown })?.cause as ChangedAtReplace | undefined;
  return cause?.atReplace === true ? cause : undefined;
}

/** One entry of a whole-tree listing; `path` is relative to the listed root, "/"-separated. */
export interface TreeEntry {
  /** Relative to the listed root, "/"-separated. */
  path: string;
  /** What the entry is; symlinks are not followed. */
  type: EntryType;
  /** Size in bytes. */
  size: number;
}

/** Options of `listTree`. */
export interface ListTreeOptions {
  /**
   * List hidden directories (names starting with ".") but not what is inside them: a listing
   * that skips hidden paths anyway would otherwise ship e.g. all of ~/.cache over the network.
   */
  skipHiddenDirContents?: boolean;
}

/** Options of `readFile`. */
export interface ReadFileOptions {
  /**
   * Stop after `maxBytes + 1` bytes, whatever the file's stat said (a /proc file says 0 bytes, a
   * log grows while it is read): a longer result means the file holds more than `maxBytes`, and
   * the caller refuses it (FILE_TOO_LARGE) or keeps the head it wanted. Without it the read goes
   * to the end of the file.
   */
  maxBytes?: number;
}

/** Options of `readFiles`. */
export interface ReadFilesOptions {
  /**
   * Read at most this many bytes from the start of each file and report the full `size`: a
   * listing needs a head to tell binary from text, not a 3 GB file. Backends that cannot cut a
   * read (a tar stream) may return more; callers cut.
   */
  headBytes?: number;
  /**
   * Do not read files larger than this: they come back with a FILE_TOO_LARGE error, unread (a
   * search skips and counts them). Backends that cannot tell sizes first may read them anyway;
   * callers that know sizes (a bulk listing) skip such files before asking.
   */
  skipLargerThan?: number;
}

/**
 * A machine's files as anchorfs uses them: local disk (`LocalBackend`), memory (`MemoryBackend`,
 * for tests and embedding) or an SSH host. Every tool reaches files only through this interface.
 *
 * @example
 * ```ts
 * import { type FileBackend, MemoryBackend } from "@anchorfs/anchorfs";
 *
 * const files: FileBackend = new MemoryBackend({ "/app/a.txt": "hello\n" });
 * const bytes = await files.readFile("/app/a.txt");
 * new TextDecoder().decode(bytes); // "hello\n"
 * ```
 */
export interface FileBackend {
  /** "local", "memory", or "ssh://user@host:port": used in keys and messages. */
  readonly id: string;
  /** How this machine spells and compares paths: POSIX on ssh hosts, the platform's locally. */
  readonly paths: PathRules;
  /**
   * Probes, read-only, whether the directories on the way to `path` (the nearest existing one and
   * its ancestors) compare names without case, so `paths` compares them as the file system does.
   * Cached per directory; never throws. Called before a path is compared or keyed
   * (Locations.locate, confinement's real paths). Absent: `paths` alone decides.
   */
  learnCase?(path: string): Promise<void>;
  /** Follows symlinks. Returns null when nothing exists at the path. */
  stat(path: string): Promise<FileInfo | null>;
  /**
   * The whole file, or with `options.maxBytes` at most one byte more than that (see
   * ReadFileOptions). Local disk refuses anything but a regular file before opening it
   * (NOT_A_REGULAR_FILE) and a read that would wait for data (WOULD_BLOCK); callers check the
   * size (lib/ops/read_limits.ts) first.
   */
  readFile(path: string, options?: ReadFileOptions): Promise<Uint8Array>;
  /** Reads at most `length` bytes from `offset`; fewer at the end of the file. */
  readRange(path: string, offset: number, length: number): Promise<Uint8Array>;
  /**
   * Writes to a temporary file in the same folder (flushed to disk), then renames it over `path`
   * (and flushes the folder). Removes temp files that writers no longer alive left in that folder.
   */
  writeFileAtomic(path: string, data: Uint8Array, options?: WriteOptions): Promise<void>;
  /**
   * Runs `body` holding the write lock of `path`, shared by every anchorfs process using this
   * backend's machine the same way: an edit's read, check, write and rename go inside, so two
   * processes never both write a version based on the same read. Waits a bounded time, then
   * fails with LOCK_TIMEOUT (the environment's fault). Not re-entrant.
   */
  withWriteLock<T>(path: string, body: () => Promise<T>): Promise<T>;
  /** Creates a directory and its parents; no error when it exists. */
  mkdirp(path: string): Promise<void>;
  /** Removes one file (not a directory). */
  removeFile(path: string): Promise<void>;
  /** The entries of a directory, without `.` and `..`; throws NOT_FOUND when missing. */
  readDir(path: string, options?: ReadDirOptions): Promise<DirEntry[]>;
  /** Resolves symlinks and `..`; throws NOT_FOUND when missing. */
  realPath(path: string): Promise<string>;
  /**
   * Optional: what the symlink at `path` points to, as stored in the link (possibly relative);
   * null when `path` is not a symlink or does not exist. Used to explain refusals.
   */
  readLink?(path: string): Promise<string | null>;
  /**
   * Optional: creates a symlink at `path` holding `target` as written (not resolved); fails with
   * FILE_CHANGED when anything, even a dangling link, is at `path`. Undo of a symlink's delete.
   */
  symlink?(target: string, path: string): Promise<void>;
  /** The user's home directory on that machine, for `~` in paths. */
  homeDir(): Promise<string>;
  /**
   * Optional bulk listing for high-latency backends (SSH): the whole tree under `root` in one
   * request, symlinks not followed, down to `maxDepth` levels (undefined: no limit). Callers
   * apply ignore rules to the result; local disk walks with readDir instead.
   */
  listTree?(
    root: string,
    maxDepth: number | undefined,
    options?: ListTreeOptions,
  ): Promise<TreeEntry[]>;
  /**
   * Optional bulk read for high-latency backends: many files in few requests, yielded as they
   * arrive (any order). A file that cannot be read comes back with `error` set; local disk
   * refuses anything but a regular file before opening it (NOT_A_REGULAR_FILE). See
   * ReadFilesOptions for heads (`headBytes`, with the full `size`) and `skipLargerThan`.
   */
  readFiles?(
    paths: readonly string[],
    options?: ReadFilesOptions,
  ): AsyncIterable<{ path: string; data?: Uint8Array; size?: number; error?: Error }>;
  /**
   * Optional, for listings on a backend that can read beside the caller (local disk): each file's
   * summary (`summarizeHead` of its first `headBytes` bytes, with its full size), in the order
   * given, without handing the bytes over. A file it cannot summarize comes back with `error`,
   * the same error `readFiles` would give.
   */
  summarizeFiles?(
    paths: readonly string[],
    headBytes: number,
  ): Iterable<{ path: string; summary?: FileSummary; error?: Error }>;
  /**
   * Optional (local disk on Linux with FFI): confines this backend's file operations to `dirs`
   * (real paths, each with the path it was allowed by) in the kernel, and returns the confined
   * view, the backend of every path the confinement check approved: it opens each path beneath
   * a held descriptor of its directory, so a directory swapped for a symlink after the check
   * cannot lead outside; an escape is refused with `refuse(path, whereItLeads)`. Called again
   * when the allowed directories change (the view follows). Undefined where the kernel cannot do
   * it here: the path check alone confines. `method`: "openat2" or "openat" (a walk).
   * @ignore
   */
  confine?(
    dirs: readonly { path: string; named?: string }[],
    refuse: (path: string, real: string) => Error,
  ): { backend: FileBackend; method: "openat2" | "openat" } | undefined;
  /**
   * Set on a confined view (see `confine`): the backend it confines, for what confinement does
   * not cover (the shell's directories, lookups that explain a refusal, ignore files above an
   * allowed directory).
   * @ignore
   */
  readonly unconfined?: FileBackend;
  /** Releases connections; a no-op for local disk. */
  close(): Promise<void>;
}

/** Whether two backends are one machine's files (a confined view counts as its backend). */
export function sameFiles(a: FileBackend, b: FileBackend): boolean {
  return (a.unconfined ?? a) === (b.unconfined ?? b);
}
