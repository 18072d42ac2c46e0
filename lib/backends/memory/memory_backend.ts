// A real in-memory file system implementing FileBackend, for tests and the shared contract
// suite. Directories are implicit parents plus explicit entries; writes are atomic by nature.
// Paths follow the rules it is given (POSIX by default; Windows rules let tests run Windows path
// semantics anywhere): entries are found by the rules' key and keep the spelling they were made with.

import { fileChanged, matchesExpected, notFound } from "../fs_errors.ts";
import { AnchorError } from "../../core/errors.ts";
import {
  type DirEntry,
  type FileBackend,
  type FileInfo,
  HUGE_DIR_ENTRIES,
  type ReadDirOptions,
  type ReadFileOptions,
  type WriteOptions,
} from "../../ops/ports/file_backend.ts";
import { type PathRules, pathRulesFor, POSIX_PATHS } from "../../core/path/path_rules.ts";
import { CaseVolumes } from "../../core/path/case_volumes.ts";
import { describePlatform } from "../../core/platform/platform.ts";
import { CaseProber, type ProbeView } from "../case_probe.ts";

interface MemFile {
  /** The path as it was created (its spelling, where the rules fold case). */
  path: string;
  data: Uint8Array;
  mode: number;
  mtimeMs: number;
}

/** Options of the MemoryBackend constructor. */
export interface MemoryBackendOptions {
  /** Path rules (default POSIX_PATHS); e.g. WINDOWS_PATHS to test Windows paths on any OS. */
  paths?: PathRules;
  /**
   * Directories whose lookups fold case (true) or not (false), below which the answer holds
   * (`{ "/usb": true }`: a vfat stick under a case-sensitive `/`); the rest follows `paths`. With
   * it the backend behaves like a disk of mixed volumes: its `paths` start from the default and
   * learn the truth through `learnCase`, which probes this store like a disk.
   */
  volumes?: Record<string, boolean>;
  /** The home directory `~` names (default "/home/user", or "C:\\Users\\user" on Windows rules). */
  home?: string;
}

/**
 * A whole file system in memory: a real {@linkcode FileBackend} (not a mock) that tests and
 * embedders can use where disk is not wanted. Paths are absolute, POSIX unless other rules are
 * given; parent directories exist implicitly.
 *
 * @example
 * ```ts
 * import { MemoryBackend } from "@anchorfs/anchorfs";
 *
 * const files = new MemoryBackend({ "/src/a.txt": "one\n" });
 * await files.writeFileAtomic("/src/b.txt", new TextEncoder().encode("two\n"));
 * (await files.readDir("/src")).map((e) => e.name); // ["a.txt", "b.txt"]
 * ```
 */
export class MemoryBackend implements FileBackend {
  readonly id = "memory";
  /** The path rules as anchorfs knows them (learned through `learnCase` where volumes differ). */
  readonly paths: PathRules;
  /** How this store really compares names (with `volumes`, per directory). */
  private readonly disk: PathRules;
  private readonly prober: CaseProber | undefined;
  /** Files and directories by the disk rules' key (case folded where the rules fold it). */
  private files = new Map<string, MemFile>();
  /** Directory key → the directory's path as created. */
  private dirs = new Map<string, string>();
  private clock = 1;
  private lockTails = new Map<string, Promise<void>>();
  private readonly home: string;

  /** Starts with `initial` files (absolute path → text or bytes), their parents created. */
  constructor(
    initial: Record<string, string | Uint8Array> = {},
    options: MemoryBackendOptions = {},
  ) {
    const base = options.paths ?? POSIX_PATHS;
    if (options.volumes) {
      const platform = describePlatform(
        base.style === "windows" ? "windows" : base.foldsCase ? "darwin" : "linux",
      );
      const truth = new CaseVolumes(platform);
      for (const [dir, folds] of Object.entries(options.volumes)) truth.record(dir, folds);
      const learned = new CaseVolumes(platform);
      this.disk = pathRulesFor(platform, truth);
      this.paths = pathRulesFor(platform, learned);
      this.prober = new CaseProber(learned, this.paths, this.caseView(), (path) => {
        return Promise.resolve(this.isDir(path));
      });
    } else {
      this.disk = this.paths = base;
    }
    this.home = options.home ??
      (this.disk.style === "windows" ? "C:\\Users\\user" : "/home/user");
    if (this.disk.style === "posix") this.dirs.set("/", "/");
    for (const [path, content] of Object.entries(initial)) {
      this.put(path, typeof content === "string" ? new TextEncoder().encode(content) : content);
    }
  }

  /** Probes the store, as the local backend probes a disk (only with `volumes`). */
  learnCase(path: string): Promise<void> {
    return this.prober?.learn(path) ?? Promise.resolve();
  }

  /** The store's lookups as the case probe needs them (full listings, no inode numbers). */
  private caseView(): ProbeView {
    return {
      names: async (dir) => ({
        names: (await this.readDir(dir)).map((e) => e.name),
        complete: true,
      }),
      lookup: (path) =>
        Promise.resolve(
          this.file(path) ? { isDir: false } : this.isDir(path) ? { isDir: true } : "missing",
        ),
    };
  }

