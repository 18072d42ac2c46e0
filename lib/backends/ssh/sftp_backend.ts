// FileBackend over one SSH connection: SFTP for single-file operations (atomic writes via a
// temp file and posix-rename@openssh.com), and exec fast paths for the bulk operations
// (listTree: one `find`; readFiles: one `tar` stream), with SFTP fallbacks when exec is refused.

import { Buffer } from "node:buffer";
import type { Attributes, SFTPWrapper, Stats } from "./ssh2_types.d.ts";
import { AnchorError } from "../../core/errors.ts";
import { baseName, joinPath, parentPath } from "../../core/path/path_text.ts";
import { type PathRules, posixPathsOn } from "../../core/path/path_rules.ts";
import { CaseVolumes } from "../../core/path/case_volumes.ts";
import { describePlatform } from "../../core/platform/platform.ts";
import { CaseProber, type ProbeLookup, type ProbeView } from "../case_probe.ts";
import type {
  DirEntry,
  EntryType,
  FileBackend,
  FileInfo,
  ListTreeOptions,
  ReadFileOptions,
  ReadFilesOptions,
  SpecialKind,
  TreeEntry,
  WriteOptions,
} from "../../ops/ports/file_backend.ts";
import { fileChanged, mapFsError, matchesExpected, notFound } from "../fs_errors.ts";
import { concatBytes } from "./concat_bytes.ts";
import {
  isWriteTempName,
  TEMP_MAX_AGE_MS,
  writeTempName,
} from "../../core/path/write_temp_name.ts";
import { RemoteWriteLocks } from "./remote_write_lock.ts";
import { assertRegularFile, fileTooLargeToRead } from "../../core/read_refusals.ts";
import { ByteBudget } from "../../core/byte_budget.ts";
import type { RemoteHelper } from "./remote_helper.ts";
import type { SshLink } from "./ssh_link.ts";

const SFTP_NO_SUCH_FILE = 2;
const SFTP_PERMISSION_DENIED = 3;
/** Parallel SFTP requests in the fallback paths (pipelining hides latency). */
const SFTP_PARALLEL = 32;
const TAR_MIN_FILES = 16;
/** Bytes of a bulk read waiting for the consumer before the stream or reads pause. */
const READ_AHEAD_BYTES = 8 * 1024 * 1024;
/** One file as readFiles yields it: its bytes (and full size), or why it could not be read. */
type ReadFilesItem = { path: string; data?: Uint8Array; size?: number; error?: Error };
/** First read of a file that reports size 0 (it may be empty, or generated like /proc). */
const SMALL_READ = 64 * 1024;

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

