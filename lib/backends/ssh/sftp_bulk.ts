// The bulk paths of the SFTP backend, for high-latency links: a whole tree in one `find` on the
// remote helper (breadth-first SFTP listing as the fallback) and many files in one `tar` stream
// (pipelined SFTP reads for the rest), with the consumer's pace bounding what waits in memory.

import type { Attributes } from "./ssh2_types.d.ts";
import { AnchorError } from "../../core/errors.ts";
import { joinPath } from "../../core/path/path_text.ts";
import type {
  EntryType,
  FileInfo,
  ListTreeOptions,
  ReadFileOptions,
  ReadFilesOptions,
  TreeEntry,
} from "../../ops/ports/file_backend.ts";
import { mapFsError, notFound } from "../fs_errors.ts";
import { assertRegularFile, fileTooLargeToRead } from "../../core/read_refusals.ts";
import { ByteBudget } from "../../core/byte_budget.ts";
import type { RemoteHelper } from "./remote_helper.ts";
import type { SshLink } from "./ssh_link.ts";
import type { SFTPWrapper } from "./ssh2_types.d.ts";
import { call, forEachParallel, mapSftpError, typeOfMode } from "./sftp_io.ts";

/** Below this many files, pipelined SFTP reads beat a `tar` request (docs/benchmarks.md). */
export const TAR_MIN_FILES = 16;
/** Bytes of a bulk read waiting for the consumer before the stream or reads pause. */
const READ_AHEAD_BYTES = 8 * 1024 * 1024;
/** One file as readFiles yields it: its bytes (and full size), or why it could not be read. */
type ReadFilesItem = { path: string; data?: Uint8Array; size?: number; error?: Error };
/** First read of a file that reports size 0 (it may be empty, or generated like /proc). */
const SMALL_READ = 64 * 1024;

/** What the bulk paths use of the backend: its link and switches, and its single-file calls. */
interface BulkFiles {
  readonly link: SshLink;
  readonly useExec: boolean;
  readonly tarMinFiles: number;
  stat(path: string): Promise<FileInfo | null>;
  readFile(path: string, options?: ReadFileOptions): Promise<Uint8Array>;
  readRange(path: string, offset: number, length: number): Promise<Uint8Array>;
  /** The path as the model wrote its host (`ssh://box/x`), for errors. */
  shown(path: string): string;
  sftp<T>(
    action: string,
    path: string,
    retry: "safe" | "unsafe",
    fn: (sftp: SFTPWrapper) => Promise<T>,
  ): Promise<T>;
}

/** listTree and readFiles of one SFTP backend. */
export class SftpBulk {
  constructor(private readonly files: BulkFiles) {}

  async listTree(
    root: string,
    maxDepth: number | undefined,
    options: ListTreeOptions = {},
  ): Promise<TreeEntry[]> {
    const skipHidden = options.skipHiddenDirContents === true;
    if (this.files.useExec && !root.includes("\n")) {
      const depth = maxDepth === undefined ? undefined : Math.max(1, maxDepth);
      const r = await this.files.link.withHelper(
        `list ${JSON.stringify(root)}`,
        (h) => h.list(root, depth, skipHidden),
      ).catch((e) => {
        if (e instanceof AnchorError) throw e;
        return null; // the helper failed on its own: SFTP gives the same listing
      });
      if (r) {
        const entries = parseFindOutput(r.records);
        // find exits 1 for unreadable subfolders but lists the rest; a missing root lists none.
        if (r.status === 0 || entries.length > 0) return entries;
        const info = await this.files.stat(root);
        if (!info) throw notFound(this.files.shown(root), "directory");
        if (info.type !== "dir") throw mapFsError({ code: "ENOTDIR" }, "list", root);
        return entries;
      }
    }
    return await this.listTreeBySftp(root, maxDepth, skipHidden);
  }

