// Swapping two names in one atomic step: Linux renameat2(RENAME_EXCHANGE) through FFI (x86-64,
// AArch64; glibc 2.28+, musl's libc.so). Only the binding lives here (checked_swap.ts decides what
// a swap means for a write). It takes a directory fd for each name (AT_FDCWD: paths as usual), so
// fd-relative writes beneath an allowed root (issue 29, item 3) can call it unchanged. Elsewhere
// (macOS, Windows, no FFI permission, a kernel before 3.15) it reports why it cannot, and the caller
// renames after its final check instead.

import { encodeNameBytes } from "../../core/path/path_quote.ts";

const SYMBOLS = {
  renameat2: { parameters: ["i32", "buffer", "i32", "buffer", "u32"], result: "i32" },
  __errno_location: { parameters: [], result: "pointer" },
} as const;

type Libc = Deno.DynamicLibrary<typeof SYMBOLS>["symbols"];

/** The directory fd that makes a name relative to the working directory, as a plain path is. */
const AT_FDCWD = -100;
const RENAME_EXCHANGE = 2;
// Linux errno values (the same on x86-64 and AArch64).
const ENOENT = 2;
const EACCES = 13;
const EPERM = 1;
const EXDEV = 18;
const EINVAL = 22;
const ENOSYS = 38;
const EOPNOTSUPP = 95;

let libc: Libc | null | undefined;
let unavailable = "";

// Exported for tests.
/**
 * Why exchanges cannot even be tried on this platform, or undefined when they can: decided from
 * the OS, the CPU (the binding's calling convention) and the FFI permission alone, so it is
 * tested for macOS and Windows anywhere.
 */
export function exchangeUnavailable(
  os: typeof Deno.build.os,
  arch: string,
  ffiGranted: boolean,
): string | undefined {
  if (os !== "linux") return `renameat2 is Linux's (this is ${os})`;
  if (!["x86_64", "aarch64"].includes(arch)) return `no binding for this CPU (${arch})`;
  if (!ffiGranted) return "FFI is not allowed (run with -A or --allow-ffi)";
  return undefined;
}

function load(): Libc | null {
  if (libc !== undefined) return libc;
  libc = null;
  const why = exchangeUnavailable(
    Deno.build.os,
    Deno.build.arch,
    Deno.build.os === "linux" && Deno.permissions.querySync({ name: "ffi" }).state === "granted",
  );
  if (why !== undefined) {
    unavailable = why;
    return null;
  }
  for (const name of ["libc.so.6", "libc.so"]) {
    try {
      libc = Deno.dlopen(name, SYMBOLS).symbols;
      return libc;
    } catch { /* glibc before 2.28, or musl under its own name: try the next */ }
  }
  unavailable = "the C library has no renameat2 (glibc before 2.28?)";
  return null;
}

/** The result of an exchange: done, or not possible here (nothing was changed then). */
export type ExchangeResult = { done: true } | { done: false; reason: string };

/**
 * Exchanges `from` (relative to `fromDir`) and `to` (relative to `toDir`) atomically: each name
 * then leads to what the other led to. Both must exist. `{ done: false }` when this system or
 * this file system cannot exchange (nothing changed); other failures throw as Deno's file errors
 * do (NotFound when either name is missing). Names may hold raw bytes (core/path/path_quote.ts).
 */
export function exchangeAt(
  fromDir: number,
  from: string,
  toDir: number,
  to: string,
): ExchangeResult {
  const c = load();
  if (!c) return { done: false, reason: unavailable };
  if (c.renameat2(fromDir, cString(from), toDir, cString(to), RENAME_EXCHANGE) === 0) {
    return { done: true };
  }
  const errno = new Deno.UnsafePointerView(c.__errno_location()!).getInt32();
  if (errno === EINVAL || errno === EOPNOTSUPP || errno === ENOSYS) {
    return {
      done: false,
      reason: errno === ENOSYS
        ? "the kernel has no renameat2 (before Linux 3.15)"
        : "this file system cannot exchange names",
    };
  }
  if (errno === ENOENT) throw new Deno.errors.NotFound(`exchange ${from} and ${to}`);
  if (errno === EACCES || errno === EPERM) {
    throw new Deno.errors.PermissionDenied(`exchange ${from} and ${to}`);
  }
  const code = errno === EXDEV ? "EXDEV" : `errno ${errno}`;
  throw Object.assign(new Error(`renameat2 failed (${code}): exchange ${from} and ${to}`), {
    code,
  });
}

/** exchangeAt for two paths (absolute, or relative to the working directory). */
export function exchange(from: string, to: string): ExchangeResult {
  return exchangeAt(AT_FDCWD, from, AT_FDCWD, to);
}

/**
 * Whether exchanges can work in this process, asked without touching any file: an exchange of
 * two names that do not exist answers ENOENT where the kernel has renameat2, ENOSYS where not.
 * (A file system that cannot exchange shows only on a real write, which then falls back.)
 */
export function exchangeSupport(): ExchangeResult {
  const c = load();
  if (!c) return { done: false, reason: unavailable };
  const missing = `/nonexistent-anchorfs-probe-${Deno.pid}`;
  try {
    return exchange(`${missing}-a`, `${missing}-b`);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return { done: true };
    return { done: false, reason: (e as Error).message };
  }
}

function cString(path: string): Uint8Array<ArrayBuffer> {
  const bytes = encodeNameBytes(path);
  const out = new Uint8Array(bytes.length + 1);
  out.set(bytes);
  return out;
}
