// Cross-process write locks for local files, named by the file alone and never by the
// environment: an exclusive flock of the file's folder, the same directory inode for every
// process whatever its HOME, XDG_* or TMPDIR (so every spelling of a name in it is one lock too),
// and nothing created in the user's project. The target itself cannot carry the lock: every
// write swaps a new inode in, and an outside rename-save would hand waiters another one. Windows,
// which cannot open a folder as a file, locks a file beside the target instead (lockStyleFor).
// The folder is found by its real path, or (a confined write) given as a descriptor opened
// beneath the allowed directory (a LockSite, confined_lock.ts): the folder the write then uses.

import { type PathRules, POSIX_PATHS } from "../../core/path/path_rules.ts";
import { writeLockName } from "../../core/path/write_temp_name.ts";
import { lockTimeout } from "../fs_errors.ts";
import { FileLocks } from "../../core/file_locks.ts";

/** How `LocalBackend` takes its cross-process write locks and how long it waits for one. */
export interface WriteLockOptions {
  /** How long to wait for a lock another process holds before LOCK_TIMEOUT (default 30 s). */
  waitMs?: number;
  /** The disk's path rules (default POSIX): one lock per file however its name is spelled. */
  paths?: PathRules;
  /**
   * Probes whether the folder of a lock's file folds case before it is keyed (LocalBackend's
   * learnCase): every body for one file runs alone in this process, whatever the spelling.
   */
  learnCase?: (path: string) => Promise<void>;
  /**
   * How the lock is taken (default: the running OS's, see lockStyleFor): `folder`, an exclusive
   * flock of the target's folder; `beside`, a lock file `.NAME.anchorfs-lock` beside the target.
   */
  style?: "folder" | "beside";
}

// Exported for tests.
/**
 * `folder`: an exclusive flock of the target's folder (POSIX). `beside`: an exclusive lock of a
 * file `.NAME.anchorfs-lock` beside the target, removed on release (Windows, where a folder
 * cannot be opened as a file; its lock is LockFileEx, released by the OS when a holder dies).
 */
export type LockStyle = NonNullable<WriteLockOptions["style"]>;

// Exported for tests.
/** The lock style of an OS: only Windows cannot flock a folder. */
export function lockStyleFor(os: typeof Deno.build.os): LockStyle {
  return os === "windows" ? "beside" : "folder";
}

const DEFAULT_WAIT_MS = 30_000;

/**
 * One folder's flock held by this process, and the bodies using it: bodies for other files of a
 * folder this process holds share the hold (no second flock, which would wait for the first),
 * so one process's edits of several files of a folder run side by side.
 */
interface FolderHold {
  key: string;
  file: Deno.FsFile | null;
  ready: Promise<void>;
  holders: number;
}

/** Folder locks held by this process (every LocalBackend shares them: one flock per folder). */
const folderHolds = new Map<string, FolderHold>();
/** One body at a time per file in this process, across every LocalBackend. */
const fileQueue = new FileLocks();

/** The folder changed under its name while being locked: look it up again. */
class FolderMoved extends Error {}
/**
 * The folder cannot be opened or flocked here (no read access; a network file system that
 * refuses flock on folders): this write locks a file beside its target instead.
 */
class FolderUnlockable extends Error {}

/**
 * Where a write lock is taken: the nearest existing folder on the way to the target (create
 * makes the rest under the lock) and how to reach it. By its real path (an unconfined write,
 * LocalWriteLocks.run), or through a descriptor opened beneath an allowed directory
 * (confined_lock.ts), so every process locks the folder the write will use.
 */
export interface LockSite {
  /** The folder as Deno opens it: its real path, or the /proc/self/fd alias of a held descriptor. */
  dir: string;
  /** The folder as named, for messages. */
  shown: string;
  /** This process's queue key of the file: one body at a time per file. */
  key: string;
  /**
   * Whether the folder is still the one its name leads to, asked once the lock is held (a site
   * reached through a descriptor looks its path up again); absent: not asked.
   */
  current?: () => boolean;
  /** The lock file beside the target, for a folder that cannot be flocked. */
  beside: BesideLock;
  /** Lets go of what the site holds (a descriptor), once the body is done. */
  release?: () => void;
}

