// A real in-memory file system implementing FileBackend, for tests and the shared contract
// suite. Directories are implicit parents plus explicit entries; writes are atomic by nature.

import { fileChanged, matchesExpected, notFound } from "../fs_errors.ts";
import { AnchorError } from "../../core/errors.ts";
import type { DirEntry, FileBackend, FileInfo, WriteOptions } from "../../ops/file_backend.ts";
import { joinPath, parentPath } from "../../core/path/path_text.ts";

interface MemFile {
  data: Uint8Array;
  mode: number;
  mtimeMs: number;
}

/**
 * A whole file system in memory: a real {@linkcode FileBackend} (not a mock) that tests and
 * embedders can use where disk is not wanted. Paths are absolute POSIX paths; parent directories
 * exist implicitly.
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
  private files = new Map<string, MemFile>();
  private dirs = new Set<string>(["/"]);
  private clock = 1;
  private lockTails = new Map<string, Promise<void>>();

  /** Starts with `initial` files (absolute path → text or bytes), their parents created. */
  constructor(initial: Record<string, string | Uint8Array> = {}) {
    for (const [path, content] of Object.entries(initial)) {
      this.put(path, typeof content === "string" ? new TextEncoder().encode(content) : content);
    }
  }

  /** Test helper: writes without any checks, creating parents. */
  put(path: string, data: Uint8Array, mode = 0o644): void {
    const p = joinPath("/", path);
    this.addParents(p);
    this.files.set(p, { data, mode, mtimeMs: this.clock++ });
  }

  /** Creates every missing parent directory of `path`. */
  private addParents(path: string): void {
    for (let d = parentPath(path); !this.dirs.has(d); d = parentPath(d)) this.dirs.add(d);
  }

  stat(path: string): Promise<FileInfo | null> {
    const f = this.files.get(path);
    if (f) {
      return Promise.resolve({
        type: "file",
        size: f.data.length,
        mode: f.mode,
        mtimeMs: f.mtimeMs,
      });
    }
    if (this.dirs.has(path)) {
      return Promise.resolve({ type: "dir", size: 0, mode: 0o755, mtimeMs: null });
    }
    return Promise.resolve(null);
  }

  readFile(path: string): Promise<Uint8Array> {
    const f = this.files.get(path);
    if (!f) return Promise.reject(this.dirs.has(path) ? isDir(path) : notFound(path));
    return Promise.resolve(f.data.slice());
  }

  async readRange(path: string, offset: number, length: number): Promise<Uint8Array> {
    const data = await this.readFile(path);
    return data.slice(offset, offset + length);
  }

  /** One process holds all of this file system: the lock only orders callers in this process. */
  async withWriteLock<T>(path: string, body: () => Promise<T>): Promise<T> {
    const previous = this.lockTails.get(path) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.lockTails.set(path, tail);
    await previous;
    try {
      return await body();
    } finally {
      release();
      if (this.lockTails.get(path) === tail) this.lockTails.delete(path);
    }
  }

  writeFileAtomic(path: string, data: Uint8Array, options: WriteOptions = {}): Promise<void> {
    if (!this.dirs.has(parentPath(path))) {
      return Promise.reject(notFound(parentPath(path), "directory"));
    }
    if (this.dirs.has(path)) return Promise.reject(isDir(path));
    const now = this.files.get(path);
    if (options.expect !== undefined && !matchesExpected(now?.data ?? null, options.expect)) {
      return Promise.reject(fileChanged(path));
    }
    this.files.set(path, {
      data: data.slice(),
      mode: options.mode ?? now?.mode ?? 0o644,
      mtimeMs: this.clock++,
    });
    return Promise.resolve();
  }

  mkdirp(path: string): Promise<void> {
    if (this.files.has(path)) {
      return Promise.reject(
        new AnchorError({ code: "NOT_A_DIRECTORY", message: `${path} is a file.` }),
      );
    }
    this.dirs.add(path);
    this.addParents(path);
    return Promise.resolve();
  }

  removeFile(path: string): Promise<void> {
    if (!this.files.delete(path)) return Promise.reject(notFound(path, "file"));
    return Promise.resolve();
  }

  /** The entries of a directory; throws NOT_FOUND when it does not exist. */
  readDir(path: string): Promise<DirEntry[]> {
    if (!this.dirs.has(path)) return Promise.reject(notFound(path, "directory"));
    const prefix = path === "/" ? "/" : `${path}/`;
    const out: DirEntry[] = [];
    for (const d of this.dirs) {
      if (d !== path && d.startsWith(prefix) && !d.slice(prefix.length).includes("/")) {
        out.push({ name: d.slice(prefix.length), type: "dir" });
      }
    }
    for (const f of this.files.keys()) {
      if (f.startsWith(prefix) && !f.slice(prefix.length).includes("/")) {
        out.push({ name: f.slice(prefix.length), type: "file" });
      }
    }
    return Promise.resolve(out.sort((a, b) => a.name.localeCompare(b.name)));
  }

  realPath(path: string): Promise<string> {
    return this.files.has(path) || this.dirs.has(path)
      ? Promise.resolve(path)
      : Promise.reject(notFound(path));
  }

  homeDir(): Promise<string> {
    return Promise.resolve("/home/user");
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
