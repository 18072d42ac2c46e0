// The local disk confined to the allowed directories (--allow, --roots) on Linux: the FileBackend
// of every path a file tool resolved while confinement is on. Each path is opened beneath a held
// allowed directory (beneath.ts), then read, listed, stated, written and renamed through those
// descriptors (confined_fd.ts), never looked up by its text again: a directory swapped for a
// symlink meanwhile cannot send an operation outside. A path that leads outside is refused with
// the wording of lib/ops/confinement.ts. realPath and readLink stay lookups by text (they only
// explain refusals). The write lock is the flock of the folder opened beneath the root
// (confined_lock.ts), and a write replaces its file by the same checked swap as an unconfined one
// (its last steps: confined_commit.ts).

import type {
  DirEntry,
  FileBackend,
  ReadDirOptions,
  ReadFileOptions,
  ReadFilesOptions,
  WriteOptions,
} from "../../ops/ports/file_backend.ts";
import type { FileInfo } from "../../ops/ports/file_backend.ts";
import type { PathRules } from "../../core/path/path_rules.ts";
import { AnchorError } from "../../core/errors.ts";
import { hasRawBytes } from "../../core/path/path_quote.ts";
import { writeTempName } from "../../core/path/write_temp_name.ts";
import { type FileSummary, summarizeHead } from "../../core/text/head_summary.ts";
import { assertRegularFile } from "../../core/read_refusals.ts";
import { readBulkOne } from "./bounded_read.ts";
import { fileChanged, mapFsError, noTempBeside } from "../fs_errors.ts";
import {
  type Beneath,
  cName,
  ERRNO,
  errnoOf,
  type Libc,
  LINUX,
  OutsideRoots,
  type Placed,
  sysError,
} from "./beneath.ts";
import { beneathConfig, beneathSummaryFs } from "./beneath_fs.ts";
import {
  check,
  dirListing,
  type FdStat,
  infoOf,
  readRangeSync,
  readToEnd,
  readToEndSync,
  statAt,
  statFd,
  syncFd,
  writeAll,
} from "./confined_fd.ts";
import { nextTempNumber, sweepDeadTemps, writesInFlight } from "./dead_temps.ts";
import { readEntries, readEntriesInSteps } from "./fast_dir.ts";
import { quickSummary, type SummaryFs } from "./quick_summary.ts";
import { rawNames } from "./raw_names.ts";
import { refuseInterruptedWrite, writeInPlace } from "./write_in_place.ts";
import { type SwappedOut } from "./checked_swap.ts";
import { confinedLockSite, lockedFolderOf, sameFolder, withLockedFolder } from "./confined_lock.ts";
import type { LocalWriteLocks } from "./write_lock.ts";
import {
  checkUnchanged,
  commitAt,
  type HeldDir,
  keepOwner,
  placeNew,
  READ,
} from "./confined_commit.ts";

/** Builds the refusal of `path`, which leads to `real`, outside the allowed directories. */
type Refusal = (path: string, real: string) => Error;

/**
 * The confined view of the local disk: same id and path rules as the LocalBackend it belongs to
 * (`unconfined`), which keeps the write locks, the case probes and the lookups by text.
 */
export class ConfinedLocal implements FileBackend {
  readonly id = "local";
  readonly paths: PathRules;
  private readonly c: Libc;
  private quick: { fs: SummaryFs; generation: number } | undefined;

  constructor(
    readonly unconfined: FileBackend,
    private readonly beneath: Beneath,
    private refusal: Refusal,
    private readonly locks: LocalWriteLocks,
  ) {
    this.paths = unconfined.paths;
    this.c = beneath.c;
  }

  /** The refusal to give from now on (it names the directories allowed now). */
  setRefusal(refusal: Refusal): void {
    this.refusal = refusal;
  }

  learnCase(path: string): Promise<void> {
    return this.unconfined.learnCase?.(path) ?? Promise.resolve();
  }

  /**
   * The write lock: the flock of the file's folder opened beneath its allowed directory
   * (confined_lock.ts), the folder the write then uses; a path leading outside is refused.
   */
  withWriteLock<T>(path: string, body: () => Promise<T>): Promise<T> {
    const reach = {
      c: this.c,
      paths: this.paths,
      openDir: (dir: string) => this.open(dir, LINUX.O_PATH | LINUX.O_DIRECTORY),
      learnCase: (named: string) => this.learnCase(named),
    };
    const locate = () =>
      confinedLockSite(reach, path).catch((e) => {
        throw this.failure(e, "write", path);
      });
    return this.locks.runAt(path, locate, (site) => withLockedFolder(path, site, body));
  }

