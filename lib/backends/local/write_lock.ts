// Cross-process write locks for local files: an exclusive flock on a lock file per target in a
// per-user lock folder (never next to the target: no litter in the user's project). The target
// itself cannot carry the lock: every write renames a new inode over it.

import { baseName, parentPath } from "../../core/path_text.ts";
import { lockTimeout } from "../fs_errors.ts";
import { AnchorError } from "../../core/errors.ts";

export interface WriteLockOptions {
  /** The folder holding the lock files (default: a per-user folder in the runtime/temp dir). */
  dir?: string;
  /** How long to wait for a lock another process holds before LOCK_TIMEOUT (default 30 s). */
  waitMs?: number;
}

const DEFAULT_WAIT_MS = 30_000;

/** The default lock folder: `$XDG_RUNTIME_DIR/anchorfs-locks` or `$TMPDIR/anchorfs-locks-UID`. */
export function defaultLockDir(): string {
  const runtime = Deno.env.get("XDG_RUNTIME_DIR");
  if (runtime) return `${runtime}/anchorfs-locks`;
  const tmp = (Deno.env.get("TMPDIR") ?? "/tmp").replace(/\/+$/, "") || "/tmp";
  return `${tmp}/anchorfs-locks-${Deno.uid() ?? "user"}`;
}

export class LocalWriteLocks {
  readonly dir: string;
  readonly waitMs: number;
  private dirChecked = false;

  constructor(options: WriteLockOptions = {}) {
    this.dir = options.dir ?? defaultLockDir();
    this.waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
  }

  async run<T>(path: string, body: () => Promise<T>): Promise<T> {
    const lockFile = `${this.dir}/${await this.keyOf(path)}.lock`;
    const held = await this.acquire(path, lockFile);
    try {
      return await body();
    } finally {
      // Unlink while still holding: a waiter that then gets the old inode sees it is no longer
      // the one at lockFile and starts over, so the folder does not fill up with lock files.
      try {
        Deno.removeSync(lockFile);
      } catch { /* already gone: nothing to clean */ }
      held.close(); // closing the descriptor releases the flock
    }
  }

  private async acquire(path: string, lockFile: string): Promise<Deno.FsFile> {
    this.ensureDir();
    const started = Date.now();
    let pause = 2;
    for (;;) {
      const file = await Deno.open(lockFile, {
        read: true,
        write: true,
        create: true,
        mode: 0o600,
      });
      let keep = false;
      try {
        if (await file.tryLock(true)) {
          const mine = await file.stat();
          const current = await Deno.stat(lockFile).catch(() => null);
          // The holder before us unlinked the file after we opened it: our lock guards nothing.
          keep = current !== null && current.ino === mine.ino && current.dev === mine.dev;
          if (keep) return file;
        }
      } finally {
        if (!keep) file.close();
      }
      const waited = Date.now() - started;
      if (waited >= this.waitMs) throw lockTimeout(path, waited, lockFile);
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, 50);
    }
  }

  /** Creates the lock folder (0700) once and refuses one that another user owns or a symlink. */
  private ensureDir(): void {
    if (this.dirChecked) return;
    try {
      Deno.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      const info = Deno.lstatSync(this.dir);
      const uid = Deno.uid();
      if (!info.isDirectory || (uid !== null && info.uid !== null && info.uid !== uid)) {
        throw new Error("not a folder of this user");
      }
    } catch (e) {
      throw new AnchorError({
        code: "IO_ERROR",
        message: `Cannot use ${JSON.stringify(this.dir)} for write locks: ${
          e instanceof Error ? e.message : String(e)
        }. Nothing was written.`,
        hint:
          "The arguments are fine: ask the user to fix or remove that folder (it must be a folder " +
          "owned by this user), or to set XDG_RUNTIME_DIR or TMPDIR to a writable folder.",
        fault: "environment",
        cause: e,
      });
    }
    this.dirChecked = true;
    this.sweep();
  }

  /**
   * Removes lock files nobody holds (left by processes killed while holding one; the kernel
   * released their flock), once per process. Safe against a process just taking one: it sees the
   * inode gone from the path after locking and starts over.
   */
  private sweep(): void {
    try {
      for (const entry of Deno.readDirSync(this.dir)) {
        if (!entry.isFile || !entry.name.endsWith(".lock")) continue;
        const path = `${this.dir}/${entry.name}`;
        let file: Deno.FsFile | undefined;
        try {
          file = Deno.openSync(path, { read: true, write: true });
          if (file.tryLockSync(true)) Deno.removeSync(path);
        } catch {
          /* gone meanwhile or not ours: leave it */
        } finally {
          file?.close();
        }
      }
    } catch { /* best effort */ }
  }

  /** One key per file however it is named: the real path of its folder plus its name. */
  private async keyOf(path: string): Promise<string> {
    let dir = parentPath(path);
    let rest = baseName(path);
    // The folder may not exist yet (create makes it under the lock): resolve what exists.
    for (;;) {
      try {
        dir = await Deno.realPath(dir);
        break;
      } catch {
        if (parentPath(dir) === dir) break;
        rest = `${baseName(dir)}/${rest}`;
        dir = parentPath(dir);
      }
    }
    const full = `${dir === "/" ? "" : dir}/${rest}`;
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(full));
    return Array.from(
      new Uint8Array(digest).subarray(0, 16),
      (b) => b.toString(16).padStart(2, "0"),
    )
      .join("");
  }
}
