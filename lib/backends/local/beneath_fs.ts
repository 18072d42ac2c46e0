// The quick reads of a confined server (listing heads, search scans) opened beneath the held
// allowed directories: a SummaryFs (quick_summary.ts) whose openSync places an absolute path in
// a root by its text and opens it there with openat2(RESOLVE_BENEATH) or an openat(O_NOFOLLOW)
// walk. Its source also runs inside the search workers (parallel_scan.ts). It never decides
// anything hard: whatever is not plainly beneath a root (an alias, a symlink on the way, an
// escape, a name that is not UTF-8) throws, and the caller leaves the file to the confined
// backend on the main thread, which follows what stays inside and refuses the rest.

import type { SummaryFs } from "./quick_summary.ts";
import type { BeneathMethod, HeldRoot } from "./beneath.ts";
import { LINUX, SYMBOLS } from "./beneath.ts";

/** What a thread needs to open files beneath the roots (sent to the workers with each batch). */
export interface BeneathConfig {
  method: BeneathMethod;
  /** Changes whenever the roots do (workers rebuild their SummaryFs then). */
  generation: number;
  roots: readonly HeldRoot[];
  flags: {
    O_NOFOLLOW: number;
    O_DIRECTORY: number;
    O_PATH: number;
    O_CLOEXEC: number;
    O_NONBLOCK: number;
    AT_EMPTY_PATH: number;
    RESOLVE: number;
    SYS_openat2: number;
  };
}

/** The libc symbols beneathSummaryFs calls (the workers open them with this table). */
export const SUMMARY_SYMBOLS = {
  openat2: SYMBOLS.openat2,
  openat: SYMBOLS.openat,
  read: SYMBOLS.read,
  pread: SYMBOLS.pread,
  close: SYMBOLS.close,
  statx: SYMBOLS.statx,
} as const;

type SummaryLibc = Deno.DynamicLibrary<typeof SUMMARY_SYMBOLS>["symbols"];

/** The config for `roots` opened by `method` (this platform's flag values). */
export function beneathConfig(
  method: BeneathMethod,
  generation: number,
  roots: readonly HeldRoot[],
): BeneathConfig {
  return {
    method,
    generation,
    roots: roots.map((r) => ({ ...r })),
    flags: {
      O_NOFOLLOW: LINUX.O_NOFOLLOW,
      O_DIRECTORY: LINUX.O_DIRECTORY,
      O_PATH: LINUX.O_PATH,
      O_CLOEXEC: LINUX.O_CLOEXEC,
      O_NONBLOCK: LINUX.O_NONBLOCK,
      AT_EMPTY_PATH: LINUX.AT_EMPTY_PATH,
      RESOLVE: LINUX.RESOLVE_BENEATH | LINUX.RESOLVE_NO_MAGICLINKS,
      SYS_openat2: LINUX.SYS_openat2,
    },
  };
}

/**
 * A SummaryFs that opens only beneath `config.roots`. Self-contained (its source runs in the
 * workers, where imports do not exist): `c` is libc opened with SUMMARY_SYMBOLS.
 */
export function beneathSummaryFs(c: SummaryLibc, config: BeneathConfig): SummaryFs {
  const F = config.flags;
  const enc = new TextEncoder();
  const name = (text: string) => enc.encode(`${text}\0`);
  const refuse = (): never => {
    throw new Error("not plainly beneath an allowed directory");
  };
  const place = (path: string): [number, string] => {
    if (!path.isWellFormed()) refuse(); // raw bytes: the backend's exact names
    for (const root of config.roots) {
      for (const base of [root.path, root.named]) {
        if (base === undefined) continue;
        if (path === base) return [root.fd, "."];
        const prefix = base === "/" ? "/" : `${base}/`;
        if (path.startsWith(prefix)) return [root.fd, path.slice(prefix.length)];
      }
    }
    return refuse();
  };
  const walk = (dir: number, rel: string, flags: number): number => {
    const parts = rel.split("/");
    let at = dir;
    try {
      for (let i = 0; i < parts.length; i++) {
        const last = i === parts.length - 1;
        const how = (last ? flags : F.O_PATH | F.O_DIRECTORY) | F.O_NOFOLLOW | F.O_CLOEXEC;
        const fd = c.openat(at, name(parts[i]!), how, 0);
        if (fd < 0) refuse(); // a symlink on the way, or an error: the backend decides
        if (last) return fd;
        if (at !== dir) c.close(at);
        at = fd;
      }
      return refuse();
    } finally {
      if (at !== dir) c.close(at);
    }
  };
  const how = new BigUint64Array(3);
  const stat = new Uint8Array(256);
  const statView = new DataView(stat.buffer);
  return {
    openSync(path, flags) {
      const [dir, rel] = place(path);
      if (config.method === "openat") return walk(dir, rel, flags);
      how[0] = BigInt(flags | F.O_CLOEXEC);
      how[2] = BigInt(F.RESOLVE);
      const fd = Number(
        c.openat2(BigInt(F.SYS_openat2), dir, name(rel), new Uint8Array(how.buffer), 24n),
      );
      return fd < 0 ? refuse() : fd;
    },
    readSync(fd, buffer, offset, length, position) {
      const into = offset === 0 ? buffer : buffer.subarray(offset);
      const n = Number(
        position === null
          ? c.read(fd, into, BigInt(length))
          : c.pread(fd, into, BigInt(length), BigInt(position)),
      );
      if (n < 0) throw new Error("read failed");
      return n;
    },
    closeSync(fd) {
      c.close(fd);
    },
    fstatSync(fd) {
      // STATX_TYPE | STATX_MODE | STATX_SIZE; stx_mode at 28, stx_size at 40.
      if (c.statx(fd, name(""), F.AT_EMPTY_PATH, 0x203, stat) !== 0) {
        throw new Error("statx failed");
      }
      const size = Number(statView.getBigUint64(40, true));
      const regular = (statView.getUint16(28, true) & 0o170000) === 0o100000;
      return { size, isFile: () => regular };
    },
    constants: { O_RDONLY: 0, O_NONBLOCK: F.O_NONBLOCK },
  };
}