  realPath(path: string): Promise<string> {
    return this.unconfined.realPath(path);
  }

  readLink(path: string): Promise<string | null> {
    return this.unconfined.readLink?.(path) ?? Promise.resolve(null);
  }

  homeDir(): Promise<string> {
    return this.unconfined.homeDir();
  }

  close(): Promise<void> {
    return Promise.resolve(); // the LocalBackend closes the held directories
  }

  stat(path: string): Promise<FileInfo | null> {
    try {
      const s = this.statOf(path);
      return Promise.resolve(s && infoOf(s));
    } catch (e) {
      return Promise.reject(this.failure(e, "stat", path));
    }
  }

  async readFile(path: string, options: ReadFileOptions = {}): Promise<Uint8Array> {
    try {
      const fd = this.openContent(path);
      try {
        return await readToEnd(this.c, fd, statFd(this.c, fd).size, options.maxBytes ?? Infinity);
      } finally {
        this.c.close(fd);
      }
    } catch (e) {
      throw this.failure(e, "read", path);
    }
  }

  readRange(path: string, offset: number, length: number): Promise<Uint8Array> {
    try {
      const fd = this.openContent(path);
      try {
        return Promise.resolve(readRangeSync(this.c, fd, offset, length));
      } finally {
        this.c.close(fd);
      }
    } catch (e) {
      return Promise.reject(this.failure(e, "read", path));
    }
  }

  /**
   * The entries of a directory, by getdents64 on its descriptor (exact names and types), a huge
   * one in steps (fast_dir.ts readEntriesInSteps).
   */
  async readDir(path: string, options: ReadDirOptions = {}): Promise<DirEntry[]> {
    try {
      const fd = this.open(path, LINUX.O_RDONLY | LINUX.O_DIRECTORY);
      try {
        const { getdents, exact } = dirListing(this.c, fd);
        return (await readEntriesInSteps(getdents, options, exact))!;
      } finally {
        this.c.close(fd);
      }
    } catch (e) {
      throw this.failure(e, "list", path);
    }
  }

  async *readFiles(
    paths: readonly string[],
    options: ReadFilesOptions = {},
  ): AsyncIterable<{ path: string; data?: Uint8Array; size?: number; error?: Error }> {
    for (const path of paths) yield this.readOneSync(path, options);
  }

  /**
   * Listing summaries: the quick path opens each file beneath its root (beneath_fs.ts, the code
   * the workers run) into one shared buffer; anything it cannot settle goes the careful way.
   */
  *summarizeFiles(
    paths: readonly string[],
    headBytes: number,
  ): Iterable<{ path: string; summary?: FileSummary; error?: Error }> {
    const fs = this.quickFs();
    for (const path of paths) {
      const buf = summaryRoom(headBytes);
      const quick = fs && quickSummary(path, buf, headBytes, fs, summarizeHead);
      if (quick) {
        yield { path, summary: quick };
        continue;
      }
      const read = this.readOneSync(path, { headBytes });
      yield read.data
        ? { path, summary: summarizeHead(read.data, read.size ?? read.data.length) }
        : { path, error: read.error! };
    }
  }

  /**
   * The write, through the folder's descriptor (the one its lock holds): the temp file is created
   * there (O_EXCL, O_NOFOLLOW), written, fsynced, checked against `expect` and swapped in for the
   * name in the same folder, what came out checked (checked_swap.ts); the folder is fsynced. A
   * file with other hard links is written in place.
   */
  async writeFileAtomic(path: string, data: Uint8Array, options: WriteOptions = {}): Promise<void> {
    let dir: HeldDir;
    try {
      dir = this.holdDir(this.paths.parent(path));
    } catch (e) {
      throw this.failure(e, "write", path);
    }
    try {
      this.refuseUnlockedFolder(path, dir);
      const base = this.paths.baseName(path);
      const current = statAt(this.c, dir.fd, base);
      if (options.expect !== null && current?.type === "file" && current.nlink > 1) {
        return await this.writeLinked(dir, base, path, data, options);
      }
      await this.replace(dir, base, path, data, options, current);
      this.sweep(dir);
    } catch (e) {
      throw this.failure(e, "write", path);
    } finally {
      this.c.close(dir.fd);
    }
  }

