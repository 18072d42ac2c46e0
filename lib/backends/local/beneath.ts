// Opening paths beneath the allowed directories in the kernel (--allow, --roots; Linux x86-64 and
// AArch64 with FFI): each allowed directory is held open, and every path a confined file
// operation uses is opened relative to that descriptor, with openat2(RESOLVE_BENEATH |
// RESOLVE_NO_MAGICLINKS) where the kernel has it (Linux 5.6+), else one component at a time with
// openat(O_NOFOLLOW) from the held descriptor. Nothing here looks a path up by its text, so a
// directory swapped for a symlink between a check and the operation cannot lead outside.

import { decodeNameBytes, encodeNameBytes } from "../../core/path/path_quote.ts";
import type { PathRules } from "../../core/path/path_rules.ts";

const ARM = Deno.build.arch === "aarch64";

/** The open(2) and *at(2) flags used here (x86-64 and AArch64 Linux differ in two of them). */
export const LINUX = {
  O_RDONLY: 0,
  O_WRONLY: 1,
  O_RDWR: 2,
  O_CREAT: 0o100,
  O_EXCL: 0o200,
  O_NOCTTY: 0o400,
  O_NONBLOCK: 0o4000,
  O_DIRECTORY: ARM ? 0o40000 : 0o200000,
  O_NOFOLLOW: ARM ? 0o100000 : 0o400000,
  O_CLOEXEC: 0o2000000,
  O_PATH: 0o10000000,
  AT_FDCWD: -100,
  AT_SYMLINK_NOFOLLOW: 0x100,
  AT_REMOVEDIR: 0x200,
  AT_EMPTY_PATH: 0x1000,
  RESOLVE_NO_MAGICLINKS: 0x02,
  RESOLVE_BENEATH: 0x08,
  /** openat2's number on both architectures (glibc has no wrapper for it). */
  SYS_openat2: 437,
} as const;

/** errno values named here (the same on both architectures). */
export const ERRNO = {
  EPERM: 1,
  ENOENT: 2,
  EINTR: 4,
  EBADF: 9,
  EAGAIN: 11,
  EACCES: 13,
  EEXIST: 17,
  EXDEV: 18,
  ENOTDIR: 20,
  EISDIR: 21,
  EINVAL: 22,
  ENOSPC: 28,
  EROFS: 30,
  EMLINK: 31,
  ENAMETOOLONG: 36,
  ENOSYS: 38,
  ENOTEMPTY: 39,
  ELOOP: 40,
  EOPNOTSUPP: 95,
} as const;

const CODES: Record<number, string> = Object.fromEntries(
  Object.entries(ERRNO).map(([name, n]) => [n, name]),
);

export const SYMBOLS = {
  // syscall(2) is variadic; with integer and pointer arguments only, the x86-64 and AArch64
  // Linux calling conventions pass them exactly as fixed ones.
  openat2: {
    name: "syscall",
    parameters: ["i64", "i32", "buffer", "buffer", "usize"],
    result: "i64",
  },
  // openat is variadic too (the mode), in the same way.
  openat: { parameters: ["i32", "buffer", "i32", "u32"], result: "i32" },
  close: { parameters: ["i32"], result: "i32" },
  read: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  pread: { parameters: ["i32", "buffer", "usize", "i64"], result: "isize" },
  preadLong: {
    name: "pread",
    parameters: ["i32", "buffer", "usize", "i64"],
    result: "isize",
    nonblocking: true,
  },
  write: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  writeLong: {
    name: "write",
    parameters: ["i32", "buffer", "usize"],
    result: "isize",
    nonblocking: true,
  },
  fsync: { parameters: ["i32"], result: "i32", nonblocking: true },
  fchmod: { parameters: ["i32", "u32"], result: "i32" },
  fchown: { parameters: ["i32", "u32", "u32"], result: "i32" },
  statx: { parameters: ["i32", "buffer", "i32", "u32", "buffer"], result: "i32" },
  readlinkat: { parameters: ["i32", "buffer", "buffer", "usize"], result: "isize" },
  renameat: { parameters: ["i32", "buffer", "i32", "buffer"], result: "i32" },
  linkat: { parameters: ["i32", "buffer", "i32", "buffer", "i32"], result: "i32" },
  unlinkat: { parameters: ["i32", "buffer", "i32"], result: "i32" },
  mkdirat: { parameters: ["i32", "buffer", "u32"], result: "i32" },
  symlinkat: { parameters: ["buffer", "i32", "buffer"], result: "i32" },
  getdents64: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  __errno_location: { parameters: [], result: "pointer" },
} as const;

