// A process-wide bound on bytes held in memory at once: reads take what they will hold and give it
// back, waiting in order when the budget is spent. Pure (no I/O, no clock); the composition root
// passes what reclaims memory.

/**
 * After this many bytes of reads were given back, the budget asks for a full collection (the ask
 * only reads the heap's size, under a microsecond). Small views read a few KB each: at 2 MiB the
 * heap grew ~7 MB between asks (10,000 views of 300 small files, 100 in flight).
 */
const RECLAIM_EVERY_BYTES = 256 * 1024;

/**
 * A counting semaphore over bytes. A call takes what it will hold (clamped to the capacity, so
 * one read larger than the budget still runs, alone) and gives it back when done; waiters are
 * served first come, first served so a big read is not starved by a stream of small ones.
 */
export class ByteBudget {
  private used = 0;
  private readonly waiters: { bytes: number; wake: () => void }[] = [];
  private released = 0;

  /**
   * `reclaim` (a request for a full garbage collection, from the composition root; it decides
   * when) is called after every `reclaimEveryBytes` given back: what big reads leave behind is
   * garbage V8 would otherwise let pile up for a long while.
   */
  constructor(
    readonly capacity: number,
    private readonly options: { reclaim?: () => void; reclaimEveryBytes?: number } = {},
  ) {}

  /** Bytes taken right now (for tests and benchmarks). */
  get inUse(): number {
    return this.used;
  }

  async use<T>(bytes: number, body: () => Promise<T>): Promise<T> {
    const release = await this.take(bytes);
    try {
      return await body();
    } finally {
      release();
    }
  }

  /**
   * Takes `bytes` (waiting for room) and returns the function that gives them back, for a hold
   * that outlives one call (a reply held until it is written). Calling it twice is harmless.
   */
  async take(bytes: number, signal?: AbortSignal): Promise<() => void> {
    const take = Math.min(Math.max(0, Math.ceil(bytes)), this.capacity);
    if (this.waiters.length > 0 || this.used + take > this.capacity) {
      // A cancelled call leaves the queue (it rejects with the signal's reason) instead of
      // waiting for bytes it no longer needs.
      signal?.throwIfAborted();
      await new Promise<void>((wake, reject) => {
        const waiter = {
          bytes: take,
          wake: () => {
            signal?.removeEventListener("abort", onAbort);
            wake();
          },
        };
        const onAbort = () => {
          const at = this.waiters.indexOf(waiter);
          if (at === -1) return; // already woken: the bytes are ours, the caller gives them back
          this.waiters.splice(at, 1);
          this.wakeWaiters(); // a smaller waiter behind this one may fit now
          reject(signal!.reason);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        this.waiters.push(waiter);
      });
    } else {
      this.used += take;
    }
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.used -= take;
      this.wakeWaiters();
      this.noteReleased(take);
    };
  }

  private noteReleased(bytes: number): void {
    const reclaim = this.options.reclaim;
    if (!reclaim) return;
    this.released += bytes;
    if (this.released < (this.options.reclaimEveryBytes ?? RECLAIM_EVERY_BYTES)) return;
    this.released = 0;
    reclaim();
  }

  private wakeWaiters(): void {
    while (this.waiters.length > 0) {
      const next = this.waiters[0]!;
      if (this.used + next.bytes > this.capacity && this.used > 0) return;
      this.waiters.shift();
      this.used += next.bytes;
      next.wake();
    }
  }
}