  mkdirp(path: string): Promise<void> {
    try {
      const placed = this.place(path);
      const parts = placed.rel === "" ? [] : placed.rel.split("/");
      // Mostly the folder is there already: one open says so.
      if (this.isDir(placed)) return Promise.resolve();
      for (let i = 1; i <= parts.length; i++) this.makeDir(placed, parts, i);
      return Promise.resolve();
    } catch (e) {
      return Promise.reject(this.failure(e, "create directory", path));
    }
  }

  removeFile(path: string): Promise<void> {
    try {
      const dir = this.open(this.paths.parent(path), LINUX.O_PATH | LINUX.O_DIRECTORY);
      try {
        check(this.c, "unlinkat", this.c.unlinkat(dir, cName(this.paths.baseName(path)), 0));
      } finally {
        this.c.close(dir);
      }
      return Promise.resolve();
    } catch (e) {
      return Promise.reject(this.failure(e, "delete", path));
    }
  }

  symlink(target: string, path: string): Promise<void> {
    try {
      const dir = this.open(this.paths.parent(path), LINUX.O_PATH | LINUX.O_DIRECTORY);
      try {
        const made = this.c.symlinkat(cName(target), dir, cName(this.paths.baseName(path)));
        if (made !== 0 && errnoOf(this.c) === ERRNO.EEXIST) throw fileChanged(path);
        check(this.c, "symlinkat", made);
      } finally {
        this.c.close(dir);
      }
      return Promise.resolve();
    } catch (e) {
      return Promise.reject(this.failure(e, "create the symlink", path));
    }
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * The root and the path below it: by the text when the path is written inside a root (its real
   * path or the name it was allowed by), else by the path's real path. That lookup only picks the
   * root: the open that follows is beneath it, whatever the lookup saw.
   */
  private place(path: string): Placed {
    const placed = this.beneath.place(path);
    if (placed) return placed;
    const real = realPathNear(path);
    const again = this.beneath.place(real);
    if (!again) throw new OutsideRoots(path, real);
    return again;
  }

  /**
   * `path` opened beneath its root (symlinks followed beneath, the last one too by default);
   * throws OutsideRoots (made the refusal by `failure`) when it leads out.
   */
  private open(path: string, flags: number, follow = true): number {
    return this.beneath.openPlaced(this.place(path), flags, follow);
  }

  /** statx of `path` (links followed); null when nothing is there. */
  private statOf(path: string): FdStat | null {
    let fd: number;
    try {
      fd = this.open(path, LINUX.O_PATH);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === "ENOENT" || code === "ENOTDIR") return null;
      throw e;
    }
    try {
      return statFd(this.c, fd);
    } finally {
      this.c.close(fd);
    }
  }

  /**
   * `path` opened for reading its content: a FIFO or a device is refused before it is opened
   * (opening one could block or wake a writer), and again after (one may have been swapped in).
   */
  private openContent(path: string): number {
    const before = this.statOf(path);
    if (!before) throw sysError(ERRNO.ENOENT, "open");
    refuseSpecial(path, before);
    const fd = this.open(path, READ);
    try {
      refuseSpecial(path, statFd(this.c, fd));
    } catch (e) {
      this.c.close(fd);
      throw e;
    }
    return fd;
  }

  /** One file for readFiles: as LocalBackend's readOneSync, opened beneath its root. */
  private readOneSync(
    path: string,
    options: ReadFilesOptions,
  ): { path: string; data?: Uint8Array; size?: number; error?: Error } {
    try {
      const fd = this.openContent(path);
      try {
        const size = statFd(this.c, fd).size;
        return readBulkOne(path, size, options, (max) => readToEndSync(this.c, fd, size, max));
      } finally {
        this.c.close(fd);
      }
    } catch (e) {
      return { path, error: this.failure(e, "read", path) };
    }
  }

  /** The quick reads' SummaryFs over the roots held now (rebuilt when they change). */
  private quickFs(): SummaryFs | null {
    const generation = this.beneath.generation;
    if (this.quick?.generation !== generation) {
      const config = beneathConfig(this.beneath.method, generation, this.beneath.held());
      this.quick = { fs: beneathSummaryFs(this.c, config), generation };
    }
    return this.quick.fs;
  }

