// Which search workers have grown and should be tidied after a search (parallel_scan.ts): each
// worker's heap as it last reported it, whether it can collect that heap itself, and whether it
// is due. Indexed like the pool's workers; the pool decides how to tidy (a collection in place,
// or a fresh worker).

/**
 * A worker whose V8 heap and the buffers it holds (as it reports with each batch) have grown past
 * this is tidied after a search: collected in place by its own `gc` (the launch flag
 * --expose-gc, compile.ts V8_FLAGS), or else replaced by a fresh worker. A worker starts at ~10
 * MB; over a burst of searches V8 let it grow to 15-27 MB (its limit rises with each collection
 * over the strings a search decodes), and the server's peak crept with it: 20 regex searches of
 * a node_modules tree (20,463 files) back to back peaked at 146-174 MB after the twentieth,
 * 125-129 either way. A fresh worker compiles its hot code again (those 20: ~10 % more time);
 * one collected in place keeps it (no time measured). Searches seconds apart pay nothing.
 */
export const GROWN_HEAP_BYTES = 12 * 1024 * 1024;

interface Health {
  /** Its V8 heap after its last batch, 0 before its first and after it was tidied. */
  heap: number;
  /** Whether it can collect its own heap (said with each batch answer). */
  collects: boolean;
  /** To be tidied once free: past the mark when a search stopped. */
  due: boolean;
}

const fresh = (): Health => ({ heap: 0, collects: false, due: false });

export class WorkerHealth {
  private states: Health[] = [];

  constructor(private readonly mark = GROWN_HEAP_BYTES) {}

  /** A worker added at the end of the pool. */
  add(): void {
    this.states.push(fresh());
  }

  /** Worker `w` is a new one, in the place of one replaced. */
  reset(w: number): void {
    this.states[w] = fresh();
  }

  /** The pool has no workers now. */
  clear(): void {
    this.states = [];
  }

  /** Worker `w` answered a batch, with its heap then and whether it can collect it. */
  answered(w: number, heap: number, collects: boolean): void {
    const s = this.states[w]!;
    s.heap = heap;
    s.collects = collects;
  }

  /** Each worker's heap as it said with its last answer (tests, benchmarks). */
  heaps(): number[] {
    return this.states.map((s) => s.heap);
  }

  /** A search stopped: the workers past the mark are due. True when any is. */
  markGrown(): boolean {
    for (const s of this.states) if (s.heap > this.mark) s.due = true;
    return this.states.some((s) => s.due);
  }

  due(w: number): boolean {
    return this.states[w]?.due === true;
  }

  collects(w: number): boolean {
    return this.states[w]?.collects === true;
  }

  /** Worker `w` was tidied (its heap is unknown until it answers again), or is kept as it is. */
  settled(w: number): void {
    const s = this.states[w]!;
    s.due = false;
    s.heap = 0;
  }
}