export type Libc = Deno.DynamicLibrary<typeof SYMBOLS>["symbols"];

let libc: Libc | null | undefined;

/** libc through FFI, or null where the kernel-side confinement cannot work here. */
export function beneathLibc(): Libc | null {
  if (libc !== undefined) return libc;
  libc = null;
  if (Deno.build.os !== "linux" || !["x86_64", "aarch64"].includes(Deno.build.arch)) return null;
  try {
    if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") return null;
    libc = Deno.dlopen("libc.so.6", SYMBOLS).symbols; // glibc 2.28+: statx
  } catch {
    libc = null;
  }
  return libc;
}

/** The errno of the last failed call on this thread. */
export function errnoOf(c: Libc): number {
  return new Deno.UnsafePointerView(c.__errno_location()!).getInt32();
}

/** A failed system call as an Error whose `code` mapFsError knows ("ENOENT", ...). */
export function sysError(errno: number, what: string): Error & { code: string; errno: number } {
  const code = CODES[errno] ?? `E${errno}`;
  return Object.assign(new Error(`${what}: ${code} (errno ${errno})`), { code, errno });
}

const encoder = new TextEncoder();

/** A path or name as the NUL-terminated bytes it names on disk (raw bytes kept, see path_quote). */
export function cName(name: string): Uint8Array<ArrayBuffer> {
  const bytes = /[\uDC80-\uDCFF]/.test(name) ? encodeNameBytes(name) : encoder.encode(name);
  const out = new Uint8Array(bytes.length + 1);
  out.set(bytes);
  return out;
}

/**
 * A path that leads out of every allowed directory: `real` is where it leads, as far as it was
 * followed (the symlink's target and the rest of the path), for the refusal's "resolves to".
 */
export class OutsideRoots extends Error {
  constructor(readonly path: string, readonly real: string) {
    super(`${JSON.stringify(path)} leads outside the allowed directories (to ${real})`);
  }
}

/** One allowed directory: its real path, the path it was named by, and the descriptor held. */
export interface HeldRoot {
  path: string;
  named?: string;
  fd: number;
}

/** How confined paths are opened: the kernel's openat2, or the openat walk where it is missing. */
export type BeneathMethod = "openat2" | "openat";

/** A path placed in an allowed directory: the root and the path below it ("" for the root). */
export interface Placed {
  root: HeldRoot;
  rel: string;
}

/** Root descriptors retired by a change of roots are closed only after this many more. */
const RETIRED_KEPT = 64;

/** Symlinks followed in one resolution at most (the kernel's MAXSYMLINKS). */
const MAX_LINKS = 40;

/**
 * The held allowed directories and the resolution beneath them. `set` replaces the directories
 * (--roots changes them at runtime); a descriptor of a directory no longer allowed stays open for
 * a while (RETIRED_KEPT later ones), because a search worker may still be opening files relative
 * to it: closed at once, its number could be reused by an unrelated open.
 */
export class Beneath {
  private roots: HeldRoot[] = [];
  private retired: number[] = [];
  /** The generation of the root set, for the workers' cached copies. */
  generation = 0;

  private constructor(
    readonly c: Libc,
    readonly method: BeneathMethod,
    private readonly rules: PathRules,
  ) {}

  /**
   * The resolver, or null without FFI. `method` forces the openat walk (tests, benchmarks:
   * ANCHORFS_BENEATH=openat); otherwise openat2 is used when the kernel answers it.
   */
  static open(rules: PathRules, method?: BeneathMethod): Beneath | null {
    const c = beneathLibc();
    if (!c) return null;
    return new Beneath(c, method ?? (hasOpenat2(c) ? "openat2" : "openat"), rules);
  }

  /** The directories allowed now, each held open. A directory that cannot be opened is left out. */
  set(dirs: readonly { path: string; named?: string }[]): void {
    const next: HeldRoot[] = [];
    for (const dir of dirs) {
      const kept = this.roots.find((r) => r.path === dir.path);
      if (kept) {
        next.push({ ...kept, ...(dir.named !== undefined && { named: dir.named }) });
        continue;
      }
      const fd = this.c.openat(
        LINUX.AT_FDCWD,
        cName(dir.path),
        LINUX.O_PATH | LINUX.O_DIRECTORY | LINUX.O_CLOEXEC,
        0,
      );
      if (fd >= 0) {
        next.push({ path: dir.path, ...(dir.named !== undefined && { named: dir.named }), fd });
      }
    }
    for (const old of this.roots) {
      if (!next.some((r) => r.fd === old.fd)) this.retired.push(old.fd);
    }
    while (this.retired.length > RETIRED_KEPT) this.c.close(this.retired.shift()!);
    // Deepest first: a path inside nested roots is placed in the innermost.
    this.roots = next.sort((a, b) => b.path.length - a.path.length);
    this.generation++;
  }

