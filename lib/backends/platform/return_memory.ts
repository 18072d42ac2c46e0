// Gives the system back memory the process's allocator freed but kept. glibc keeps freed pages of
// each malloc arena resident until malloc_trim releases them, and two things free a lot at once:
// - A finished thread (an outline worker: its arena, tens of MiB touched by V8 compiling the
//   grammars, stays resident after the thread ends).
// - The start-up of a server whose Deno cache holds no analysis of its modules (the first run
//   after an install, or a DENO_DIR it cannot write): Deno's loader parses every module to find
//   its imports, and what it frees stays. An idle bundle server measured 116-117 MB 3 s after its
//   first call on such a start, 93-94 after a trim, 67-68 on a warm cache, where a trim frees
//   under 1 MB (issue 26, docs/benchmarks.md).
// And a server fixes glibc's mmap threshold (fixMmapThreshold), so that big buffers never settle in
// an arena at all. Linux/glibc only; elsewhere (or without --allow-ffi) nothing happens.

type Libc = { malloc_trim(pad: bigint): number; mallopt(param: number, value: number): number };

let libc: Libc | null | undefined;
let trims = 0;

function load(): Libc | null {
  if (libc !== undefined) return libc;
  libc = null;
  if (Deno.build.os !== "linux") return null;
  try {
    if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") return null;
    libc = Deno.dlopen("libc.so.6", {
      malloc_trim: { parameters: ["usize"], result: "i32" },
      mallopt: { parameters: ["i32", "i32"], result: "i32" },
    }).symbols;
  } catch {
    libc = null; // musl and others: no malloc_trim, and no arena kept either
  }
  return libc;
}

/** Releases free malloc pages of every arena; false when this platform cannot. */
export function returnFreedMemory(): boolean {
  const symbols = load();
  if (!symbols) return false;
  symbols.malloc_trim(0n);
  trims++;
  return true;
}

/** mallopt's parameter for the mmap threshold (glibc's malloc.h). */
const M_MMAP_THRESHOLD = -3;

// Exported for tests.
/**
 * The size from which an allocation gets pages of its own (mmap), handed back when it is freed.
 * glibc starts at 128 KiB but moves the mark: freeing such a block raises it to that block's size
 * (up to 32 MiB), and from then on blocks that size come from the thread's arena, which keeps
 * their pages once they are freed (its top is seldom free). A search worker's buffers of
 * megabytes (a long line read back, big files' bytes) then stayed: over a mix of searches of a
 * node_modules tree the workers' arenas held ~30 MB and the server peaked at 176 MB (other
 * anonymous memory 67-71 MB), 136-141 with the mark fixed here (docs/benchmarks.md).
 */
export const MMAP_THRESHOLD_BYTES = 128 * 1024;

/**
 * Fixes the mmap threshold at `bytes` for every thread from now on (which also stops glibc
 * moving it); false when this platform cannot.
 */
export function fixMmapThreshold(bytes = MMAP_THRESHOLD_BYTES): boolean {
  const symbols = load();
  if (!symbols) return false;
  return symbols.mallopt(M_MMAP_THRESHOLD, bytes) === 1;
}

// Exported for tests.
/** How many trims this process ran. */
export function trimCount(): number {
  return trims;
}

// Exported for tests.
/**
 * Delays (ms from the server's start, runMcpCommand) of the trims after start-up: the modules
 * load in turns after the first reply (main.ts, then the SDK when the first line is served),
 * each load's garbage freed once it is linked. Later loads (a first search, an outline) have
 * their own trims (the quiet collection's, the outline worker's) or are small.
 */
export const START_TRIMS_MS = [500, 2_000, 6_000];

/**
 * Trims at each of `delays` ms from now, on timers that never keep the process alive (a CLI
 * command that ends sooner ends as before). `trim` is the trim (the test's counter).
 */
export function trimAfterStart(
  delays: readonly number[] = START_TRIMS_MS,
  trim: () => unknown = returnFreedMemory,
): void {
  for (const ms of delays) Deno.unrefTimer(setTimeout(trim, ms));
}