/** The `beside` lock file of a LockSite. */
export interface BesideLock {
  /** Its path as named, for messages. */
  shown: string;
  /** Opens it, creating it when missing; null: not now (Windows, while it is being removed). */
  open(): Promise<Deno.FsFile | null>;
  /** Whether the open `file` is still the one at the lock file's name. */
  isAtName(file: Deno.FsFile): Promise<boolean>;
  /** Removes it (already gone: nothing to do). */
  remove(): void;
}

/** The lock was taken on a folder that is no longer at its name: start over. */
const MOVED = Symbol("moved");

export class LocalWriteLocks {
  readonly waitMs: number;
  readonly style: LockStyle;
  private readonly paths: PathRules;
  private readonly learnCase: (path: string) => Promise<void>;

  constructor(options: WriteLockOptions = {}) {
    this.waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
    this.paths = options.paths ?? POSIX_PATHS;
    this.learnCase = options.learnCase ?? (() => Promise.resolve());
    this.style = options.style ?? lockStyleFor(Deno.build.os);
  }

  run<T>(path: string, body: () => Promise<T>): Promise<T> {
    return this.runAt(path, () => this.siteOf(path), body);
  }

  /**
   * Runs `body` holding the write lock of the site `locate` finds for `path`; `body` gets that
   * site. A site whose folder is no longer at its name once locked is let go and looked up again
   * (within the same wait: then LOCK_TIMEOUT).
   */
  async runAt<S extends LockSite, T>(
    path: string,
    locate: () => Promise<S>,
    body: (site: S) => Promise<T>,
  ): Promise<T> {
    let deadline: number | undefined;
    for (;;) {
      const site = await locate();
      try {
        const out = await fileQueue.run(site.key, () => {
          deadline ??= Date.now() + this.waitMs;
          return this.holding(path, site, deadline, body);
        });
        if (out !== MOVED) return out.value;
      } finally {
        site.release?.();
      }
    }
  }

  /** `body` under the site's lock, once it is sure to be the folder at the site's name. */
  private async holding<S extends LockSite, T>(
    path: string,
    site: S,
    deadline: number,
    body: (site: S) => Promise<T>,
  ): Promise<{ value: T } | typeof MOVED> {
    const release = await this.acquire(path, site, deadline);
    try {
      if (site.current && !site.current()) {
        if (Date.now() >= deadline) throw timedOut(path, site.shown, this.waitMs);
        return MOVED;
      }
      return { value: await body(site) };
    } finally {
      release();
    }
  }

  /** Takes the site's lock (its folder's flock, else the lock file beside); how to release it. */
  private async acquire(path: string, site: LockSite, deadline: number): Promise<() => void> {
    if (this.style === "folder") {
      const hold = await holdFolder(path, site, deadline, this.waitMs).catch((e) => {
        if (e instanceof FolderUnlockable) return null; // e.g. a folder without read access
        throw e;
      });
      if (hold) return () => releaseFolder(hold);
    }
    const held = await acquireBeside(path, site.beside, deadline, this.waitMs);
    return () => releaseBeside(site.beside, held);
  }

  /** The site of an unconfined write: the folder by its real path. */
  private async siteOf(path: string): Promise<LockSite> {
    const { dir, name } = await this.existingFolder(path);
    const named = this.paths.join(dir, name);
    await this.learnCase(named);
    return {
      dir,
      shown: dir,
      key: this.paths.key(named),
      beside: besideByPath(this.paths.join(dir, writeLockName(name))),
    };
  }

  /**
   * The real path of the nearest folder on the way to `path` that exists (create makes the rest
   * under the lock) and the first name below it.
   */
  private async existingFolder(path: string): Promise<{ dir: string; name: string }> {
    const { parent, baseName } = this.paths;
    let dir = parent(path);
    let name = baseName(path);
    for (;;) {
      try {
        return { dir: await Deno.realPath(dir), name };
      } catch {
        if (parent(dir) === dir) return { dir, name };
        name = baseName(dir);
        dir = parent(dir);
      }
    }
  }
}

function identityKey(info: Deno.FileInfo): string {
  return `${info.dev}:${info.ino}`;
}

/**
 * Joins this process's hold of the site's folder, or takes the folder's flock (bounded by
 * `deadline`, then LOCK_TIMEOUT) when this process holds none.
 */
