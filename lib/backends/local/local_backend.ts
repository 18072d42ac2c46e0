// Local disk. The only code that reads and writes local files; everything above goes through
// the FileBackend interface so that remote hosts behave the same.

import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import { fileChanged, mapFsError, matchesExpected, noTempBeside, notFound } from "../fs_errors.ts";
import type {
  DirEntry,
  EntryType,
  FileBackend,
  FileInfo,
  ReadFileOptions,
  ReadFilesOptions,
  SpecialKind,
  WriteOptions,
} from "../../ops/ports/file_backend.ts";
import { type PathRules, pathRulesFor } from "../../core/path/path_rules.ts";
import { CaseVolumes } from "../../core/path/case_volumes.ts";
import { CaseProber } from "../case_probe.ts";
import { localCaseView } from "./case_view.ts";
import { currentPlatform } from "../platform/current_platform.ts";
import { assertRegularFile } from "../../core/read_refusals.ts";
import { keptCopyName, writeTempName } from "../../core/path/write_temp_name.ts";
import { hasRawBytes } from "../../core/path/path_quote.ts";
import { AnchorError } from "../../core/errors.ts";
import { nextTempNumber, removeDeadTemps, writesInFlight } from "./dead_temps.ts";
import { BoundedRead, readBulkOne } from "./bounded_read.ts";
import { LocalWriteLocks, type WriteLockOptions } from "./write_lock.ts";
import { type RawNames, rawNames } from "./raw_names.ts";
import { fastListDirInTurns } from "./fast_dir.ts";
import { type FileSummary, summarizeHead } from "../../core/text/head_summary.ts";
import { quickSummary } from "./quick_summary.ts";
import { refuseInterruptedWrite, syncDir, writeInPlace } from "./write_in_place.ts";
import {
  type FileIdentity,
  pathSite,
  swapChecked,
  type SwapNames,
  SwappedOut,
} from "./checked_swap.ts";
import { Beneath, type BeneathMethod } from "./beneath.ts";
import { type BeneathConfig, beneathConfig } from "./beneath_fs.ts";
import { ConfinedLocal } from "./confined_local.ts";

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

function toInfo(s: Deno.FileInfo): FileInfo {
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
function refuseSpecial(path: string, s: Deno.FileInfo): void {
  if (!s.isFile && !s.isDirectory) assertRegularFile(path, toInfo(s), "anchorfs");
}

/**
 * Throws FILE_CHANGED unless the file's content is `expect.bytes`. The content is read through
 * one descriptor; a stat just before returning must still show that inode, size and mtime, so a
 * change while the (possibly long) read ran is caught too. Returns the file checked.
 */
async function checkUnchanged(
  path: string,
  expect: NonNullable<WriteOptions["expect"]>,
): Promise<FileIdentity> {
  let file: fsp.FileHandle;
  try {
    file = await fsp.open(path, READ_FLAGS);
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") throw fileChanged(path);
    throw e;
  }
  let read: fs.Stats;
  let bytes: Uint8Array;
  try {
    read = await file.stat();
    // One byte more than expected: a file that grew meanwhile shows.
    bytes = read.size === expect.bytes.length
      ? await readToEnd(file, read.size, read.size)
      : new Uint8Array();
  } finally {
    await file.close();
  }
  if (read.size !== expect.bytes.length || !matchesExpected(bytes, expect)) throw fileChanged(path);
  const now = await Deno.stat(path).catch(() => null);
  if (
    !now || now.ino !== read.ino || now.dev !== read.dev || now.size !== read.size ||
    now.mtime?.getTime() !== read.mtimeMs
  ) throw fileChanged(path);
  return { dev: read.dev, ino: read.ino };
}

/**
 * Puts a new file in place only if nothing is there: a hard link fails atomically when the name
 * exists, so no window at all. Where links are unsupported, a stat and a rename.
 */
async function placeNew(temp: string, path: string): Promise<void> {
  try {
    await Deno.link(temp, path);
  } catch (e) {
    if (e instanceof Deno.errors.AlreadyExists) throw fileChanged(path);
    if (e instanceof Deno.errors.NotFound) throw e;
    // No hard links on this file system (EPERM on FAT, ENOTSUP on some FUSE): stat and rename.
    if (await Deno.lstat(path).then(() => true, () => false)) throw fileChanged(path);
    await Deno.rename(temp, path);
    return;
  }
  await Deno.remove(temp).catch(() => {}); // left over: removed as dead by a later write
}

/** Whether `path` is a regular file with other hard links (then it is written in place). */
async function hasOtherLinks(path: string): Promise<boolean> {
  const info = await hosted(path, Deno.stat).catch(() => null);
  return info !== null && info.isFile && (info.nlink ?? 1) > 1;
}

/** The owner of the file at `path` (null when there is none or it cannot be told). */
async function ownerOf(path: string): Promise<{ uid: number; gid: number } | null> {
  const info = await hosted(path, Deno.stat).catch(() => null);
  return info?.uid == null || info.gid == null ? null : { uid: info.uid, gid: info.gid };
}

/**
 * Gives the temp file the replaced file's owner: the rename would otherwise hand the file to
 * whoever runs anchorfs (root editing a user's 0640 file locked the user out of it). Before the
 * chmod, which a chown may clear set-id bits for. Best effort: a user other than root can only
 * change the group, to one of its own.
 */
async function keepOwner(temp: string, owner: { uid: number; gid: number } | null): Promise<void> {
  if (owner === null || (owner.uid === Deno.uid() && owner.gid === Deno.gid())) return;
  try {
    await Deno.chown(temp, owner.uid, owner.gid);
  } catch {
    await Deno.chown(temp, null, owner.gid).catch(() => {});
  }
}

/**
 * checkUnchanged for a name that is not UTF-8: the check runs on a fresh fd alias, and the name
 * must still lead to that same inode afterwards (the alias itself cannot see a rename).
 */
async function checkUnchangedRaw(
  names: RawNames,
  path: string,
  expect: NonNullable<WriteOptions["expect"]>,
): Promise<FileIdentity> {
  let checked: Deno.FileInfo;
  try {
    checked = await names.withAlias(path, async (alias) => {
      await checkUnchanged(alias, expect);
      return await Deno.stat(alias);
    });
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) throw fileChanged(path);
    throw e;
  }
  const now = await names.withAlias(path, Deno.stat).catch(() => null);
  if (
    !now || now.ino !== checked.ino || now.dev !== checked.dev || now.size !== checked.size ||
    now.mtime?.getTime() !== checked.mtime?.getTime()
  ) throw fileChanged(path);
  return { dev: checked.dev, ino: checked.ino ?? 0 };
}