  /**
   * FILE_CHANGED when the write's folder is not the one its lock holds (another program put a
   * different folder under that name since the lock was taken): nothing is written there.
   */
  private refuseUnlockedFolder(path: string, dir: HeldDir): void {
    const locked = lockedFolderOf(path);
    if (!locked || locked.shown !== dir.shown) return; // the lock is of an ancestor (create)
    if (!sameFolder(statFd(this.c, dir.fd), locked.folder)) throw fileChanged(path);
  }

  /** The folder of a write, opened beneath its root: readable when it may be (for its fsync). */
  private holdDir(dir: string): HeldDir {
    try {
      return { fd: this.open(dir, LINUX.O_RDONLY | LINUX.O_DIRECTORY), readable: true, shown: dir };
    } catch (e) {
      if ((e as { code?: string }).code !== "EACCES") throw e;
      return { fd: this.open(dir, LINUX.O_PATH | LINUX.O_DIRECTORY), readable: false, shown: dir };
    }
  }

  /**
   * writeFileAtomic's steps for a file without other links (or a new one). Once the names are
   * exchanged, the temp's name holds the old file: it is never removed blindly then.
   */
  private async replace(
    dir: HeldDir,
    base: string,
    path: string,
    data: Uint8Array,
    options: WriteOptions,
    current: FdStat | null,
  ): Promise<void> {
    const c = this.c;
    const temp = writeTempName(base.toWellFormed(), Deno.pid, nextTempNumber());
    const key = this.paths.join(dir.shown, temp);
    const existing = current?.type === "file" ? current : null;
    const mode = options.mode ?? existing?.mode;
    writesInFlight.add(key);
    const owned = { temp: false };
    try {
      const how = LINUX.O_WRONLY | LINUX.O_CREAT | LINUX.O_EXCL | LINUX.O_NOFOLLOW |
        LINUX.O_CLOEXEC;
      const fd = c.openat(dir.fd, cName(temp), how, mode ?? 0o644);
      if (fd < 0) {
        const errno = errnoOf(c);
        if (errno === ERRNO.ENOENT && current) throw noTempBeside(path);
        throw sysError(errno, "create");
      }
      owned.temp = true;
      try {
        await writeAll(c, fd, data);
        if (options.expect !== null && existing) keepOwner(c, fd, existing);
        if (mode !== undefined) check(c, "fchmod", c.fchmod(fd, mode)); // open's mode is masked
        await syncFd(c, fd); // the data is on disk before the rename makes it the file
      } finally {
        c.close(fd);
      }
      let swapped: SwappedOut | null = null;
      if (options.expect === null) placeNew(c, dir.fd, temp, base, path);
      else swapped = await commitAt(c, dir, { temp, base, path, data }, options.expect, owned);
      if (dir.readable) await syncFd(c, dir.fd).catch(() => {}); // the rename survives a power cut
      swapped?.settle(); // the late look, after the folder's fsync (checked_swap.ts)
    } catch (e) {
      if (owned.temp) c.unlinkat(dir.fd, cName(temp), 0);
      throw e;
    } finally {
      writesInFlight.delete(key);
    }
  }

  /**
   * A file with other hard links, written in place (write_in_place.ts) through /proc/self/fd
   * aliases of descriptors opened beneath the root: the file's own alias reaches exactly that
   * inode, the folder's the held folder (the copy's steps there do not follow a last symlink).
   */
  private async writeLinked(
    dir: HeldDir,
    base: string,
    path: string,
    data: Uint8Array,
    options: WriteOptions,
  ): Promise<void> {
    const c = this.c;
    const file = c.openat(
      dir.fd,
      cName(base),
      LINUX.O_PATH | LINUX.O_NOFOLLOW | LINUX.O_CLOEXEC,
      0,
    );
    if (file < 0) throw sysError(errnoOf(c), "open");
    try {
      const open = `/proc/self/fd/${file}`;
      const target = {
        open,
        dir: `/proc/self/fd/${dir.fd}`,
        base: base.toWellFormed(),
        shown: path,
        shownDir: dir.shown,
        inoNow: () => Number(statAt(c, dir.fd, base)?.ino ?? -1),
      };
      const expect = options.expect ?? undefined; // never null here: the file exists
      await writeInPlace(target, data, options.mode, writesInFlight, async () => {
        await refuseInterruptedWrite(target);
        if (expect !== undefined) await checkUnchanged(c, dir.fd, base, path, expect);
        return expect?.bytes ?? await Deno.readFile(open);
      });
    } finally {
      c.close(file);
    }
  }