async function holdFolder(
  path: string,
  site: LockSite,
  deadline: number,
  waitMs: number,
): Promise<FolderHold> {
  for (;;) {
    const key = identityKey(await Deno.stat(site.dir));
    const hold = folderHolds.get(key) ?? newHold(key, path, site, deadline, waitMs);
    hold.holders++;
    try {
      await hold.ready;
      return hold;
    } catch (e) {
      releaseFolder(hold);
      if (e instanceof FolderMoved) continue;
      throw e;
    }
  }
}

/** A new hold of the folder `key` names, registered before its flock is taken (others join). */
function newHold(
  key: string,
  path: string,
  site: LockSite,
  deadline: number,
  waitMs: number,
): FolderHold {
  const hold: FolderHold = { key, file: null, ready: Promise.resolve(), holders: 0 };
  folderHolds.set(key, hold);
  hold.ready = flockFolder(path, site, key, deadline, waitMs).then((file) => {
    hold.file = file;
  });
  return hold;
}

function releaseFolder(hold: FolderHold): void {
  if (--hold.holders > 0) return;
  if (folderHolds.get(hold.key) === hold) folderHolds.delete(hold.key);
  hold.file?.close(); // closing the descriptor releases the flock
}

/**
 * Opens the folder and takes its flock, waiting (polling) while another process holds it. The
 * folder must still be the one `key` names (not replaced under its name meanwhile).
 */
async function flockFolder(
  path: string,
  site: LockSite,
  key: string,
  deadline: number,
  waitMs: number,
): Promise<Deno.FsFile> {
  const file = await Deno.open(site.dir, { read: true }).catch((e) => {
    throw e instanceof Deno.errors.NotFound ? e : new FolderUnlockable(String(e));
  });
  let keep = false;
  try {
    if (identityKey(await file.stat()) !== key) throw new FolderMoved();
    let pause = 1;
    const locked = () =>
      file.tryLock(true).catch((e) => {
        throw new FolderUnlockable(String(e));
      });
    while (!(await locked())) {
      if (Date.now() >= deadline) throw timedOut(path, site.shown, waitMs);
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, 20);
    }
    keep = true;
    return file;
  } finally {
    if (!keep) file.close();
  }
}

function timedOut(path: string, dir: string, waitMs: number) {
  return lockTimeout(path, waitMs, `an flock of its folder ${JSON.stringify(dir)}`);
}

/** The `beside` lock file of an unconfined write, by its path. */
function besideByPath(lockFile: string): BesideLock {
  return {
    shown: lockFile,
    open: () =>
      Deno.open(lockFile, { read: true, write: true, create: true, mode: 0o600 }).catch((e) => {
        // Windows: a lock file being removed cannot be opened for a moment.
        if (e instanceof Deno.errors.PermissionDenied && Deno.build.os === "windows") return null;
        throw e;
      }),
    isAtName: async (file) => {
      const mine = await file.stat();
      const current = await Deno.stat(lockFile).catch(() => null);
      return current !== null && current.ino === mine.ino && current.dev === mine.dev;
    },
    remove: () => {
      try {
        Deno.removeSync(lockFile);
      } catch { /* already gone: nothing to clean */ }
    },
  };
}

/**
 * The `beside` lock: opens (creating) the lock file and takes its exclusive lock. The holder
 * before may have removed the file after we opened it; a lock on a file no longer at that name
 * guards nothing, so we start over.
 */
async function acquireBeside(
  path: string,
  lock: BesideLock,
  deadline: number,
  waitMs: number,
): Promise<Deno.FsFile> {
  let pause = 1;
  for (;;) {
    const file = await lock.open();
    let keep = false;
    try {
      keep = file !== null && await file.tryLock(true) && await lock.isAtName(file);
      if (keep) return file!;
    } finally {
      if (!keep) file?.close();
    }
    if (Date.now() >= deadline) {
      throw lockTimeout(path, waitMs, `the lock file ${JSON.stringify(lock.shown)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, 20);
  }
}

/**
 * Removes the lock file while still holding it (a waiter that then locks the old file sees it
 * gone from the name and starts over), then releases it. A holder killed before this leaves the
 * file; its lock died with it, so the next writer of that file takes and removes it.
 */
function releaseBeside(lock: BesideLock, held: Deno.FsFile): void {
  lock.remove();
  held.close();
}
