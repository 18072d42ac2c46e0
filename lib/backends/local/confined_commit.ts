// The last steps of a confined write, relative to the held folder's descriptor (confined_local.ts
// holds the folder): a new file placed only where nothing is (a hard link fails atomically on an
// existing name), the replaced file's owner kept, and an edit's commit: the content it was based
// on checked through one descriptor, then the new file swapped in (checked_swap.ts, the same
// steps as an unconfined write's).

import type { WriteOptions } from "../../ops/ports/file_backend.ts";
import { fileChanged, matchesExpected } from "../fs_errors.ts";
import { cName, ERRNO, errnoOf, type Libc, LINUX, sysError } from "./beneath.ts";
import { check, type FdStat, readToEnd, sameVersion, statAt, statFd } from "./confined_fd.ts";
import { nextTempNumber } from "./dead_temps.ts";
import { swapChecked, type SwappedOut } from "./checked_swap.ts";
import { confinedSwapSite } from "./confined_swap.ts";

/** Flags of every read of content: O_NONBLOCK, so a FIFO put in a file's place never blocks. */
export const READ = LINUX.O_RDONLY | LINUX.O_NONBLOCK | LINUX.O_NOCTTY;

/** A directory held for a write: its descriptor, whether it can be fsynced, its path as named. */
export interface HeldDir {
  fd: number;
  readable: boolean;
  shown: string;
}

/**
 * The temp file gets the replaced file's owner (a root server must not take a user's file away;
 * another user can only keep a group it belongs to). Best effort, before the chmod.
 */
export function keepOwner(c: Libc, fd: number, owner: FdStat): void {
  if (owner.uid === Deno.uid() && owner.gid === Deno.gid()) return;
  if (c.fchown(fd, owner.uid, owner.gid) !== 0) c.fchown(fd, 0xffffffff, owner.gid);
}

/**
 * A new file in place only if nothing is there: a hard link fails atomically when the name
 * exists. Where links are unsupported (EPERM on FAT, ENOTSUP on some FUSE), a stat and a rename.
 */
export function placeNew(c: Libc, dir: number, temp: string, base: string, path: string): void {
  if (c.linkat(dir, cName(temp), dir, cName(base), 0) === 0) {
    c.unlinkat(dir, cName(temp), 0); // left over: removed as dead by a later write
    return;
  }
  const errno = errnoOf(c);
  if (errno === ERRNO.EEXIST) throw fileChanged(path);
  if (errno === ERRNO.ENOENT) throw sysError(errno, "linkat");
  if (statAt(c, dir, base) !== null) throw fileChanged(path);
  check(c, "renameat", c.renameat(dir, cName(temp), dir, cName(base)));
}

/**
 * The last step of an edit, in the held folder: the content check (when the edit was based on a
 * read), then the new file swapped in and what came out checked (checked_swap.ts, the same steps
 * as an unconfined write's, relative to the folder's descriptor: confined_swap.ts); where names
 * cannot be exchanged, a rename right after the check. The swap to settle after the folder's
 * fsync, or null. `owned.temp` says whether the temp's name still holds our new file.
 */
export async function commitAt(
  c: Libc,
  dir: HeldDir,
  write: { temp: string; base: string; path: string; data: Uint8Array },
  expect: WriteOptions["expect"],
  owned: { temp: boolean },
): Promise<SwappedOut | null> {
  const { temp, base, path } = write;
  const rename = () => check(c, "renameat", c.renameat(dir.fd, cName(temp), dir.fd, cName(base)));
  if (!expect) {
    rename();
    owned.temp = false;
    return null;
  }
  const read = await checkUnchanged(c, dir.fd, base, path, expect);
  owned.temp = false;
  const site = confinedSwapSite(c, dir, temp, base, path, nextTempNumber);
  const swapped = swapChecked(site, write.data, expect.bytes, { dev: read.dev, ino: read.ino });
  if (swapped) return swapped;
  owned.temp = true;
  rename(); // no exchange here: renamed right after the check
  owned.temp = false;
  return null;
}

/**
 * FILE_CHANGED unless `base` in the held folder holds `expect.bytes`: read through one
 * descriptor (O_NOFOLLOW: a symlink put there is a change), and a statx of the name just after
 * must still show that inode, size and mtime. Returns what that read's descriptor showed.
 */
export async function checkUnchanged(
  c: Libc,
  dir: number,
  base: string,
  path: string,
  expect: { bytes: Uint8Array },
): Promise<FdStat> {
  const fd = c.openat(dir, cName(base), READ | LINUX.O_NOFOLLOW | LINUX.O_CLOEXEC, 0);
  if (fd < 0) {
    const errno = errnoOf(c);
    if (errno === ERRNO.ENOENT || errno === ERRNO.ELOOP) throw fileChanged(path);
    throw sysError(errno, "open");
  }
  let read: FdStat;
  let bytes: Uint8Array = new Uint8Array(0);
  try {
    read = statFd(c, fd);
    // One byte more than expected: a file that grew meanwhile shows.
    if (read.type === "file" && read.size === expect.bytes.length) {
      bytes = await readToEnd(c, fd, read.size, read.size);
    }
  } finally {
    c.close(fd);
  }
  if (read.type !== "file" || read.size !== expect.bytes.length) throw fileChanged(path);
  if (!matchesExpected(bytes, expect)) throw fileChanged(path);
  const now = statAt(c, dir, base);
  if (!now || !sameVersion(now, read)) throw fileChanged(path);
  return read;
}