/**
 * Writes the temp file of a write to `path`: `data`, the mode given or the target's, its owner
 * kept (keepOwner), fsynced before anything makes it the file.
 */
async function writeTemp(
  temp: string,
  data: Uint8Array,
  options: WriteOptions,
  path: string,
): Promise<void> {
  let mode = options.mode;
  if (mode === undefined) {
    const current = await hosted(path, Deno.stat).catch(() => null);
    if (current?.mode != null) mode = current.mode & 0o7777;
  }
  const owner = options.expect === null ? null : await ownerOf(path);
  const file = await Deno.open(temp, { write: true, createNew: true, mode: mode ?? 0o644 });
  try {
    for (let at = 0; at < data.length;) at += await file.write(data.subarray(at));
    await keepOwner(temp, owner);
    if (mode !== undefined) await Deno.chmod(temp, mode); // open's mode is masked by umask
    await file.sync(); // the data is on disk before the rename makes it the file
  } finally {
    file.close();
  }
}

/** The names checked_swap.ts works with for a write of `path` (a UTF-8 name) through `temp`. */
function swapNames(temp: string, path: string, dir: string, base: string): SwapNames {
  return {
    temp,
    path,
    tempOpen: temp,
    shown: path,
    statPath: () => {
      const info = fs.lstatSync(path, { throwIfNoEntry: false });
      return info ? { dev: info.dev, ino: info.ino } : null;
    },
    keptName: () => {
      const kept = `${dir === "/" ? "" : dir}/${keptCopyName(base, Deno.pid, nextTempNumber())}`;
      return { open: kept, shown: kept };
    },
  };
}

/**
 * swapNames for a name that is not UTF-8: the exchange takes the names by bytes, Deno opens the
 * temp (a UTF-8 name) through the folder's fd alias and stats the target through its own.
 */
function rawSwapNames(
  names: RawNames,
  at: { temp: string; tempOpen: string; path: string; alias: string; dir: string; base: string },
): SwapNames {
  return {
    temp: at.temp,
    path: at.path,
    tempOpen: at.tempOpen,
    shown: at.path,
    statPath: () => {
      try {
        const info = names.withAliasSync(at.path, Deno.statSync);
        return { dev: info.dev, ino: info.ino ?? 0 };
      } catch {
        return null;
      }
    },
    keptName: () => {
      const name = keptCopyName(at.base, Deno.pid, nextTempNumber());
      return { open: `${at.alias}/${name}`, shown: `${at.dir === "/" ? "" : at.dir}/${name}` };
    },
  };
}