  /** Fallback: breadth-first readdir, many directories in flight at once. */
  private async listTreeBySftp(
    root: string,
    maxDepth: number | undefined,
    skipHidden: boolean,
  ): Promise<TreeEntry[]> {
    const rootInfo = await this.files.stat(root);
    if (!rootInfo) throw notFound(this.files.shown(root), "directory");
    const out: TreeEntry[] = [];
    let level: string[] = [""];
    for (
      let depth = 1;
      level.length > 0 && (maxDepth === undefined || depth <= maxDepth);
      depth++
    ) {
      const next: string[] = [];
      await forEachParallel(level, async (rel) => {
        const dir = rel === "" ? root : joinPath(root, rel);
        let list: { filename: string; attrs: Attributes }[];
        try {
          list = await this.files.sftp(
            "list",
            dir,
            "safe",
            (sftp) =>
              call<{ filename: string; attrs: Attributes }[]>((cb) =>
                sftp.readdir(dir, cb as never)
              ),
          );
        } catch (e) {
          if (rel === "") {
            throw mapSftpError(e, "list", this.files.shown(dir));
          }
          return; // unreadable subfolder: skipped like find does
        }
        for (const e of list) {
          if (e.filename === "." || e.filename === "..") {
            continue;
          }
          const path = rel === "" ? e.filename : `${rel}/${e.filename}`;
          const type = typeOfMode(e.attrs.mode ?? 0);
          out.push({ path, type, size: e.attrs.size ?? 0 });
          if (type === "dir" && !(skipHidden && e.filename.startsWith("."))) next.push(path);
        }
      });
      level = next;
    }
    return out;
  }

  /**
   * Bulk read: one tar stream on the remote helper for many files, SFTP one by one for the rest.
   * Honours `headBytes` and `skipLargerThan`: the remote side sends only regular files within
   * both (find's -size), so a huge file never enters the stream; those left out are read here by
   * range (a head) or refused unread (FILE_TOO_LARGE). Files are handed out as they arrive, and
   * the stream is paused while more than READ_AHEAD_BYTES wait for the consumer, so memory stays
   * bounded by that plus one file.
   */
  async *readFiles(
    paths: readonly string[],
    options: ReadFilesOptions = {},
  ): AsyncIterable<ReadFilesItem> {
    const head = options.headBytes;
    const limit = options.skipLargerThan;
    const bound = head === undefined ? limit : limit === undefined ? head : Math.min(head, limit);
    const pending = new Set(paths);
    const bulk = this.files.useExec && paths.length >= this.files.tarMinFiles &&
      paths.every((p) => p.startsWith("/") && !p.includes("\0"));
    if (bulk) yield* this.readFilesByTar(paths, pending, bound);
    // Whatever tar did not deliver (missing, unreadable, over a bound, exec refused): read one by
    // one so each failure carries its own precise error.
    yield* this.readFilesOneByOne([...pending], head, limit);
  }

  /**
   * readFiles through one tar stream on the remote helper: yields the files it delivers and
   * removes them from `pending`. Pauses the stream while more than READ_AHEAD_BYTES wait.
   */
  private async *readFilesByTar(
    paths: readonly string[],
    pending: Set<string>,
    bound: number | undefined,
  ): AsyncIterable<ReadFilesItem> {
    let stopped = false; // the consumer left early: drop the rest, let the stream run out
    const handOff = new HandOff<{ path: string; data: Uint8Array; size: number }>();
    let queued = 0;
    let helper: RemoteHelper | undefined;
    let paused = false;
    let failure: unknown;
    const run = this.files.link.withHelper("read files", (h) => {
      helper = h; // a retry after a reconnect gets a new helper, not paused
      paused = false;
      return h.readFiles(paths, (entry) => {
        if (stopped || (entry.type !== "0" && entry.type !== "7")) return;
        const path = entry.name.startsWith("/") ? entry.name : `/${entry.name}`;
        // Each file once: a stream retried after a reconnect repeats what already came.
        if (!pending.delete(path)) return;
        handOff.push({ path, data: entry.data, size: entry.data.length });
        queued += entry.data.length;
        if (queued > READ_AHEAD_BYTES && !paused) {
          paused = true;
          h.pause();
        }
      }, bound);
    }).catch((e) => {
      failure = e;
    }).finally(() => handOff.finish());
    try {
      yield* handOff.drain((item) => {
        queued -= item.data.length;
        if (paused && queued <= READ_AHEAD_BYTES / 2) {
          paused = false;
          helper?.resume();
        }
      });
    } finally {
      if (!handOff.finished) {
        // The consumer stopped (an output cap, a cancelled call): the rest of the stream is
        // read and dropped in the background so the helper is ready for the next request.
        stopped = true;
        handOff.drop();
        if (paused) helper?.resume();
      }
    }
    await run;
    if (failure instanceof AnchorError) throw failure;
  }