  /** Test helper: writes without any checks, creating parents. */
  put(path: string, data: Uint8Array, mode = 0o644): void {
    const p = this.disk.normalize(path);
    this.addParents(p);
    this.files.set(this.disk.key(p), { path: p, data, mode, mtimeMs: this.clock++ });
  }

  /** Creates `path` (unless it exists) and every missing parent directory of it. */
  private addDir(path: string): void {
    for (let d = path; !this.dirs.has(this.disk.key(d)); d = this.disk.parent(d)) {
      this.dirs.set(this.disk.key(d), d);
    }
  }

  /** Creates every missing parent directory of `path`. */
  private addParents(path: string): void {
    this.addDir(this.disk.parent(path));
  }

  /** The file at `path` under any spelling the rules accept, if there is one. */
  private file(path: string): MemFile | undefined {
    return this.files.get(this.disk.key(path));
  }

  /** Whether a directory is at `path`, under any spelling the rules accept. */
  private isDir(path: string): boolean {
    return this.dirs.has(this.disk.key(path));
  }

  stat(path: string): Promise<FileInfo | null> {
    const f = this.file(path);
    if (f) {
      return Promise.resolve({
        type: "file",
        size: f.data.length,
        mode: f.mode,
        mtimeMs: f.mtimeMs,
      });
    }
    if (this.isDir(path)) {
      return Promise.resolve({ type: "dir", size: 0, mode: 0o755, mtimeMs: null });
    }
    return Promise.resolve(null);
  }

  readFile(path: string, options: ReadFileOptions = {}): Promise<Uint8Array> {
    const f = this.file(path);
    if (!f) return Promise.reject(this.isDir(path) ? isDir(path) : notFound(path));
    const max = options.maxBytes;
    return Promise.resolve(max === undefined ? f.data.slice() : f.data.slice(0, max + 1));
  }

  async readRange(path: string, offset: number, length: number): Promise<Uint8Array> {
    const data = await this.readFile(path);
    return data.slice(offset, offset + length);
  }

  /** One process holds all of this file system: the lock only orders callers in this process. */
  async withWriteLock<T>(path: string, body: () => Promise<T>): Promise<T> {
    // One file under any spelling the store folds to it is one lock.
    const key = this.disk.key(path);
    const previous = this.lockTails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.lockTails.set(key, tail);
    await previous;
    try {
      return await body();
    } finally {
      release();
      if (this.lockTails.get(key) === tail) this.lockTails.delete(key);
    }
  }

  writeFileAtomic(path: string, data: Uint8Array, options: WriteOptions = {}): Promise<void> {
    const parent = this.disk.parent(path);
    if (!this.isDir(parent)) return Promise.reject(notFound(parent, "directory"));
    if (this.isDir(path)) return Promise.reject(isDir(path));
    const now = this.file(path);
    if (options.expect !== undefined && !matchesExpected(now?.data ?? null, options.expect)) {
      return Promise.reject(fileChanged(path));
    }
    this.files.set(this.disk.key(path), {
      path: now?.path ?? path,
      data: data.slice(),
      mode: options.mode ?? now?.mode ?? 0o644,
      mtimeMs: this.clock++,
    });
    return Promise.resolve();
  }

  mkdirp(path: string): Promise<void> {
    if (this.file(path)) {
      return Promise.reject(
        new AnchorError({ code: "NOT_A_DIRECTORY", message: `${path} is a file.` }),
      );
    }
    this.addDir(path);
    return Promise.resolve();
  }

  removeFile(path: string): Promise<void> {
    if (!this.files.delete(this.disk.key(path))) return Promise.reject(notFound(path, "file"));
    return Promise.resolve();
  }

  /**
   * The entries of a directory; throws NOT_FOUND when it does not exist. A huge one (past
   * HUGE_DIR_ENTRIES) awaits `options.whenHuge` before it answers, as a disk's does mid-read.
   */
  async readDir(path: string, options: ReadDirOptions = {}): Promise<DirEntry[]> {
    const key = this.disk.key(path);
    if (!this.dirs.has(key)) throw notFound(path, "directory");
    const out: DirEntry[] = [];
    const { parent, baseName } = this.disk;
    for (const [k, d] of this.dirs) {
      if (k !== key && this.disk.key(parent(d)) === key) {
        out.push({ name: baseName(d), type: "dir" });
      }
    }
    for (const f of this.files.values()) {
      if (this.disk.key(parent(f.path)) === key) {
        out.push({ name: baseName(f.path), type: "file" });
      }
    }
    if (out.length > HUGE_DIR_ENTRIES) await options.whenHuge?.();
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  realPath(path: string): Promise<string> {
    // As a disk that folds case does: the spelling the entry was created with.
    const real = this.file(path)?.path ?? this.dirs.get(this.disk.key(path));
    return real !== undefined ? Promise.resolve(real) : Promise.reject(notFound(path));
  }

  homeDir(): Promise<string> {
    return Promise.resolve(this.home);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

function isDir(path: string): AnchorError {
  return new AnchorError({
    code: "IS_A_DIRECTORY",
    message: `${JSON.stringify(path)} is a directory.`,
    hint: "Name a file inside it.",
  });
}
