// File names that are not valid UTF-8, on Linux. Deno's file APIs (and its node:fs) take and
// return strings and turn such bytes into U+FFFD, so the file can be neither named nor opened.
// Here libc, through FFI, lists directories as bytes and opens byte paths; above this file such a
// name is a string whose odd bytes are U+DC80..U+DCFF (core/path/path_quote.ts), and Deno reaches an
// opened file through its /proc/self/fd/N alias. Used only for those names; null elsewhere.

import { decodeNameBytes, encodeNameBytes } from "../../core/path/path_quote.ts";
import type { DirEntry, EntryType } from "../../ops/ports/file_backend.ts";

const SYMBOLS = {
  // open is variadic in C; with integer arguments only the x86-64 and AArch64 Linux calling
  // conventions pass the mode exactly like a fixed third argument.
  open: { parameters: ["buffer", "i32", "u32"], result: "i32" },
  close: { parameters: ["i32"], result: "i32" },
  opendir: { parameters: ["buffer"], result: "pointer" },
  readdir: { parameters: ["pointer"], result: "pointer" },
  closedir: { parameters: ["pointer"], result: "i32" },
  rename: { parameters: ["buffer", "buffer"], result: "i32" },
  link: { parameters: ["buffer", "buffer"], result: "i32" },
  unlink: { parameters: ["buffer"], result: "i32" },
  mkdir: { parameters: ["buffer", "u32"], result: "i32" },
  realpath: { parameters: ["buffer", "pointer"], result: "pointer" },
  free: { parameters: ["pointer"], result: "void" },
  __errno_location: { parameters: [], result: "pointer" },
} as const;

type Libc = Deno.DynamicLibrary<typeof SYMBOLS>["symbols"];

// x86-64 and AArch64 Linux share these values.
const O_PATH = 0o10000000;
const O_CLOEXEC = 0o2000000;
// struct dirent (glibc and musl, 64-bit): d_ino u64, d_off i64, d_reclen u16, d_type u8, d_name.
const DIRENT_TYPE = 18;
const DIRENT_NAME = 19;
const DT_DIR = 4;
const DT_REG = 8;
const DT_LNK = 10;
const DT_UNKNOWN = 0;

const ERRNO: Record<number, () => Error> = {
  1: () => new Deno.errors.PermissionDenied("operation not permitted"),
  2: () => new Deno.errors.NotFound("no such file or directory"),
  13: () => new Deno.errors.PermissionDenied("permission denied"),
  17: () => new Deno.errors.AlreadyExists("file exists"),
  20: () => new Deno.errors.NotADirectory("not a directory"),
  21: () => new Deno.errors.IsADirectory("is a directory"),
  28: () => Object.assign(new Error("no space left on device"), { code: "ENOSPC" }),
};

let loaded: RawNames | null | undefined;

/** The raw-name helper, or null where it cannot work (not Linux x86-64/AArch64, no FFI permission). */
export function rawNames(): RawNames | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  if (Deno.build.os !== "linux" || !["x86_64", "aarch64"].includes(Deno.build.arch)) return null;
  try {
    if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") return null;
    loaded = new RawNames(Deno.dlopen("libc.so.6", SYMBOLS).symbols);
  } catch {
    try {
      loaded = new RawNames(Deno.dlopen("libc.so", SYMBOLS).symbols); // musl
    } catch {
      loaded = null;
    }
  }
  return loaded;
}

export class RawNames {
  constructor(private readonly libc: Libc) {}

  /** Runs `use` with a path Deno can open for `path` (symlinks followed); the alias dies after. */
  async withAlias<T>(path: string, use: (alias: string) => Promise<T>): Promise<T> {
    const fd = this.openPath(path);
    try {
      return await use(`/proc/self/fd/${fd}`);
    } finally {
      this.libc.close(fd);
    }
  }

  withAliasSync<T>(path: string, use: (alias: string) => T): T {
    const fd = this.openPath(path);
    try {
      return use(`/proc/self/fd/${fd}`);
    } finally {
      this.libc.close(fd);
    }
  }

  /** The entries of a directory with their exact names ("." and ".." left out). */
  listDir(path: string): DirEntry[] {
    const dir = this.libc.opendir(cString(path));
    if (dir === null) throw this.error();
    const out: DirEntry[] = [];
    try {
      while (true) {
        const entry = this.libc.readdir(dir);
        if (entry === null) break;
        const view = new Deno.UnsafePointerView(entry);
        const name = view.getArrayBuffer(256, DIRENT_NAME);
        const bytes = new Uint8Array(name, 0, new Uint8Array(name).indexOf(0));
        if (bytes.length === 1 && bytes[0] === 0x2e) continue;
        if (bytes.length === 2 && bytes[0] === 0x2e && bytes[1] === 0x2e) continue;
        const text = decodeNameBytes(bytes);
        out.push({ name: text, type: this.entryType(view.getUint8(DIRENT_TYPE), path, text) });
      }
    } finally {
      this.libc.closedir(dir);
    }
    return out;
  }

  rename(from: string, to: string): void {
    if (this.libc.rename(cString(from), cString(to)) !== 0) throw this.error();
  }

  /** A hard link; fails with AlreadyExists when `to` exists (atomic create-if-absent). */
  link(from: string, to: string): void {
    if (this.libc.link(cString(from), cString(to)) !== 0) throw this.error();
  }

  unlink(path: string): void {
    if (this.libc.unlink(cString(path)) !== 0) throw this.error();
  }

  mkdir(path: string, mode = 0o777): void {
    if (this.libc.mkdir(cString(path), mode) !== 0) throw this.error();
  }

  realPath(path: string): string {
    const resolved = this.libc.realpath(cString(path), null);
    if (resolved === null) throw this.error();
    try {
      const view = new Deno.UnsafePointerView(resolved);
      let length = 0;
      while (view.getUint8(length) !== 0) length++;
      return decodeNameBytes(new Uint8Array(view.getArrayBuffer(length)));
    } finally {
      this.libc.free(resolved);
    }
  }

  private openPath(path: string): number {
    const fd = this.libc.open(cString(path), O_PATH | O_CLOEXEC, 0);
    if (fd < 0) throw this.error();
    return fd;
  }

  private entryType(type: number, dir: string, name: string): EntryType {
    if (type === DT_REG) return "file";
    if (type === DT_DIR) return "dir";
    if (type === DT_LNK) return "symlink";
    if (type !== DT_UNKNOWN) return "other";
    // File systems without d_type: stat (follows a symlink; rare enough to accept).
    try {
      const info = this.withAliasSync(`${dir === "/" ? "" : dir}/${name}`, Deno.statSync);
      return info.isFile ? "file" : info.isDirectory ? "dir" : "other";
    } catch {
      return "other";
    }
  }

  private error(): Error {
    const errno = new Deno.UnsafePointerView(this.libc.__errno_location()!).getInt32();
    return ERRNO[errno]?.() ?? new Error(`system error ${errno}`);
  }
}

function cString(path: string): Uint8Array<ArrayBuffer> {
  const bytes = encodeNameBytes(path);
  const out = new Uint8Array(bytes.length + 1);
  out.set(bytes);
  return out;
}