  /**
   * readFiles over SFTP, file by file (in parallel). Reads wait for room in a small byte budget
   * that the consumer frees as it takes files, so a slow consumer holds few of them.
   */
  private async *readFilesOneByOne(
    rest: readonly string[],
    head: number | undefined,
    limit: number | undefined,
  ): AsyncIterable<ReadFilesItem> {
    let stopped = false; // the consumer left early: reads still in flight are dropped
    const room = new ByteBudget(READ_AHEAD_BYTES);
    const handOff = new HandOff<{ item: ReadFilesItem; release: () => void }>();
    const all = forEachParallel(rest, async (path) => {
      if (stopped) return;
      let release = () => {};
      let item: ReadFilesItem;
      try {
        item = await this.readOne(path, head, limit, async (bytes) => {
          release = await room.take(bytes);
        });
      } catch (e) {
        item = { path, error: e as Error };
      }
      if (stopped) release();
      else handOff.push({ item, release });
    }).finally(() => handOff.finish());
    try {
      for await (const { item } of handOff.drain(({ release }) => release())) yield item;
    } finally {
      stopped = true;
      for (const { release } of handOff.drop()) release();
    }
    await all;
  }

  /**
   * One file for readFiles: stat first (opening a FIFO would block the remote sftp-server), then
   * a head, or the whole file when within `limit`. `reserve` is called with the bytes about to be
   * read, before reading them.
   */
  private async readOne(
    path: string,
    head: number | undefined,
    limit: number | undefined,
    reserve: (bytes: number) => Promise<void>,
  ): Promise<{ path: string; data: Uint8Array; size: number }> {
    const info = await this.files.stat(path);
    if (!info || info.type === "dir") {
      const data = await this.files.readFile(path); // throws the precise error (NOT_FOUND, a folder)
      return { path, data, size: data.length };
    }
    if (info.type !== "file" || info.special) {
      assertRegularFile(this.files.shown(path), info, "anchorfs");
    }
    if (limit !== undefined && info.size > limit) {
      throw fileTooLargeToRead(this.files.shown(path), info.size, limit);
    }
    // A file that reports size 0 may still have content (/proc): read up to the bound.
    const cap = head ?? (limit === undefined ? undefined : limit + 1);
    if (cap === undefined) {
      await reserve(info.size);
      const data = await this.files.readFile(path);
      return { path, data, size: data.length };
    }
    const want = info.size > 0 ? Math.min(info.size, cap) : Math.min(cap, SMALL_READ);
    await reserve(want);
    let data = await this.files.readRange(path, 0, want);
    if (info.size === 0 && data.length === want && want < cap) {
      data = await this.files.readRange(path, 0, cap);
    }
    if (head === undefined && limit !== undefined && data.length > limit) {
      throw fileTooLargeToRead(this.files.shown(path), data.length, limit);
    }
    return { path, data, size: Math.max(info.size, data.length) };
  }
}

/**
 * The hand-off between a bulk read's producers (a tar stream, parallel SFTP reads) and its
 * consumer: items are yielded in arrival order until the producers finish; `taken` runs as each
 * leaves the queue (to resume a paused stream, or free its bytes).
 */
class HandOff<T> {
  private queue: T[] = [];
  private wake: (() => void) | undefined;
  finished = false;

  push(item: T): void {
    this.queue.push(item);
    this.wake?.();
  }

  finish(): void {
    this.finished = true;
    this.wake?.();
  }

  async *drain(taken: (item: T) => void): AsyncIterable<T> {
    while (true) {
      while (this.queue.length > 0) {
        const item = this.queue.shift()!;
        taken(item);
        yield item;
      }
      if (this.finished) return;
      await new Promise<void>((r) => this.wake = r);
      this.wake = undefined;
    }
  }

  /** Empties the queue (the consumer left) and returns what was in it. */
  drop(): T[] {
    return this.queue.splice(0);
  }
}

/** The records of the remote helper's `find` listing (`TYPE SIZE PATH`, NUL-separated). */
function parseFindOutput(text: string): TreeEntry[] {
  const out: TreeEntry[] = [];
  for (const record of text.split("\0")) {
    if (record === "") continue;
    const first = record.indexOf(" ");
    const second = record.indexOf(" ", first + 1);
    if (first === -1 || second === -1) continue;
    const t = record.slice(0, first);
    const type: EntryType = t === "f"
      ? "file"
      : t === "d"
      ? "dir"
      : t === "l"
      ? "symlink"
      : "other";
    out.push({
      path: record.slice(second + 1),
      type,
      size: Number(record.slice(first + 1, second)),
    });
  }
  return out;
}