function typeOfMode(mode: number): EntryType {
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

function sftpCode(e: unknown): number | undefined {
  const code = (e as { code?: unknown })?.code;
  return typeof code === "number" ? code : undefined;
}

function mapSftpError(e: unknown, action: string, path: string): AnchorError {
  if (e instanceof AnchorError) return e;
  const code = sftpCode(e);
  if (code === SFTP_NO_SUCH_FILE) return notFound(path);
  if (code === SFTP_PERMISSION_DENIED) return mapFsError({ code: "EACCES" }, action, path);
  return mapFsError(e, action, path);
}

function call<T>(fn: (cb: (err: Error | null | undefined, value: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    fn((err, value) => err ? reject(err) : resolve(value));
  });
}

let tempCounter = 0;

export class SftpBackend implements FileBackend {
  readonly id: string;
  /**
   * Remote paths are POSIX, whatever the client's platform; names compare byte for byte unless
   * `learnCase` found a directory of the host that folds case (a macOS host's APFS, a vfat mount).
   */
  readonly paths: PathRules;
  private readonly prober: CaseProber;
  private home: string | undefined;
  /** Exec fast paths on/off (benchmarks compare both; SFTP is the fallback either way). */
  useExec = true;
  /**
   * Below this many files, pipelined SFTP reads beat a `tar` request on the remote helper
   * (see docs/benchmarks.md for the measurement).
   */
  tarMinFiles = TAR_MIN_FILES;
  /** Cross-host write locks on the remote machine (see remote_write_lock.ts). */
  readonly locks: RemoteWriteLocks;

  /**
   * `urlOf` gives a path as the model wrote its host (`ssh://box/x`): errors name the remote
   * host, so a missing or unwritable remote path is never taken for a local one.
   */
  constructor(readonly link: SshLink, private urlOf: (path: string) => string = (p) => p) {
    const h = link.host;
    this.id = `ssh://${h.user}@${h.hostName}:${h.port}` +
      (h.jump ? ` via ${h.jump.user}@${h.jump.hostName}:${h.jump.port}` : "");
    this.locks = new RemoteWriteLocks(link, () => this.homeDir(), async (path) => {
      await this.learnCase(path);
      return this.paths.key(path);
    });
    // POSIX grammar, case-sensitive until a probe of the host says otherwise.
    const volumes = new CaseVolumes(describePlatform("linux"));
    this.paths = posixPathsOn(volumes);
    this.prober = new CaseProber(
      volumes,
      this.paths,
      this.caseView(),
      async (path) => (await this.stat(path))?.type === "dir",
    );
  }

  /** Asks the host whether the directories on the way to `path` compare names without case. */
  learnCase(path: string): Promise<void> {
    return this.prober.learn(path);
  }

  /** SFTP has no inode numbers: the probe compares against the directory's full listing. */
  private caseView(): ProbeView {
    return {
      names: async (dir) => ({
        names: (await this.readDir(dir)).map((e) => e.name),
        complete: true,
      }),
      lookup: (path) =>
        this.sftp("probe", path, "safe", (sftp) => call<Stats>((cb) => sftp.lstat(path, cb)))
          .then(
            (s): ProbeLookup => ({ isDir: typeOfMode(s.mode) === "dir" }),
            (e): ProbeLookup => sftpCode(e) === SFTP_NO_SUCH_FILE ? "missing" : "error",
          ),
    };
  }

  private shown(path: string): string {
    return this.urlOf(path);
  }

  private sftp<T>(
    action: string,
    path: string,
    retry: "safe" | "unsafe",
    fn: (sftp: SFTPWrapper) => Promise<T>,
  ): Promise<T> {
    return this.link.withSftp(`${action} ${JSON.stringify(path)}`, retry, fn);
  }

  async stat(path: string): Promise<FileInfo | null> {
    try {
      const s = await this.sftp(
        "stat",
        path,
        "safe",
        (sftp) => call<Stats>((cb) => sftp.stat(path, cb)),
      );
      return toInfo(s);
    } catch (e) {
      if (sftpCode(e) === SFTP_NO_SUCH_FILE) return null;
      // OpenSSH answers a path through a file ("a.txt/x") with a generic failure.
      if (sftpCode(e) === 4 && await this.parentIsFile(path)) return null;
      throw mapSftpError(e, "stat", this.shown(path));
    }
  }

  private async parentIsFile(path: string): Promise<boolean> {
    for (let p = parentPath(path); p !== "/"; p = parentPath(p)) {
      const info = await this.stat(p);
      if (info) return info.type !== "dir";
    }
    return false;
  }

  async readFile(path: string, options: ReadFileOptions = {}): Promise<Uint8Array> {
    try {
      return await this.sftp("read", path, "safe", async (sftp) => {
        const handle = await call<Uint8Array>((cb) => sftp.open(path, "r", cb));
        try {
          const st = await call<Stats>((cb) => sftp.fstat(handle as never, cb));
          if (typeOfMode(st.mode) === "dir") {
            throw mapFsError({ code: "EISDIR" }, "read", path);
          }
          // A device never ends: refused. (A FIFO blocks the open already: ops stat first.)
          if (typeOfMode(st.mode) === "other") {
            assertRegularFile(this.shown(path), toInfo(st), "anchorfs");
          }
          const cap = options.maxBytes === undefined ? Infinity : options.maxBytes + 1;
          return await readAll(sftp, handle, st.size, cap);
        } finally {
          sftp.close(handle as never, () => {});
        }
      });
    } catch (e) {
      throw mapSftpError(e, "read", this.shown(path));
    }
  }

  async readRange(path: string, offset: number, length: number): Promise<Uint8Array> {
    try {
      return await this.sftp("read", path, "safe", async (sftp) => {
        const handle = await call<Uint8Array>((cb) => sftp.open(path, "r", cb));
        try {
          return await readSpan(sftp, handle, offset, length);
        } finally {
          sftp.close(handle as never, () => {});
        }
      });
    } catch (e) {
      throw mapSftpError(e, "read", this.shown(path));
    }
  }

  async writeFileAtomic(path: string, data: Uint8Array, options: WriteOptions = {}): Promise<void> {
    const dir = parentPath(path);
    const temp = `${dir === "/" ? "" : dir}/${
      writeTempName(baseName(path), Deno.pid, Date.now(), ++tempCounter)
    }`;
    let mode = options.mode;
    let tempWritten = false;
    try {
      const current = await this.stat(path);
      if (current?.type === "dir") throw mapFsError({ code: "EISDIR" }, "write", path);
      if (mode === undefined && current?.mode != null) mode = current.mode;
      // Writing the temp file is safe to repeat: it is ours alone and rewritten from the start.
      await this.sftp("write", temp, "safe", async (sftp) => {
        const handle = await call<Uint8Array>((cb) =>
          sftp.open(temp, "w", { mode: mode ?? 0o644 } as Attributes, cb)
        );
        tempWritten = true;
        try {
          await writeAll(sftp, handle, data);
          // fsync@openssh.com: the data is on the remote disk before the rename (if supported).
          await call<void>((cb) => sftp.ext_openssh_fsync(handle as never, cb)).catch(() => {});
        } finally {
          await call<void>((cb) => sftp.close(handle as never, cb)).catch(() => {});
        }
        // The server's umask applies at open; set the bits the file must end up with.
        await call<void>((cb) => sftp.chmod(temp, mode ?? 0o644, cb));
      });
      if (options.expect !== undefined) await this.checkUnchanged(path, options.expect);
      // The rename is repeated after a drop only when the temp file is provably still there,
      // i.e. the first rename never ran.
      await this.link.withSftp(
        `replace ${JSON.stringify(path)}`,
        async (link) =>
          await link.withSftp(
            "check the temporary file",
            "safe",
            (sftp) => call<Stats>((cb) => sftp.lstat(temp, cb)).then(() => true, () => false),
          ),
        (sftp) => call<void>((cb) => sftp.ext_openssh_rename(temp, path, cb)),
      );
      tempWritten = false;
    } catch (e) {
      if (tempWritten) {
        await this.link.withSftp(
          "remove the temporary file",
          "safe",
          (sftp) => call<void>((cb) => sftp.unlink(temp, cb)),
        ).catch(() => {});
      }
      throw mapSftpError(e, "write", this.shown(path));
    }
    await this.removeOldTemps(dir, baseName(path));
  }

  withWriteLock<T>(path: string, body: () => Promise<T>): Promise<T> {
    return this.locks.run(path, body);
  }

  /**
   * FILE_CHANGED unless the remote content is `expect.bytes` (re-read and compared), and a stat
   * taken after that read still shows the same size and mtime. mtime over SFTP has whole
   * seconds: the stat narrows the window, the content comparison is what decides.
   */
  private async checkUnchanged(
    path: string,
    expect: NonNullable<WriteOptions["expect"]> | null,
  ): Promise<void> {
    const before = await this.stat(path);
    if (expect === null || before === null) {
      if (expect === null && before === null) return;
      throw fileChanged(this.shown(path));
    }
    if (before.size !== expect.bytes.length) throw fileChanged(this.shown(path));
    const bytes = await this.readFile(path, { maxBytes: expect.bytes.length }).catch(() => null);
    if (!matchesExpected(bytes, expect)) throw fileChanged(this.shown(path));
    const after = await this.stat(path);
    if (after?.size !== before.size || after.mtimeMs !== before.mtimeMs) {
      throw fileChanged(this.shown(path));
    }
  }

  /**
   * Removes temp files older than TEMP_MAX_AGE_MS from `dir`: a remote writer's pid cannot be
   * checked from here, so only age tells a dead write. The clock is the remote one: the mtime of
   * the file just written.
   */
  private async removeOldTemps(dir: string, written: string): Promise<void> {
    try {
      const list = await this.sftp(
        "list",
        dir,
        "safe",
        (sftp) =>
          call<{ filename: string; attrs: Attributes }[]>((cb) => sftp.readdir(dir, cb as never)),
      );
      const now = list.find((e) => e.filename === written)?.attrs.mtime;
      if (now === undefined) return;
      for (const e of list) {
        const ageMs = (now - (e.attrs.mtime ?? now)) * 1000; // SFTP times are in seconds
        if (!isWriteTempName(e.filename) || ageMs <= TEMP_MAX_AGE_MS) continue;
        const old = `${dir === "/" ? "" : dir}/${e.filename}`;
        await this.sftp(
          "remove old temporary file",
          old,
          "safe",
          (sftp) => call<void>((cb) => sftp.unlink(old, cb)),
        ).catch(() => {});
      }
    } catch { /* best effort: a listing failure must not fail the write that succeeded */ }
  }

  async mkdirp(path: string): Promise<void> {
    const info = await this.stat(path);
    if (info?.type === "dir") return;
    if (info) throw mapFsError({ code: "ENOTDIR" }, "create directory", this.shown(path));
    if (parentPath(path) !== path) await this.mkdirp(parentPath(path));
    try {
      await this.sftp(
        "create directory",
        path,
        "safe",
        (sftp) => call<void>((cb) => sftp.mkdir(path, cb)),
      );
    } catch (e) {
      // Created concurrently, or by the first attempt before a drop: fine if it is a directory.
      if ((await this.stat(path))?.type === "dir") return;
      throw mapSftpError(e, "create directory", this.shown(path));
    }
  }

  async removeFile(path: string): Promise<void> {
    try {
      await this.sftp(
        "delete",
        path,
        "unsafe",
        (sftp) => call<void>((cb) => sftp.unlink(path, cb)),
      );
    } catch (e) {
      throw mapSftpError(e, "delete", this.shown(path));
    }
  }

  async readDir(path: string): Promise<DirEntry[]> {
    try {
      const list = await this.sftp(
        "list",
        path,
        "safe",
        (sftp) =>
          call<{ filename: string; attrs: Attributes }[]>((cb) => sftp.readdir(path, cb as never)),
      );
      return list.filter((e) => e.filename !== "." && e.filename !== "..").map((e) => ({
        name: e.filename,
        type: typeOfMode(e.attrs.mode ?? 0),
      }));
    } catch (e) {
      if (sftpCode(e) === 4) {
        const info = await this.stat(path);
        if (info && info.type !== "dir") throw mapFsError({ code: "ENOTDIR" }, "list", path);
      }
      throw mapSftpError(e, "list", this.shown(path));
    }
  }

  async realPath(path: string): Promise<string> {
    try {
      const resolved = await this.sftp(
        "resolve",
        path,
        "safe",
        (sftp) => call<string>((cb) => sftp.realpath(path, cb)),
      );
      // OpenSSH resolves a missing last component without complaint; the contract says NOT_FOUND.
      if (path !== "." && (await this.stat(resolved)) === null) throw notFound(this.shown(path));
      return resolved;
    } catch (e) {
      if (sftpCode(e) === SFTP_NO_SUCH_FILE) throw notFound(this.shown(path));
      throw mapSftpError(e, "resolve", this.shown(path));
    }
  }

  async readLink(path: string): Promise<string | null> {
    try {
      return await this.sftp(
        "read the symlink",
        path,
        "safe",
        (sftp) => call<string>((cb) => sftp.readlink(path, cb)),
      );
    } catch {
      return null; // not a symlink, or gone
    }
  }

  async symlink(target: string, path: string): Promise<void> {
    try {
      if ((await this.readLink(path)) !== null || (await this.stat(path)) !== null) {
        throw fileChanged(this.shown(path));
      }
      await this.sftp(
        "create the symlink",
        path,
        "unsafe",
        (sftp) => call<void>((cb) => sftp.symlink(target, path, cb)),
      );
    } catch (e) {
      throw mapSftpError(e, "create the symlink", this.shown(path));
    }
  }

  async homeDir(): Promise<string> {
    this.home ??= await this.realPath(".");
    return this.home;
  }

  async listTree(
    root: string,
    maxDepth: number | undefined,
    options: ListTreeOptions = {},
  ): Promise<TreeEntry[]> {
    const skipHidden = options.skipHiddenDirContents === true;
    if (this.useExec && !root.includes("\n")) {
      const depth = maxDepth === undefined ? undefined : Math.max(1, maxDepth);
      const r = await this.link.withHelper(
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
        const info = await this.stat(root);
        if (!info) throw notFound(this.shown(root), "directory");
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
    const rootInfo = await this.stat(root);
    if (!rootInfo) throw notFound(this.shown(root), "directory");
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
          list = await this.sftp(
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
            throw mapSftpError(e, "list", this.shown(dir));
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
    const bulk = this.useExec && paths.length >= this.tarMinFiles &&
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
    const run = this.link.withHelper("read files", (h) => {
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
    const info = await this.stat(path);
    if (!info || info.type === "dir") {
      const data = await this.readFile(path); // throws the precise error (NOT_FOUND, a folder)
      return { path, data, size: data.length };
    }
    if (info.type !== "file" || info.special) assertRegularFile(this.shown(path), info, "anchorfs");
    if (limit !== undefined && info.size > limit) {
      throw fileTooLargeToRead(this.shown(path), info.size, limit);
    }
    // A file that reports size 0 may still have content (/proc): read up to the bound.
    const cap = head ?? (limit === undefined ? undefined : limit + 1);
    if (cap === undefined) {
      await reserve(info.size);
      const data = await this.readFile(path);
      return { path, data, size: data.length };
    }
    const want = info.size > 0 ? Math.min(info.size, cap) : Math.min(cap, SMALL_READ);
    await reserve(want);
    let data = await this.readRange(path, 0, want);
    if (info.size === 0 && data.length === want && want < cap) {
      data = await this.readRange(path, 0, cap);
    }
    if (head === undefined && limit !== undefined && data.length > limit) {
      throw fileTooLargeToRead(this.shown(path), data.length, limit);
    }
    return { path, data, size: Math.max(info.size, data.length) };
  }

  /** Request counters of the underlying connection, for benchmarks and tests. */
  get stats(): { requests: number; reconnects: number } {
    return { requests: this.link.requests, reconnects: this.link.reconnects };
  }

  async close(): Promise<void> {
    await this.link.close();
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

function toInfo(s: Stats): FileInfo {
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

async function forEachParallel<T>(
  items: readonly T[],
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(SFTP_PARALLEL, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  });
  await Promise.all(workers);
}

const CHUNK = 32 * 1024;

/** Reads a whole open file with several reads in flight (sizes may have changed: read to EOF). */
async function readAll(
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
async function readSpan(
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

async function writeAll(sftp: SFTPWrapper, handle: Uint8Array, data: Uint8Array): Promise<void> {
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
