// FileBackend over one SSH connection: SFTP for single-file operations (atomic writes via a
// temp file and posix-rename@openssh.com), the bulk operations (listTree, readFiles) through
// the exec fast paths of sftp_bulk.ts, and the byte level in sftp_io.ts.

import type { Attributes, SFTPWrapper, Stats } from "./ssh2_types.d.ts";
import { baseName, parentPath } from "../../core/path/path_text.ts";
import { type PathRules, posixPathsOn } from "../../core/path/path_rules.ts";
import { CaseVolumes } from "../../core/path/case_volumes.ts";
import { describePlatform } from "../../core/platform/platform.ts";
import { CaseProber, type ProbeLookup, type ProbeView } from "../case_probe.ts";
import type {
  DirEntry,
  FileBackend,
  FileInfo,
  ListTreeOptions,
  ReadFileOptions,
  ReadFilesOptions,
  TreeEntry,
  WriteOptions,
} from "../../ops/ports/file_backend.ts";
import { fileChanged, mapFsError, matchesExpected, notFound } from "../fs_errors.ts";
import {
  isWriteTempName,
  TEMP_MAX_AGE_MS,
  writeTempName,
} from "../../core/path/write_temp_name.ts";
import { RemoteWriteLocks } from "./remote_write_lock.ts";
import { SftpBulk, TAR_MIN_FILES } from "./sftp_bulk.ts";
import {
  call,
  mapSftpError,
  readAll,
  readSpan,
  SFTP_NO_SUCH_FILE,
  sftpCode,
  toInfo,
  typeOfMode,
  writeAll,
} from "./sftp_io.ts";
import { assertRegularFile } from "../../core/read_refusals.ts";
import type { SshLink } from "./ssh_link.ts";

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
  private readonly bulk = new SftpBulk(this);

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

  /** The path as the model wrote its host (`ssh://box/x`), for errors. */
  shown(path: string): string {
    return this.urlOf(path);
  }

  /** One SFTP request on the link, retried after a reconnect when `retry` says it is safe. */
  sftp<T>(
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

  listTree(
    root: string,
    maxDepth: number | undefined,
    options: ListTreeOptions = {},
  ): Promise<TreeEntry[]> {
    return this.bulk.listTree(root, maxDepth, options);
  }

  /** Many files in few requests (see SftpBulk.readFiles), yielded as they arrive. */
  readFiles(
    paths: readonly string[],
    options: ReadFilesOptions = {},
  ): AsyncIterable<{ path: string; data?: Uint8Array; size?: number; error?: Error }> {
    return this.bulk.readFiles(paths, options);
  }

  /** Request counters of the underlying connection, for benchmarks and tests. */
  get stats(): { requests: number; reconnects: number } {
    return { requests: this.link.requests, reconnects: this.link.reconnects };
  }

  async close(): Promise<void> {
    await this.link.close();
  }
}