  /** The roots held now (for the search workers, which open beneath the same descriptors). */
  held(): readonly HeldRoot[] {
    return this.roots;
  }

  /** Closes every held descriptor (the backend is closing). */
  close(): void {
    for (const r of this.roots) this.c.close(r.fd);
    for (const fd of this.retired) this.c.close(fd);
    this.roots = [];
    this.retired = [];
  }

  /** The root whose real path (or the path it was named by) holds `path` by its text. */
  place(path: string): Placed | undefined {
    for (const root of this.roots) {
      for (const base of [root.path, root.named]) {
        if (base === undefined || !this.rules.isInside(path, base)) continue;
        return { root, rel: this.rules.below(base, path) ?? "" };
      }
    }
    return undefined;
  }

  /**
   * Opens `at` with `flags` (O_CLOEXEC added), symlinks followed beneath the roots (the last one
   * too unless `follow` is false: then O_NOFOLLOW). Throws OutsideRoots when the path leads out
   * of every root, else the system error (`code` ENOENT, ENOTDIR, ELOOP, ...).
   */
  openPlaced(at: Placed, flags: number, follow = true): number {
    const how = flags | LINUX.O_CLOEXEC | (follow ? 0 : LINUX.O_NOFOLLOW);
    if (this.method === "openat2") {
      for (let tries = 0; tries < 4; tries++) {
        const fd = openat2(this.c, at.root.fd, at.rel === "" ? "." : at.rel, how);
        if (fd >= 0) return fd;
        const errno = -fd;
        // EXDEV: the path left the root (or is an absolute symlink); ELOOP: maybe a magic link or
        // a loop. The walk below says exactly which, and follows what stays inside some root.
        if (errno === ERRNO.EXDEV || errno === ERRNO.ELOOP) break;
        // EAGAIN: a rename raced a ".." lookup; retried, then walked.
        if (errno !== ERRNO.EAGAIN) throw sysError(errno, "openat2");
      }
    }
    return this.walk(`${at.root.path === "/" ? "" : at.root.path}/${at.rel}`, flags, follow);
  }

  /**
   * The walk: `text` (an absolute path, possibly with `..` and symlinks in it) from "/" by its
   * text until it reaches a held root (nothing outside the roots is looked up), then one
   * component at a time with openat(O_NOFOLLOW) from the root's descriptor. At a symlink its
   * target replaces the walked part and the walk starts over; `..` starts over from the parent,
   * which is exact because the walked part holds no symlink.
   */
  private walk(text: string, flags: number, follow: boolean): number {
    for (let links = 0; links <= MAX_LINKS; links++) {
      const start = this.enter(text);
      if (!start) throw new OutsideRoots(text, normalizeText(text));
      const step = this.walkFrom(start.root, start.where, start.rest, flags, follow);
      if (typeof step === "number") return step;
      text = step;
    }
    throw sysError(ERRNO.ELOOP, "open");
  }

  /** Where `text` enters a held root, walked by its text: the root, its path, what follows. */
  private enter(text: string): { root: HeldRoot; where: string; rest: string[] } | undefined {
    const parts = text.split("/");
    let where = "/";
    for (let i = 0; i <= parts.length; i++) {
      const key = this.rules.key(where);
      const root = this.roots.find((r) =>
        this.rules.key(r.path) === key || (r.named !== undefined && this.rules.key(r.named) === key)
      );
      if (root) {
        const rest = parts.slice(i).filter((p) => p !== "" && p !== ".");
        return { root, where: root.path, rest };
      }
      if (i === parts.length) break;
      const part = parts[i]!;
      if (part === "" || part === ".") continue;
      where = part === ".." ? parentText(where) : joinText(where, part);
    }
    return undefined;
  }

