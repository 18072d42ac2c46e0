// Gives the system back memory the process's allocator freed but kept. glibc keeps freed pages of
// each malloc arena resident until malloc_trim releases them, and two things free a lot at once:
// - A finished thread (an outline worker: its arena, tens of MiB touched by V8 compiling the
//   grammars, stays resident after the thread ends).
// - The start-up of a server whose Deno cache holds no analysis of its modules (the first run
//   after an install, or a DENO_DIR it cannot write): Deno's loader parses every module to find
//   its imports, and what it frees stays. An idle bundle server measured 116-117 MB 3 s after its
//   first call on such a start, 93-94 after a trim, 67-68 on a warm cache, where a trim frees
//   under 1 MB (issue 26, docs/benchmarks.md).
// Linux/glibc only; elsewhere (or without --allow-ffi) nothing happens.

type Libc = { malloc_trim(pad: bigint): number };

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
