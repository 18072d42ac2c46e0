// Local disk. The only code that reads and writes local files; everything above goes through
// the FileBackend interface so that remote hosts behave the same.
import * as fsp from "node:fs/promises";
import { fileChanged, mapFsError, noTempBeside, notFound } from "../fs_errors.ts";
import type {
  DirEntry,
  FileBackend,
  FileInfo,
  ReadDirOptions,
  ReadFileOptions,
  ReadFilesOptions,
  WriteOptions,
} from "../../ops/ports/file_backend.ts";
import { type PathRules, pathRulesFor } from "../../core/path/path_rules.ts";
import { CaseVolumes } from "../../core/path/case_volumes.ts";
import { CaseProber } from "../case_probe.ts";
import { localCaseView } from "./case_view.ts";
import { currentPlatform } from "../platform/current_platform.ts";
import { writeTempName } from "../../core/path/write_temp_name.ts";
import { hasRawBytes } from "../../core/path/path_quote.ts";
import { nextTempNumber, removeDeadTemps, writesInFlight } from "./dead_temps.ts";
import { LocalWriteLocks, type WriteLockOptions } from "./write_lock.ts";
import { type RawNames, rawNames } from "./raw_names.ts";
import { fastListDirInTurns } from "./fast_dir.ts";
import { type FileSummary } from "../../core/text/head_summary.ts";
import { refuseInterruptedWrite, syncDir, writeInPlace } from "./write_in_place.ts";
import { pathSite, swapChecked, SwappedOut } from "./checked_swap.ts";
import { Beneath, type BeneathMethod } from "./beneath.ts";
import { type BeneathConfig, beneathConfig } from "./beneath_fs.ts";
import { ConfinedLocal } from "./confined_local.ts";
import {
  hosted,
  raw,
  READ_FLAGS,
  readOneSync,
  readToEnd,
  refuseSpecial,
  summarizeCareful,
  summarizeQuick,
  toInfo,
} from "./local_reads.ts";
import {
  checkUnchanged,
  checkUnchangedRaw,
  hasOtherLinks,
  placeNew,
  rawSwapNames,
  swapNames,
  writeTemp,
} from "./local_writes.ts";

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
  readDir(path: string, options: ReadDirOptions = {}): Promise<DirEntry[]> {
    try {
      // Sync listing: async Deno.readDir costs one op per entry (~3x slower on big trees); one
      // directory blocks the event loop for well under a millisecond, and a huge one gives the
      // event loop a turn every few tens of thousands of entries. Not an async function: a walk
      // lists every directory here, and only a huge one needs to wait (fast_dir.ts).
      if (hasRawBytes(path)) return Promise.resolve(raw(path).listDir(path));
      const fast = fastListDirInTurns(path, options);
      if (fast instanceof Promise) {
        return fast.then((listed) => listed ?? this.readDirSlowly(path)).catch((e) => {
          throw mapFsError(e, "list", path);
        });
      }
      return Promise.resolve(fast ?? this.readDirSlowly(path));
    } catch (e) {
      return Promise.reject(mapFsError(e, "list", path));
    }
  }

  /** readDir through Deno's own listing, where the fast one cannot answer exactly (unmapped errors). */
  private readDirSlowly(path: string): DirEntry[] {
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
    return names ? names.listDir(path) : out;
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
