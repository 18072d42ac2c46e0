// The write lock of a confined write (--allow, --roots on Linux): the folder's flock taken through
// a descriptor opened beneath the allowed directory, never by the folder's path text, so every
// process locks the inode the write then uses, even while another program swaps folders and
// symlinks under those names. A folder no longer at its name once locked is looked up again
// (write_lock.ts, LockSite.current), and the write checks that it writes in the folder locked
// (lockedFolderOf). The lock file beside the target (a folder that cannot be flocked) is made
// relative to the same descriptor, never through a symlink.

import { AsyncLocalStorage } from "node:async_hooks";
import type { BesideLock, LockSite } from "./write_lock.ts";
import type { PathRules } from "../../core/path/path_rules.ts";
import { writeLockName } from "../../core/path/write_temp_name.ts";
import { cName, errnoOf, type Libc, LINUX, sysError } from "./beneath.ts";
import { statAt, statFd } from "./confined_fd.ts";

/** A folder as statx tells it apart from any other. */
interface FolderIdentity {
  dev: string;
  ino: bigint;
}

/** A LockSite reached beneath an allowed directory, with the identity of the folder it holds. */
interface ConfinedLockSite extends LockSite {
  folder: FolderIdentity;
}

/** What a confined lock needs from the confined backend. */
interface LockReach {
  c: Libc;
  paths: PathRules;
  /**
   * Opens the folder `dir` beneath its allowed directory (O_PATH | O_DIRECTORY); throws
   * OutsideRoots when it leads out, else the system error (`code` ENOENT, ENOTDIR, ...).
   */
  openDir: (dir: string) => number;
  learnCase: (path: string) => Promise<void>;
}

/**
 * The lock site of a write of `path`: the nearest folder on the way to it that exists, opened
 * beneath its allowed directory and held open until the site is released.
 */
export async function confinedLockSite(reach: LockReach, path: string): Promise<ConfinedLockSite> {
  const { c, paths } = reach;
  const { fd, dir, name } = nearestFolder(reach, path);
  try {
    const named = paths.join(dir, name);
    await reach.learnCase(named);
    const held = statFd(c, fd);
    const folder = { dev: held.dev, ino: held.ino };
    const lockName = writeLockName(name);
    return {
      // The alias reaches exactly the held inode: Deno opens it for the flock (write_lock.ts).
      dir: `/proc/self/fd/${fd}`,
      shown: dir,
      key: `${held.dev}:${held.ino}/${paths.baseName(paths.key(named))}`,
      folder,
      current: () => isFolderAt(reach, dir, folder),
      beside: besideAt(c, fd, lockName, paths.join(dir, lockName)),
      release: () => c.close(fd),
    };
  } catch (e) {
    c.close(fd);
    throw e;
  }
}

/** The nearest existing folder on the way to `path` (create makes the rest under the lock). */
function nearestFolder(reach: LockReach, path: string): { fd: number; dir: string; name: string } {
  const { parent, baseName } = reach.paths;
  let dir = parent(path);
  let name = baseName(path);
  for (;;) {
    try {
      return { fd: reach.openDir(dir), dir, name };
    } catch (e) {
      const code = (e as { code?: string }).code;
      if ((code !== "ENOENT" && code !== "ENOTDIR") || parent(dir) === dir) throw e;
      name = baseName(dir);
      dir = parent(dir);
    }
  }
}

/** Whether `dir`, opened beneath its allowed directory again, is still the folder `folder`. */
function isFolderAt(reach: LockReach, dir: string, folder: FolderIdentity): boolean {
  let fd: number;
  try {
    fd = reach.openDir(dir);
  } catch {
    return false; // gone, or leading outside now: looked up again, and refused there
  }
  try {
    return sameFolder(statFd(reach.c, fd), folder);
  } finally {
    reach.c.close(fd);
  }
}

export function sameFolder(a: FolderIdentity, b: FolderIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/** The lock file `name` in the held folder `dir` (created O_NOFOLLOW: never through a symlink). */
function besideAt(c: Libc, dir: number, name: string, shown: string): BesideLock {
  return {
    shown,
    open: async () => {
      const how = LINUX.O_RDWR | LINUX.O_CREAT | LINUX.O_NOFOLLOW | LINUX.O_CLOEXEC;
      const fd = c.openat(dir, cName(name), how, 0o600);
      if (fd < 0) throw sysError(errnoOf(c), "openat");
      try {
        return await Deno.open(`/proc/self/fd/${fd}`, { read: true, write: true });
      } finally {
        c.close(fd);
      }
    },
    isAtName: async (file) => {
      const now = statAt(c, dir, name);
      return now !== null && now.type === "file" && Number(now.ino) === (await file.stat()).ino;
    },
    remove: () => {
      c.unlinkat(dir, cName(name), 0); // already gone: nothing to clean
    },
  };
}

/** The site locked for a write of `path` in the current async context (the lock's body). */
const lockedNow = new AsyncLocalStorage<{ path: string; site: ConfinedLockSite }>();

/** Runs `body` with `site` known as the lock of `path` to the writes it makes (lockedFolderOf). */
export function withLockedFolder<T>(
  path: string,
  site: ConfinedLockSite,
  body: () => Promise<T>,
): Promise<T> {
  return lockedNow.run({ path, site }, body);
}

/** The site locked for a write of `path` by the lock this call runs under, if any. */
export function lockedFolderOf(path: string): ConfinedLockSite | undefined {
  const now = lockedNow.getStore();
  return now?.path === path ? now.site : undefined;
}
