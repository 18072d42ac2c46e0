// The process's open-file limit (RLIMIT_NOFILE): read it, and raise the soft limit towards the
// hard one, through FFI to libc's getrlimit/setrlimit (Linux x86-64/AArch64, where rlim_t is 64
// bits). Deno has no setrlimit. Elsewhere, or without the FFI permission, it says why not and
// changes nothing: the HTTP listener then sizes its connection cap from the limit as it is.

const SYMBOLS = {
  getrlimit: { parameters: ["i32", "buffer"], result: "i32" },
  setrlimit: { parameters: ["i32", "buffer"], result: "i32" },
} as const;

type Libc = Deno.DynamicLibrary<typeof SYMBOLS>["symbols"];

const RLIMIT_NOFILE = 7; // Linux, x86-64 and AArch64 alike
const RLIM_INFINITY = 0xffff_ffff_ffff_ffffn;

let libc: Libc | null | undefined;
let unavailable = "";

function load(): Libc | null {
  if (libc !== undefined) return libc;
  libc = null;
  if (Deno.build.os !== "linux") unavailable = `setrlimit is not bound on ${Deno.build.os}`;
  else if (!["x86_64", "aarch64"].includes(Deno.build.arch)) {
    unavailable = `no binding for this CPU (${Deno.build.arch})`;
  } else if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") {
    unavailable = "FFI is not allowed (run with -A or --allow-ffi)";
  } else {
    for (const name of ["libc.so.6", "libc.so"]) {
      try {
        libc = Deno.dlopen(name, SYMBOLS).symbols;
        return libc;
      } catch { /* musl ships libc.so: try the next name */ }
    }
    unavailable = "the C library could not be opened";
  }
  return null;
}

interface FdLimit {
  /** The soft limit now in force (what EMFILE is measured against). */
  soft: number;
  hard: number;
  /** When the soft limit was raised here: what it was before. */
  raisedFrom?: number;
  /** Why the limit is unknown or could not be raised, when that is so. */
  note?: string;
}

const toNumber = (v: bigint) => v >= RLIM_INFINITY ? Infinity : Number(v);

/**
 * The open-file limit, with the soft limit raised to min(hard, `target`) first when it is lower
 * and this platform allows it. Never throws: a limit it cannot read is reported as unknown
 * (Infinity) with a note.
 */
export function raiseFdLimit(target: number): FdLimit {
  const c = load();
  if (!c) return { soft: Infinity, hard: Infinity, note: unavailable };
  const buf = new BigUint64Array(2);
  if (c.getrlimit(RLIMIT_NOFILE, buf) !== 0) {
    return { soft: Infinity, hard: Infinity, note: "getrlimit failed" };
  }
  const [soft, hard] = [buf[0]!, buf[1]!];
  const wanted = BigInt(target) < hard ? BigInt(target) : hard;
  if (soft >= wanted) return { soft: toNumber(soft), hard: toNumber(hard) };
  buf[0] = wanted;
  if (c.setrlimit(RLIMIT_NOFILE, buf) !== 0) {
    return { soft: toNumber(soft), hard: toNumber(hard), note: "setrlimit refused" };
  }
  return { soft: toNumber(wanted), hard: toNumber(hard), raisedFrom: toNumber(soft) };
}
