// The SwapSite of a confined write (confined_local.ts): the temp file and the target are names in
// one folder held open beneath an allowed directory, and every step of the checked swap
// (checked_swap.ts) is a system call relative to that descriptor: renameat2(RENAME_EXCHANGE),
// statx, openat(O_NOFOLLOW), unlinkat, renameat. No path is looked up by its text here, so a
// folder swapped for a symlink meanwhile cannot send a step outside.

import type { SwapFile, SwapSite } from "./checked_swap.ts";
import { exchangeAt } from "./rename_exchange.ts";
import { cName, ERRNO, errnoOf, type Libc, LINUX, sysError } from "./beneath.ts";
import { check, statAt, statFd } from "./confined_fd.ts";
import { keptCopyName } from "../../core/path/write_temp_name.ts";

/** The folder of a confined write: its descriptor and its path as named (for messages). */
interface SwapFolder {
  fd: number;
  shown: string;
}

const READ = LINUX.O_RDONLY | LINUX.O_NONBLOCK | LINUX.O_NOCTTY | LINUX.O_NOFOLLOW |
  LINUX.O_CLOEXEC;

/**
 * The swap of `temp` and `base`, both in `dir`; `shown` is the target's path as named, and
 * `keptNumber` gives the number of a kept file's name (NAME.anchorfs-kept-PID-N).
 */
export function confinedSwapSite(
  c: Libc,
  dir: SwapFolder,
  temp: string,
  base: string,
  shown: string,
  keptNumber: () => number,
): SwapSite {
  const identity = (name: string) => {
    const s = statAt(c, dir.fd, name);
    return s && { dev: s.dev, ino: s.ino };
  };
  return {
    shown,
    exchange: () => exchangeAt(dir.fd, temp, dir.fd, base),
    tempIdentity: () => {
      const s = identity(temp);
      if (!s) throw sysError(ERRNO.ENOENT, "statx");
      return s;
    },
    targetIdentity: () => identity(base),
    openTemp: () => openFile(c, dir.fd, temp),
    removeTemp: () => check(c, "unlinkat", c.unlinkat(dir.fd, cName(temp), 0)),
    keepTemp: () => {
      const kept = keptCopyName(base.toWellFormed(), Deno.pid, keptNumber());
      check(c, "renameat", c.renameat(dir.fd, cName(temp), dir.fd, cName(kept)));
      return `${dir.shown === "/" ? "" : dir.shown}/${kept}`;
    },
  };
}

/** `name` in `dir` opened for reading (a symlink put there is not followed: ELOOP). */
function openFile(c: Libc, dir: number, name: string): SwapFile {
  const fd = c.openat(dir, cName(name), READ, 0);
  if (fd < 0) throw sysError(errnoOf(c), "openat");
  return {
    stat: () => {
      const s = statFd(c, fd);
      return { dev: s.dev, ino: s.ino, isFile: s.type === "file", size: s.size };
    },
    read: (buf, offset, length, position) => {
      const into = buf.subarray(offset, offset + length) as Uint8Array<ArrayBuffer>;
      const n = Number(c.pread(fd, into, BigInt(length), BigInt(position)));
      if (n < 0) throw sysError(errnoOf(c), "pread");
      return n;
    },
    close: () => c.close(fd),
  };
}
