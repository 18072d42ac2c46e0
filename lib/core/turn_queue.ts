// One holder at a time, first come first served: a caller takes its turn, works across as many
// awaits as it needs, and lets the next one go. Pure (promises only).

export class TurnQueue {
  #tail: Promise<void> = Promise.resolve();
  #queued = 0;

  /** Turns taken and not yet ended, the one under way included (for tests and benchmarks). */
  get queued(): number {
    return this.#queued;
  }

  /**
   * Waits until every turn taken before this one has ended, then resolves to the function that
   * ends this one. Calling it twice is harmless; a turn never ended holds every later one.
   * `signal` aborted while waiting: rejects at once with its reason, and the turn, when it
   * comes, ends itself (a cancelled caller neither waits out the turns before it nor holds up
   * the ones after).
   */
  take(signal?: AbortSignal): Promise<() => void> {
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const before = this.#tail;
    this.#tail = before.then(() => ended);
    this.#queued++;
    let held = true;
    const finish = () => {
      if (!held) return;
      held = false;
      this.#queued--;
      end();
    };
    const turn = before.then(() => {
      if (signal?.aborted) {
        finish();
        throw signal.reason;
      }
      return finish;
    });
    if (!signal) return turn;
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      turn.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
  }
}
