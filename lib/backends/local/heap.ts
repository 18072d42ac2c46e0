// Full garbage collections under memory pressure. Big reads (files, job logs) leave large strings
// and buffers that V8 collects lazily: under load the heap grew to several times what was live
// (10,000 views: ~295 MB resident with no forced collection, ~27 MB live after one). What grows is
// V8's heap and the buffers it holds, so the trigger is their size (heapTotal + external), not the
// resident size: that stays ~100 MB above the heap after a collection (code, malloc arenas), so a
// resident mark fired late. A forced collection costs ~20-30 ms, so it runs only above
// PRESSURE_BYTES, at most every COLLECT_INTERVAL_MS, after the current call, on a timer that never
// keeps the process alive. The mark and how often reads ask (ops/read_limits.ts
// RECLAIM_EVERY_BYTES) trade memory for speed: 56 MB / 8 MiB let whole views of 10,000 small
// files peak at 141-151 MB, 48 MB / 1 MiB at ~127 MB but slower; 52 MB / 2 MiB is the measured
// middle (docs/benchmarks.md). Needs no launch flag; a no-op where the runtime refuses to expose gc.

import v8 from "node:v8";
import vm from "node:vm";

/** V8 heap plus the buffers it holds (heapTotal + external) above which reads ask for a collection. */
const PRESSURE_BYTES = 52 * 1024 * 1024;
/** At most one forced collection per this many milliseconds. */
const COLLECT_INTERVAL_MS = 100;

type Gc = () => unknown;
let gc: Gc | null | undefined;
let pending = false;
let last = -Infinity;
let pause = COLLECT_INTERVAL_MS;

function findGc(): Gc | null {
  try {
    v8.setFlagsFromString("--expose-gc");
    const found = vm.runInNewContext("gc");
    return typeof found === "function" ? found as Gc : null;
  } catch {
    return null;
  }
}

/** Asks for a full collection soon if the heap is above the pressure mark (coalesced). */
export function requestCollection(): void {
  if (pending) return;
  const { heapTotal, external } = Deno.memoryUsage();
  if (heapTotal + external < PRESSURE_BYTES) return;
  if (gc === undefined) gc = findGc();
  if (gc === null) return;
  pending = true;
  const timer = setTimeout(() => {
    pending = false;
    const start = Date.now();
    gc?.();
    // The pause is counted from the collection's end, and is at least 9 times its length: a
    // big heap (concurrent searches holding their walks) made each one last longer than the
    // interval, so they ran back to back (4 searches at once over 100k files: 118 s, not 4).
    last = Date.now();
    pause = Math.max(COLLECT_INTERVAL_MS, 9 * (last - start));
  }, Math.max(0, last + pause - Date.now()));
  Deno.unrefTimer(timer);
}
