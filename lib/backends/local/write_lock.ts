// Cross-process write locks for local files: an exclusive flock on a lock file per target in a
// per-user lock folder (never next to the target: no litter in the user's project). The target
// itself cannot carry the lock: every write renames a new inode over it.

import { type PathRules, POSIX_PATHS } from "../../core/path/path_rules.ts";
import { lockTimeout } from "../fs_errors.ts";
import { AnchorError } from "../../core/errors.ts";

/** Where `LocalBackend` keeps its cross-process write locks and how long it waits for one. */
export interface WriteLockOptions {
  /** The folder holding the lock files (default: the first usable of lockDirCandidates()). */
  dir?: string;
  /** How long to wait for a lock another process holds before LOCK_TIMEOUT (default 30 s). */
  waitMs?: number;
  /** The disk's path rules (default POSIX): one lock per file however its name is spelled. */
  paths?: PathRules;
  /**
   * Probes whether the folder of a lock's file folds case before it is keyed (LocalBackend's
   * learnCase): every process must key one file alike, whatever it probed before.
   */
  learnCase?: (path: string) => Promise<void>;
}

const DEFAULT_WAIT_MS = 30_000;

/**
 * Where lock folders may live, best first; every process of the user must pick the same one, so
 * the order depends only on the environment: `$XDG_RUNTIME_DIR/anchorfs-locks` (per user,
 * private by design), then the user's own state folder (`$XDG_STATE_HOME/anchorfs/locks`, else
 * `~/.local/state/anchorfs/locks`), then `$TMPDIR/anchorfs-locks-UID` as a last resort. A shared
 * temp folder comes last because another local user can create that name first (the folder is
 * then theirs, and every write would fail).
 */
export function lockDirCandidates(
  env: { get(name: string): string | undefined } = Deno.env,
  uid: number | null = Deno.uid(),
): string[] {
  const out: string[] = [];
  const trim = (dir: string) => dir.replace(/\/+$/, "") || "/";
  const runtime = env.get("XDG_RUNTIME_DIR");
  if (runtime) out.push(`${trim(runtime)}/anchorfs-locks`);
  const state = env.get("XDG_STATE_HOME");
  const home = env.get("HOME");
  if (state) out.push(`${trim(state)}/anchorfs/locks`);
  else if (home) out.push(`${trim(home)}/.local/state/anchorfs/locks`);
  out.push(`${trim(env.get("TMPDIR") ?? "/tmp")}/anchorfs-locks-${uid ?? "user"}`);
  return out;
}

/** The first lock folder candidate (where locks go when every folder is usable). */
export function defaultLockDir(): string {
  return lockDirCandidates()[0]!;
}

export class LocalWriteLocks {
  readonly waitMs: number;
  private readonly candidates: readonly string[];
  private readonly paths: PathRules;
  private readonly learnCase: (path: string) => Promise<void>;
  private chosen: string | undefined;

  constructor(options: WriteLockOptions & { candidates?: readonly string[] } = {}) {
    this.candidates = options.dir !== undefined
      ? [options.dir]
      : options.candidates ?? lockDirCandidates();
    this.waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
    this.paths = options.paths ?? POSIX_PATHS;
    this.learnCase = options.learnCase ?? (() => Promise.resolve());
  }

  /** The lock folder in use (the first usable candidate, found on the first lock). */
  get dir(): string {
    return this.ensureDir();
  }

  async run<T>(path: string, body: () => Promise<T>): Promise<T> {
    const lockFile = `${this.ensureDir()}/${await this.keyOf(path)}.lock`;
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

  /**
   * Picks the lock folder once: the first candidate that is (or can be made) a folder of this
   * user (0700), not a symlink. A candidate someone else created first is passed over, so a
   * folder planted in /tmp cannot make every write fail.
   */
  private ensureDir(): string {
    if (this.chosen !== undefined) return this.chosen;
    const refused: string[] = [];
    for (const dir of this.candidates) {
      try {
        Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
        const info = Deno.lstatSync(dir);
        const uid = Deno.uid();
        if (!info.isDirectory) throw new Error("not a folder (a symlink or a file)");
        if (uid !== null && info.uid !== null && info.uid !== uid) {
          throw new Error(`owned by user ${info.uid}, not by this user (${uid})`);
        }
        this.chosen = dir;
        this.sweep(dir);
        return dir;
      } catch (e) {
        refused.push(`${JSON.stringify(dir)} (${e instanceof Error ? e.message : String(e)})`);
      }
    }
    throw new AnchorError({
      code: "IO_ERROR",
      message: `No usable folder for write locks: ${refused.join("; ")}. Nothing was written.`,
      hint: "The arguments are fine: ask the user to set XDG_RUNTIME_DIR (or XDG_STATE_HOME) to " +
        "a folder they own and can write, or to remove the folders above that are not theirs, " +
        "then retry the same call.",
      fault: "environment",
    });
  }

  /**
   * Removes lock files nobody holds (left by processes killed while holding one; the kernel
   * released their flock), once per process. Safe against a process just taking one: it sees the
   * inode gone from the path after locking and starts over.
   */
  private sweep(dir: string): void {
    try {
      for (const entry of Deno.readDirSync(dir)) {
        if (!entry.isFile || !entry.name.endsWith(".lock")) continue;
        const path = `${dir}/${entry.name}`;
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

  /**
   * One key per file however it is named: the real path of its folder plus its name (case folded
   * where the disk folds it).
   */
  private async keyOf(path: string): Promise<string> {
    const { parent, baseName } = this.paths;
    let dir = parent(path);
    let rest = baseName(path);
    // The folder may not exist yet (create makes it under the lock): resolve what exists.
    for (;;) {
      try {
        dir = await Deno.realPath(dir);
        break;
      } catch {
        if (parent(dir) === dir) break;
        rest = `${baseName(dir)}/${rest}`;
        dir = parent(dir);
      }
    }
    const named = this.paths.join(dir, rest);
    await this.learnCase(named);
    const full = this.paths.key(named);
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(full));
    return Array.from(
      new Uint8Array(digest).subarray(0, 16),
      (b) => b.toString(16).padStart(2, "0"),
    )
      .join("");
  }
}