  /**
   * Walks `rest` from `root` without following anything: the descriptor of the last component,
   * or, at a symlink or a `..`, the text to walk next.
   */
  private walkFrom(
    root: HeldRoot,
    start: string,
    rest: string[],
    flags: number,
    follow: boolean,
  ): number | string {
    const c = this.c;
    let dir = root.fd;
    let where = start;
    try {
      if (rest.length === 0) return this.openAt(dir, ".", flags | LINUX.O_CLOEXEC);
      for (let i = 0; i < rest.length; i++) {
        const name = rest[i]!;
        const after = rest.slice(i + 1);
        if (name === "..") return [parentText(where), ...after].join("/");
        const last = after.length === 0;
        const how = (last ? flags : LINUX.O_PATH | LINUX.O_DIRECTORY) | LINUX.O_NOFOLLOW |
          LINUX.O_CLOEXEC;
        const fd = c.openat(dir, cName(name), how, 0);
        if (fd < 0) {
          const errno = errnoOf(c);
          const link = (errno === ERRNO.ELOOP || errno === ERRNO.ENOTDIR) && (!last || follow)
            ? readLinkAt(c, dir, name)
            : null;
          if (link === null) throw sysError(errno, "openat");
          return linkText(where, link, after);
        }
        // O_PATH | O_NOFOLLOW opens a symlink itself rather than failing: look at what it is.
        if (last && follow && (flags & LINUX.O_PATH) !== 0 && isSymlinkFd(c, fd)) {
          c.close(fd);
          const link = readLinkAt(c, dir, name);
          if (link === null) throw sysError(ERRNO.ENOENT, "readlinkat");
          return linkText(where, link, after);
        }
        if (last) return fd;
        if (dir !== root.fd) c.close(dir);
        dir = fd;
        where = joinText(where, name);
      }
      throw sysError(ERRNO.EINVAL, "walk");
    } finally {
      if (dir !== root.fd) c.close(dir);
    }
  }

  private openAt(dir: number, name: string, flags: number): number {
    const fd = this.c.openat(dir, cName(name), flags, 0);
    if (fd < 0) throw sysError(errnoOf(this.c), "openat");
    return fd;
  }
}

/**
 * Whether openat2 works here: ENOSYS on kernels before 5.6, EPERM under some seccomp filters
 * (container runtimes), E2BIG or EINVAL where its struct or flags are not known. Any other answer
 * (even EACCES for an unreadable working directory) means the call exists.
 */
function hasOpenat2(c: Libc): boolean {
  const fd = openat2(c, LINUX.AT_FDCWD, ".", LINUX.O_PATH | LINUX.O_CLOEXEC);
  if (fd >= 0) c.close(fd);
  return fd >= 0 || ![ERRNO.ENOSYS, ERRNO.EPERM, 7, ERRNO.EINVAL].includes(-fd as 1);
}

/** openat2(dirfd, path, {flags, resolve: BENEATH | NO_MAGICLINKS}): an fd, or -errno. */
function openat2(c: Libc, dir: number, path: string, flags: number): number {
  // struct open_how { u64 flags; u64 mode; u64 resolve; }
  const how = new BigUint64Array([
    BigInt(flags),
    0n,
    BigInt(LINUX.RESOLVE_BENEATH | LINUX.RESOLVE_NO_MAGICLINKS),
  ]);
  const fd = Number(
    c.openat2(BigInt(LINUX.SYS_openat2), dir, cName(path), new Uint8Array(how.buffer), 24n),
  );
  return fd >= 0 ? fd : -errnoOf(c);
}

const STATX_TYPE = 0x1;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

function isSymlinkFd(c: Libc, fd: number): boolean {
  const buf = new Uint8Array(256);
  const flags = LINUX.AT_EMPTY_PATH | LINUX.AT_SYMLINK_NOFOLLOW;
  if (c.statx(fd, cName(""), flags, STATX_TYPE, buf) !== 0) return false;
  return (new DataView(buf.buffer).getUint16(28, true) & S_IFMT) === S_IFLNK;
}

const linkBuffer = new Uint8Array(4097);

/** The target stored in the symlink `name` in `dir`, or null when it is not a symlink. */
function readLinkAt(c: Libc, dir: number, name: string): string | null {
  const n = Number(c.readlinkat(dir, cName(name), linkBuffer, BigInt(linkBuffer.length)));
  if (n < 0 || n >= linkBuffer.length) return null;
  return decodeNameBytes(linkBuffer.subarray(0, n));
}

/** Where a symlink in `where` holding `link` leads, with the components after it. */
function linkText(where: string, link: string, after: readonly string[]): string {
  const base = link.startsWith("/") ? link : `${where === "/" ? "" : where}/${link}`;
  return [base, ...after].join("/");
}

function joinText(dir: string, name: string): string {
  return dir === "/" ? `/${name}` : `${dir}/${name}`;
}

function parentText(path: string): string {
  const at = path.lastIndexOf("/");
  return at <= 0 ? "/" : path.slice(0, at);
}

/** `text` with `.`, `..` and repeated slashes resolved by the text alone (for messages). */
function normalizeText(text: string): string {
  const out: string[] = [];
  for (const part of text.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return `/${out.join("/")}`;
}
