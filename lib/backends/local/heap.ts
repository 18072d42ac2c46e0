// Full garbage collections under memory pressure. Big reads (files, job logs) leave large strings
// and buffers that V8 collects lazily: under load the heap grew to several times what was live
// (10,000 views: ~295 MB resident with no forced collection, ~27 MB live after one). What grows is
// V8's heap and the buffers it holds, so the trigger is their size (heapTotal + external), not the
// resident size: that stays ~80 MB above the heap (code, malloc arenas), so a resident mark fired
// late. V8's own collector let the heap grow to ~4x what was live (25 → 90 MB) before collecting;
// its growing factor is a launch flag only (`v8.setFlagsFromString` at run time changes nothing).
// A forced collection costs ~35-80 ms, so it runs only above a mark (CollectionPacer), after the
// current call, on a timer that never keeps the process alive. Reads ask every 256 KiB given back
// (core/byte_budget.ts), the search pool after each batch a worker answers (parallel_scan.ts); the
// mark and the pauses are measured in docs/benchmarks.md (memory_bench). Needs no launch flag; a
// no-op where the runtime refuses to expose gc.

import v8 from "node:v8";
import vm from "node:vm";
import { returnFreedMemory } from "../platform/return_memory.ts";
import { quietForMs } from "../../core/call_activity.ts";

/** V8 heap plus the buffers it holds (heapTotal + external) at which reads ask for a collection. */
const PRESSURE_BYTES = 40 * 1024 * 1024;
/**
 * The heap must also have grown this much past what the last collection left: a session whose
 * live heap sits near the mark (its view memory full) is not collected for a few MB each time.
 */
const HEADROOM_BYTES = 16 * 1024 * 1024;
/** At least this many milliseconds between forced collections. */
const COLLECT_INTERVAL_MS = 100;

// Exported for tests.
/**
 * When a forced collection is due, and how long after the last one the next may start. Pure: the
 * caller passes the heap size and the clock.
 */
export class CollectionPacer {
  /** Heap bytes the last collection left (0 before any), lowered when the heap is seen lower. */
  private floor = 0;
  private readyAt = -Infinity;

  constructor(
    private readonly mark = PRESSURE_BYTES,
    private readonly headroom = HEADROOM_BYTES,
  ) {}

  /** Whether a heap of `heapBytes` (heapTotal + external) calls for a collection. */
  due(heapBytes: number): boolean {
    this.floor = Math.min(this.floor, heapBytes); // V8 collected on its own since
    return heapBytes >= Math.max(this.mark, this.floor + this.headroom);
  }

  /** Milliseconds from `now` until the next collection may start. */
  delay(now: number): number {
    return Math.max(0, this.readyAt - now);
  }

  /**
   * A collection of `durationMs` ended at `now`, leaving `heapBytes`. The pause is counted from
   * its end. One that left the heap above the mark freed little (concurrent searches holding
   * their walks): the next waits 9 times as long as it took, or they ran back to back (4
   * searches at once over 100k files: 118 s, not 4). One that brought the heap under the mark is
   * paced by the heap regrowing past the mark and the headroom; it waits 4 times its length, so
   * forced collections take at most a fifth of the time (10,000 views, 100 in flight: the 9x
   * wait let the heap reach 90 MB between collections; 2x cost `view_bench` a third of its speed).
   */
  collected(durationMs: number, heapBytes: number, now: number): void {
    this.floor = heapBytes;
    const factor = heapBytes < this.mark ? 4 : 9;
    this.readyAt = now + Math.max(COLLECT_INTERVAL_MS, factor * durationMs);
  }
}

type Gc = () => unknown;
let gc: Gc | null | undefined;
let pending = false;
let collections = 0;
const pacer = new CollectionPacer();

// Exported for tests.
/** How many forced collections this process ran. */
export function collectionCount(): number {
  return collections;
}

function findGc(): Gc | null {
  try {
    v8.setFlagsFromString("--expose-gc");
    const found = vm.runInNewContext("gc");
    return typeof found === "function" ? found as Gc : null;
  } catch {
    return null;
  }
}

/**
 * V8's heap plus the buffers it holds (Deno.memoryUsage's heapTotal + external, without the
 * resident size it also reads from /proc: 0.6 µs against 7.5, so reads can ask often).
 */
function heapBytes(): number {
  const stats = v8.getHeapStatistics();
  return stats.total_heap_size + stats.external_memory;
}