/** The raw-name helper for a path holding bytes that are not UTF-8 (see raw_names.ts). */
function raw(path: string): RawNames {
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
function hosted<T>(path: string, op: (path: string) => Promise<T>): Promise<T> {
  return hasRawBytes(path) ? raw(path).withAlias(path, op) : op(path);
}

/**
 * Flags of every read of a file's content: O_NONBLOCK makes a read that would wait for data
 * (/proc/kmsg, which waits for the next kernel message; a FIFO put where the stat saw a file)
 * fail at once with EAGAIN (WOULD_BLOCK), where a blocking read would hold the main thread, or
 * a thread of the blocking pool, until data came, maybe never. Regular files read as usual.
 * Windows has no such flag (0).
 */
const READ_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0);

/**
 * Reads an open file to its end into one buffer allocated here, sized from the stat (grown if the
 * file grew). Deno.readFile allocates its buffer on a blocking-pool thread instead: under many
 * concurrent reads each such thread's malloc arena kept its freed buffers, and the resident size
 * grew by tens of MB (10,000 views; BENCHMARKS.md). At most `max + 1` bytes whatever the stat
 * said (bounded_read.ts).
 */
async function readToEnd(file: fsp.FileHandle, size: number, max: number): Promise<Uint8Array> {
  const read = new BoundedRead(size, max);
  while (!read.done) {
    const [buf, at, length] = read.next();
    read.took((await file.read(buf, at, length, null)).bytesRead);
  }
  return read.bytes();
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
 * The local disk as a {@linkcode FileBackend}: atomic writes (temp file, flush, rename), write
 * locks shared by every anchorfs process of the user, and names that are not valid UTF-8 kept
 * byte for byte.
 *
 * @example
 * ```ts
 * import { LocalBackend } from "@anchorfs/anchorfs";
 *
 * const disk = new LocalBackend();
 * const dir = await Deno.makeTempDir();
 * await disk.writeFileAtomic(`${dir}/a.txt`, new TextEncoder().encode("hi\n"));
 * (await disk.stat(`${dir}/a.txt`))?.size; // 3
 * await Deno.remove(dir, { recursive: true });
 * await disk.close();
 * ```
 */
export class LocalBackend implements FileBackend {
  readonly id = "local";
  /**
   * The platform's path rules (Windows: drive letters, `\`, UNC), comparing names with or without
   * case per directory as `learnCase` found the disk does (the platform's default until then).
   */
  readonly paths: PathRules;
  private readonly locks: LocalWriteLocks;
  private readonly prober: CaseProber;
  /** The held allowed directories once confined (null: the kernel cannot confine here). */
  private beneath: Beneath | null | undefined;
  private confined: ConfinedLocal | undefined;

  /** `options.locks`: where the cross-process write locks live and how long a write waits. */
  constructor(options: { locks?: WriteLockOptions } = {}) {
    const volumes = new CaseVolumes(currentPlatform());
    this.paths = pathRulesFor(currentPlatform(), volumes);
    this.prober = new CaseProber(volumes, this.paths, localCaseView, async (path) => {
      if (hasRawBytes(path)) return false;
      return (await Deno.stat(path)).isDirectory;
    });
    this.locks = new LocalWriteLocks({
      ...options.locks,
      paths: this.paths,
      learnCase: (path) => this.prober.learn(path),
    });
  }

  /** Asks the disk whether the directories on the way to `path` compare names without case. */
  learnCase(path: string): Promise<void> {
    return this.prober.learn(path);
  }

  async stat(path: string): Promise<FileInfo | null> {
    try {
      return toInfo(await hosted(path, Deno.stat));
    } catch (e) {
      if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) return null;
      throw mapFsError(e, "stat", path);
    }
  }

  async readFile(path: string, options: ReadFileOptions = {}): Promise<Uint8Array> {
    try {
      return await hosted(path, async (p) => {
        const info = await Deno.stat(p);
        refuseSpecial(path, info);
        const file = await fsp.open(p, READ_FLAGS);
        try {
          return await readToEnd(file, info.size, options.maxBytes ?? Infinity);
        } finally {
          await file.close();
        }
      });
    } catch (e) {
      throw mapFsError(e, "read", path);
    }
  }

  async readRange(path: string, offset: number, length: number): Promise<Uint8Array> {
    let file: fsp.FileHandle | undefined;
    try {
      file = await hosted(path, async (p) => {
        refuseSpecial(path, await Deno.stat(p));
        return await fsp.open(p, READ_FLAGS);
      });
      const buf = new Uint8Array(Math.max(0, length));
      let filled = 0;
      while (filled < length) {
        // From the start, plain reads: a stream-like /proc file cannot seek (ESPIPE).
        const at = offset === 0 ? null : offset + filled;
        const { bytesRead: n } = await file.read(buf, filled, length - filled, at);
        if (n === 0) break;
        filled += n;
      }
      return buf.subarray(0, filled);
    } catch (e) {
      throw mapFsError(e, "read", path);
    } finally {
      await file?.close();
    }
  }

  /**
   * The write: temp file written and fsynced, checked against `expect`, swapped in for the target
   * and what came out checked again (checked_swap.ts; where names cannot be exchanged, a rename
   * right after the check), folder fsynced (see docs/security.md, "Writing safely").
   */
  async writeFileAtomic(path: string, data: Uint8Array, options: WriteOptions = {}): Promise<void> {
    if (options.expect !== null && await hasOtherLinks(path)) {
      return await this.writeLinked(path, data, options);
    }
    const dir = this.paths.parent(path);
    if (hasRawBytes(path)) return await this.writeRawName(path, data, options);
    const base = this.paths.baseName(path);
    const temp = this.paths.join(dir, writeTempName(base, Deno.pid, nextTempNumber()));
    // Once the names are exchanged, the temp's name holds the old file: never remove it blindly.
    let tempIsOurs = true;
    writesInFlight.add(temp);
    try {
      await writeTemp(temp, data, options, path);
      let swapped: SwappedOut | null = null;
      if (options.expect === null) await placeNew(temp, path);
      else if (options.expect === undefined) await Deno.rename(temp, path);
      else {
        const checked = await checkUnchanged(path, options.expect);
        tempIsOurs = false;
        swapped = swapChecked(
          pathSite(swapNames(temp, path, dir, base)),
          data,
          options.expect.bytes,
          checked,
        );
        if (swapped === null) {
          tempIsOurs = true;
          await Deno.rename(temp, path); // no exchange here: renamed right after the check
        }
      }
      await syncDir(dir); // the rename itself survives a power cut
      swapped?.settle();
    } catch (e) {
      if (tempIsOurs) await Deno.remove(temp).catch(() => {});
      if (e instanceof Deno.errors.NotFound && await hosted(path, Deno.stat).catch(() => null)) {
        throw noTempBeside(path);
      }
      throw mapFsError(e, "write", path);
    } finally {
      writesInFlight.delete(temp);
    }
    removeDeadTemps(dir, writesInFlight);
  }

  /**
   * writeFileAtomic for a file with other hard links: written in place (write_in_place.ts), so
   * the edit reaches every name of the file, as editors that keep links do.
   */
  private async writeLinked(path: string, data: Uint8Array, options: WriteOptions): Promise<void> {
    const dir = this.paths.parent(path);
    const expect = options.expect ?? undefined; // never null here: the file exists
    try {
      await hosted(dir, (openDir) =>
        hosted(path, async (open) => {
          const target = {
            open,
            dir: openDir,
            base: this.paths.baseName(path).toWellFormed(),
            shown: path,
            shownDir: dir,
          };
          await writeInPlace(target, data, options.mode, writesInFlight, async () => {
            await refuseInterruptedWrite(target);
            if (expect !== undefined) await checkUnchanged(open, expect);
            return expect?.bytes ?? await Deno.readFile(open);
          });
        }));
    } catch (e) {
      throw mapFsError(e, "write", path);
    }
    if (!hasRawBytes(dir)) removeDeadTemps(dir, writesInFlight);
  }

  withWriteLock<T>(path: string, body: () => Promise<T>): Promise<T> {
    return this.locks.run(path, body);
  }

  async mkdirp(path: string): Promise<void> {
    try {
      if (hasRawBytes(path)) return await this.mkdirpRaw(path);
      await Deno.mkdir(path, { recursive: true });
    } catch (e) {
      throw mapFsError(e, "create directory", path);
    }
  }

  async removeFile(path: string): Promise<void> {
    try {
      if (hasRawBytes(path)) raw(path).unlink(path);
      else await Deno.remove(path);
    } catch (e) {
      throw mapFsError(e, "delete", path);
    }
  }

  /** The entries of a directory; throws NOT_FOUND when it does not exist. */
  async readDir(path: string): Promise<DirEntry[]> {
    try {
      // Sync listing: async Deno.readDir costs one op per entry (~3x slower on big trees); one
      // directory blocks the event loop for well under a millisecond, and a huge one gives the
      // event loop a turn every few tens of thousands of entries.
      if (hasRawBytes(path)) return raw(path).listDir(path);
      const fast = await fastListDirInTurns(path);
      if (fast) return Promise.resolve(fast);
      const out: DirEntry[] = [];
      let lossy = false;
      for (const e of Deno.readDirSync(path)) {
        const name = e.name;
        out.push({
          name,
          type: e.isFile ? "file" : e.isDirectory ? "dir" : e.isSymlink ? "symlink" : "other",
        });
        if (name.includes("\uFFFD")) lossy = true;
      }
      // Deno replaced bytes that are not UTF-8 with U+FFFD: list again by bytes for exact names.
      const names = lossy ? rawNames() : null;
      return Promise.resolve(names ? names.listDir(path) : out);
    } catch (e) {
      return Promise.reject(mapFsError(e, "list", path));
    }
  }

  /**
   * Bulk read used by view's search and listings: synchronous reads avoid the per-file cost of
   * async ops (about 2x faster on 50k-file trees); callers pass batches of a few hundred files.
   */
  async *readFiles(
    paths: readonly string[],
    options: ReadFilesOptions = {},
  ): AsyncIterable<{ path: string; data?: Uint8Array; size?: number; error?: Error }> {
    for (const path of paths) yield readOneSync(path, options);
  }

  /**
   * Listing summaries made beside the read: each file's head lands in one reused buffer and only
   * its counts leave (no buffer per file, no stat for a file smaller than the head). Anything the
   * quick read cannot settle (an empty file, an odd name, an error) is stated first, as readFiles
   * does, so its error is the one readFiles gives; its head lands in the same buffer.
   */
  *summarizeFiles(
    paths: readonly string[],
    headBytes: number,
  ): Iterable<{ path: string; summary?: FileSummary; error?: Error }> {
    for (const path of paths) {
      const quick = summarizeQuick(path, headBytes);
      if (quick) yield { path, summary: quick };
      else yield summarizeCareful(path, headBytes);
    }
  }

  async realPath(path: string): Promise<string> {
    try {
      return hasRawBytes(path) ? raw(path).realPath(path) : await Deno.realPath(path);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) throw notFound(path);
      throw mapFsError(e, "resolve", path);
    }
  }

  async readLink(path: string): Promise<string | null> {
    if (hasRawBytes(path)) return null; // only used to explain a refusal: not worth the FFI path
    try {
      return await Deno.readLink(path);
    } catch {
      return null; // not a symlink, or gone
    }
  }

  /** Never asked for names that are not UTF-8: readLink reports no link for them. */
  async symlink(target: string, path: string): Promise<void> {
    try {
      if (hasRawBytes(path) || hasRawBytes(target)) {
        throw new Error("a symlink with a name that is not UTF-8 cannot be created here");
      }
      await Deno.symlink(target, path);
    } catch (e) {
      if (e instanceof Deno.errors.AlreadyExists) throw fileChanged(path);
      throw mapFsError(e, "create the symlink", path);
    }
  }

  /**
   * writeFileAtomic for a name that is not UTF-8, with the same steps: the temp file gets a name
   * Deno can write (the target's with U+FFFD for its odd bytes) in the same folder, reached
   * through the folder's fd alias; libc links or renames it onto the target by bytes.
   */
  private async writeRawName(path: string, data: Uint8Array, options: WriteOptions): Promise<void> {
    const names = raw(path);
    const dir = this.paths.parent(path);
    const base = this.paths.baseName(path).toWellFormed();
    const tempName = writeTempName(base, Deno.pid, nextTempNumber());
    const tempByName = this.paths.resolve(dir, tempName);
    try {
      await names.withAlias(dir, async (alias) => {
        const temp = `${alias}/${tempName}`;
        let tempIsOurs = true; // as in writeFileAtomic
        writesInFlight.add(temp);
        try {
          await writeTemp(temp, data, options, path);
          let swapped: SwappedOut | null = null;
          if (options.expect === null) await this.placeNewRaw(names, tempByName, path);
          else if (options.expect === undefined) names.rename(tempByName, path);
          else {
            const checked = await checkUnchangedRaw(names, path, options.expect);
            tempIsOurs = false;
            const swap = rawSwapNames(names, {
              temp: tempByName,
              tempOpen: temp,
              path,
              alias,
              dir,
              base,
            });
            swapped = swapChecked(pathSite(swap), data, options.expect.bytes, checked);
            if (swapped === null) {
              tempIsOurs = true;
              names.rename(tempByName, path);
            }
          }
          await syncDir(alias);
          swapped?.settle();
        } catch (e) {
          if (tempIsOurs) await Deno.remove(temp).catch(() => {});
          throw e;
        } finally {
          writesInFlight.delete(temp);
        }
        removeDeadTemps(alias, writesInFlight);
      });
    } catch (e) {
      throw mapFsError(e, "write", path);
    }
  }

  /** placeNew by bytes: a hard link fails when the name exists; else a stat and a rename. */
  private async placeNewRaw(names: RawNames, temp: string, path: string): Promise<void> {
    try {
      names.link(temp, path);
    } catch (e) {
      if (e instanceof Deno.errors.AlreadyExists) throw fileChanged(path);
      if (e instanceof Deno.errors.NotFound) throw e;
      if (await this.stat(path)) throw fileChanged(path);
      names.rename(temp, path);
      return;
    }
    try {
      names.unlink(temp);
    } catch { /* left over: removed as dead by a later write */ }
  }

  /** `mkdirp` for a path whose bytes are not valid UTF-8 (goes through raw names). */
  private async mkdirpRaw(path: string): Promise<void> {
    const names = raw(path);
    const info = await this.stat(path);
    if (info?.type === "dir") return;
    if (!info) {
      const parent = this.paths.parent(path);
      if (parent !== path) await this.mkdirp(parent);
      try {
        names.mkdir(path);
        return;
      } catch (e) {
        if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
      }
    }
    if ((await this.stat(path))?.type !== "dir") throw new Deno.errors.AlreadyExists(path);
  }

  homeDir(): Promise<string> {
    const [home, profile] = [Deno.env.get("HOME"), Deno.env.get("USERPROFILE")];
    // On Windows HOME may be a POSIX-style path set by Git Bash or MSYS; USERPROFILE is native.
    return Promise.resolve(
      (this.paths.style === "windows" ? profile ?? home : home ?? profile) ?? "/",
    );
  }

  /**
   * Holds `dirs` open and returns the confined view whose operations open every path beneath
   * them (confined_local.ts); undefined without FFI or off Linux. Called again with the new
   * directories when they change; the same view follows.
   * @ignore
   */
  confine(
    dirs: readonly { path: string; named?: string }[],
    refuse: (path: string, real: string) => Error,
  ): { backend: FileBackend; method: "openat2" | "openat" } | undefined {
    if (this.beneath === undefined) this.beneath = Beneath.open(this.paths, forcedMethod());
    if (this.beneath === null) return undefined;
    this.beneath.set(dirs);
    if (this.confined) this.confined.setRefusal(refuse);
    else this.confined = new ConfinedLocal(this, this.beneath, refuse, this.locks);
    return { backend: this.confined, method: this.beneath.method };
  }

  /**
   * What the search workers need to open files beneath the same directories; null: unconfined.
   * @ignore
   */
  beneathConfig(): BeneathConfig | null {
    const b = this.beneath;
    return b && this.confined ? beneathConfig(b.method, b.generation, b.held()) : null;
  }

  close(): Promise<void> {
    this.beneath?.close();
    return Promise.resolve();
  }
}

/**
 * ANCHORFS_BENEATH=openat makes a confined server walk with openat even where openat2 exists:
 * how tests and benchmarks reach the path older kernels take.
 */
function forcedMethod(): BeneathMethod | undefined {
  try {
    return Deno.env.get("ANCHORFS_BENEATH") === "openat" ? "openat" : undefined;
  } catch {
    return undefined; // no env permission: the default
  }
}

/**
 * One file for readFiles: stat, refuse anything but a regular file, read its head or the whole
 * file, stopping one byte past `skipLargerThan` whatever the stat said (FILE_TOO_LARGE).
 */
function readOneSync(
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
function summarizeQuick(path: string, headBytes: number): FileSummary | null {
  if (hasRawBytes(path)) return null;
  return quickSummary(path, summaryRoom(headBytes), headBytes, fs, summarizeHead);
}

/**
 * summarizeQuick's fallback, with readFiles' checks and errors: a stat (links followed), anything
 * but a regular file refused unopened, then the head into the shared buffer.
 */
function summarizeCareful(
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
