// Full garbage collections under memory pressure. Big reads (files, job logs) leave large strings
// and buffers that V8 collects lazily: under load the heap grew to several times what was live
// (10,000 views: 250+ MB resident for ~20 MB live). A forced collection is expensive (~150 ms
// here, and the next calls run slower while code is optimized again), so it runs only when the
// process is above PRESSURE_BYTES resident, at most every COLLECT_INTERVAL_MS, after the current
// call, on a timer that never keeps the process alive. Needs no launch flag; a no-op where the
// runtime refuses to expose gc.

import v8 from "node:v8";
import vm from "node:vm";

/** Resident size above which big reads ask for a collection. */
export const PRESSURE_BYTES = 128 * 1024 * 1024;
/** At most one forced collection per this many milliseconds. */
export const COLLECT_INTERVAL_MS = 500;

type Gc = () => unknown;
let gc: Gc | null | undefined;
let pending = false;
let last = -Infinity;

function findGc(): Gc | null {
  try {
    v8.setFlagsFromString("--expose-gc");
    const found = vm.runInNewContext("gc");
    return typeof found === "function" ? found as Gc : null;
  } catch {
    return null;
  }
}

/** Asks for a full collection soon if the process is above the pressure mark (coalesced). */
export function requestCollection(): void {
  if (pending || Deno.memoryUsage().rss < PRESSURE_BYTES) return;
  if (gc === undefined) gc = findGc();
  if (gc === null) return;
  pending = true;
  const timer = setTimeout(() => {
    pending = false;
    last = Date.now();
    gc?.();
  }, Math.max(0, last + COLLECT_INTERVAL_MS - Date.now()));
  Deno.unrefTimer(timer);
}
