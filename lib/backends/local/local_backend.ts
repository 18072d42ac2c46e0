// Local disk. The only code that reads and writes local files; everything above goes through
// the FileBackend interface so that remote hosts behave the same.

import { fileChanged, mapFsError, matchesExpected, notFound } from "../fs_errors.ts";
import type {
  DirEntry,
  EntryType,
  FileBackend,
  FileInfo,
  WriteOptions,
} from "../../ops/file_backend.ts";
import { baseName, parentPath } from "../../core/path_text.ts";

function entryType(info: { isFile: boolean; isDirectory: boolean; isSymlink: boolean }): EntryType {
  return info.isFile ? "file" : info.isDirectory ? "dir" : info.isSymlink ? "symlink" : "other";
}

let tempCounter = 0;

export class LocalBackend implements FileBackend {
  readonly id = "local";

  async stat(path: string): Promise<FileInfo | null> {
    try {
      const s = await Deno.stat(path);
      return {
        type: entryType(s),
        size: s.size,
        mode: s.mode === null ? null : s.mode & 0o7777,
        mtimeMs: s.mtime?.getTime() ?? null,
      };
    } catch (e) {
      if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) return null;
      throw mapFsError(e, "stat", path);
    }
  }

  async readFile(path: string): Promise<Uint8Array> {
    try {
      return await Deno.readFile(path);
    } catch (e) {
      throw mapFsError(e, "read", path);
    }
  }

  async readRange(path: string, offset: number, length: number): Promise<Uint8Array> {
    let file: Deno.FsFile | undefined;
    try {
      file = await Deno.open(path, { read: true });
      await file.seek(offset, Deno.SeekMode.Start);
      const buf = new Uint8Array(length);
      let filled = 0;
      while (filled < length) {
        const n = await file.read(buf.subarray(filled));
        if (n === null) break;
        filled += n;
      }
      return buf.subarray(0, filled);
    } catch (e) {
      throw mapFsError(e, "read", path);
    } finally {
      file?.close();
    }
  }

  async writeFileAtomic(path: string, data: Uint8Array, options: WriteOptions = {}): Promise<void> {
    const dir = parentPath(path);
    const temp = `${dir}/.${baseName(path)}.anchorfs-${Deno.pid}-${++tempCounter}.tmp`;
    let mode = options.mode;
    try {
      if (mode === undefined) {
        const current = await this.stat(path);
        if (current?.mode != null) mode = current.mode;
      }
      await Deno.writeFile(temp, data, { createNew: true, mode: mode ?? 0o644 });
      if (mode !== undefined) await Deno.chmod(temp, mode); // writeFile's mode is masked by umask
      if (options.expect !== undefined) {
        const now = await this.stat(path);
        if (!matchesExpected(now, options.expect)) throw fileChanged(path);
      }
      await Deno.rename(temp, path);
    } catch (e) {
      await Deno.remove(temp).catch(() => {});
      throw mapFsError(e, "write", path);
    }
  }

  async mkdirp(path: string): Promise<void> {
    try {
      await Deno.mkdir(path, { recursive: true });
    } catch (e) {
      throw mapFsError(e, "create directory", path);
    }
  }

  async removeFile(path: string): Promise<void> {
    try {
      await Deno.remove(path);
    } catch (e) {
      throw mapFsError(e, "delete", path);
    }
  }

  readDir(path: string): Promise<DirEntry[]> {
    try {
      // Sync listing: async Deno.readDir costs one op per entry (~3x slower on big trees); one
      // directory blocks the event loop for well under a millisecond.
      const out: DirEntry[] = [];
      for (const e of Deno.readDirSync(path)) out.push({ name: e.name, type: entryType(e) });
      return Promise.resolve(out);
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
  ): AsyncIterable<{ path: string; data?: Uint8Array; error?: Error }> {
    for (const path of paths) {
      let item: { path: string; data?: Uint8Array; error?: Error };
      try {
        item = { path, data: Deno.readFileSync(path) };
      } catch (e) {
        item = { path, error: mapFsError(e, "read", path) };
      }
      yield item;
    }
  }

  async realPath(path: string): Promise<string> {
    try {
      return await Deno.realPath(path);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) throw notFound(path);
      throw mapFsError(e, "resolve", path);
    }
  }

  homeDir(): Promise<string> {
    return Promise.resolve(Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE") ?? "/");
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