/** Asks for a full collection soon if the heap is above the pressure mark (coalesced). */
export function requestCollection(): void {
  collectWhenDue(pacer, 0);
}

/**
 * The pacer of the collection after a search. A search's garbage comes all at once: its walk's
 * entries and the workers' answers, copied into this thread, are dead once the reply is out. V8
 * left them for its next full collection, and over a node_modules search (20,463 files) this
 * thread's heap went from ~27 MB live to 40 MB between collections; ten searches peaked at
 * 139-146 MB of RSS, 123-124 with this collection (docs/benchmarks.md, memory_bench). Its mark
 * and headroom are lower than the reads' (which ask every 256 KiB, and whose lower mark cost
 * 10,000 views a fifth of their speed), and the pacing is theirs: at most a fifth of the time.
 */
const afterSearchPacer = new CollectionPacer(26 * 1024 * 1024, 6 * 1024 * 1024);

/**
 * After the search's last file: the reply is rendered and written in the turns after this, so
 * the collection waits that long, off the reply's path.
 */
const AFTER_SEARCH_DELAY_MS = 30;

/** Asks for a full collection shortly after a search, when its garbage is worth collecting. */
export function requestCollectionAfterSearch(): void {
  collectWhenDue(afterSearchPacer, AFTER_SEARCH_DELAY_MS);
}

/** The runtime's full collection (found once), or null where it refuses to expose one. */
function fullCollection(): Gc | null {
  if (gc === undefined) gc = findGc();
  return gc;
}

/** Runs `collect` and counts it. */
function collectNow(collect: Gc): void {
  collect();
  collections++;
}

function collectWhenDue(which: CollectionPacer, minDelayMs: number): void {
  if (pending) return;
  if (!which.due(heapBytes())) return;
  const collect = fullCollection();
  if (collect === null) return;
  pending = true;
  const timer = setTimeout(() => {
    pending = false;
    const start = Date.now();
    collectNow(collect);
    const end = Date.now();
    which.collected(end - start, heapBytes(), end);
  }, Math.max(minDelayMs, which.delay(Date.now())));
  Deno.unrefTimer(timer);
}

/** How often a serving process looks whether it is quiet (unref'd: it keeps nothing alive). */
const QUIET_TICK_MS = 500;
/** Quiet: no tool call running, and none ended for this long. */
const QUIET_MS = 1_000;
/** And the heap must have grown this much past what the last quiet collection left. */
const QUIET_GROWTH_BYTES = 2 * 1024 * 1024;

// Exported for tests.
/**
 * When a quiet process's collection is due: no tool call ran for QUIET_MS and the heap grew past
 * what the last one left. Pure: the caller passes the heap and the quiet time at each tick. V8
 * keeps what start-up and each call left (module evaluation, a first search's walk) until its
 * memory reducer runs, 30 s or more later: an idle bundle server held 20 MB of V8 pages 3 s after
 * its first call, 14-15 after a full collection (docs/benchmarks.md). Calls, not the heap, say
 * quiet: a heap that held still between two ticks may be one just collected after a search,
 * with the next search already on its way.
 */
export class QuietCollectionPacer {
  private floor = 0;

  /** `total`: the heap plus the buffers it holds; `quietMs`: since the last call ended. */
  due(total: number, quietMs: number): boolean {
    this.floor = Math.min(this.floor, total); // collected since, by V8 or another pacer
    return quietMs >= QUIET_MS && total >= this.floor + QUIET_GROWTH_BYTES;
  }

  /** A collection left `total`. */
  collected(total: number): void {
    this.floor = total;
  }
}

let quietTimer: ReturnType<typeof setInterval> | undefined;

/**
 * From now on, a full collection (and the allocator's freed pages returned, return_memory.ts)
 * once the process is quiet after start-up, a call or a burst of them; started once by a serving
 * process (`anchorfs mcp`). A collection of the idle server's heap takes ~10-20 ms, in time no
 * call uses; one arriving meanwhile waits that long at most.
 */
export function startQuietCollections(): void {
  if (quietTimer !== undefined) return;
  const quiet = new QuietCollectionPacer();
  quietTimer = setInterval(() => {
    if (pending || !quiet.due(heapBytes(), quietForMs())) return;
    const collect = fullCollection();
    if (collect === null) return;
    collectNow(collect);
    returnFreedMemory();
    quiet.collected(heapBytes());
  }, QUIET_TICK_MS);
  Deno.unrefTimer(quietTimer);
}