  /** mkdirp's step `i`: the first `i` parts exist as a directory afterwards. */
  private makeDir(placed: Placed, parts: readonly string[], i: number): void {
    const at = (n: number) => ({ root: placed.root, rel: parts.slice(0, n).join("/") });
    const dirFlags = LINUX.O_PATH | LINUX.O_DIRECTORY;
    try {
      this.c.close(this.beneath.openPlaced(at(i), dirFlags));
      return;
    } catch (e) {
      if ((e as { code?: string }).code !== "ENOENT") throw asMkdirError(e, i === parts.length);
    }
    const parent = this.beneath.openPlaced(at(i - 1), dirFlags);
    try {
      const made = this.c.mkdirat(parent, cName(parts[i - 1]!), 0o777);
      if (made !== 0 && errnoOf(this.c) !== ERRNO.EEXIST) check(this.c, "mkdirat", made);
    } finally {
      this.c.close(parent);
    }
    try {
      this.c.close(this.beneath.openPlaced(at(i), dirFlags)); // made, or made by someone else
    } catch (e) {
      throw asMkdirError(e, i === parts.length);
    }
  }

  /** Whether `placed` opens as a directory (beneath its root); escapes still throw. */
  private isDir(placed: Placed): boolean {
    try {
      this.c.close(this.beneath.openPlaced(placed, LINUX.O_PATH | LINUX.O_DIRECTORY));
      return true;
    } catch (e) {
      if (e instanceof OutsideRoots) throw e;
      return false;
    }
  }

  /** Removes the temp files of dead writers from the held folder (see dead_temps.ts). */
  private sweep(dir: HeldDir): void {
    if (!dir.readable) return;
    const c = this.c;
    let entries: DirEntry[];
    try {
      const { getdents, exact } = dirListing(c, dir.fd);
      entries = readEntries(getdents, exact)!;
    } catch {
      return;
    }
    const inFlight = [...writesInFlight];
    sweepDeadTemps({
      names: entries.filter((e) => e.type === "file").map((e) => e.name),
      // Temp names carry this process's pid and its one counter: the name alone says it.
      ours: (name) => inFlight.some((k) => k.endsWith(`/${name}`)),
      mtimeMs: (name) => {
        const s = statAt(c, dir.fd, name);
        if (!s) throw sysError(ERRNO.ENOENT, "statx");
        return infoOf(s).mtimeMs;
      },
      remove: (name) => check(c, "unlinkat", c.unlinkat(dir.fd, cName(name), 0)),
    });
  }

  /** Any failure as the AnchorError the tools show (an escape as the confinement refusal). */
  private failure(e: unknown, action: string, path: string): Error {
    if (e instanceof OutsideRoots) return this.refusal(path, e.real);
    if (e instanceof AnchorError) return e;
    return mapFsError(e, action, path);
  }
}

/** Anything but a regular file or a directory is refused unopened, as LocalBackend does. */
function refuseSpecial(path: string, s: FdStat): void {
  if (s.type !== "file" && s.type !== "dir") assertRegularFile(path, infoOf(s), "anchorfs");
}

/** mkdirp meeting a non-directory: at the last part "exists", on the way "not a directory". */
function asMkdirError(e: unknown, last: boolean): unknown {
  const code = (e as { code?: string }).code;
  return code === "ENOTDIR" && last ? sysError(ERRNO.EEXIST, "mkdir") : e;
}

/**
 * The real path of `path` (its nearest existing ancestor resolved, the rest appended), by text:
 * used only to pick the root a path named through a symlink outside the roots belongs to.
 */
function realPathNear(path: string): string {
  const tail: string[] = [];
  for (let at = path;; at = at.slice(0, Math.max(1, at.lastIndexOf("/")))) {
    try {
      const real = hasRawBytes(at) ? rawNames()?.realPath(at) ?? at : Deno.realPathSync(at);
      return tail.length === 0 ? real : `${real === "/" ? "" : real}/${tail.join("/")}`;
    } catch {
      if (at === "/") return path;
      tail.unshift(at.slice(at.lastIndexOf("/") + 1));
    }
  }
}

let summaryBuffer = new Uint8Array(0);

/** The listing heads' buffer, shared: each summary is made before the next read starts. */
function summaryRoom(headBytes: number): Uint8Array {
  if (summaryBuffer.length < headBytes) summaryBuffer = new Uint8Array(headBytes);
  return summaryBuffer;
}
