// Serializes edits to the same file inside the server: read, plan, write and the undo record of
// one edit finish before the next edit of that file starts. Keyed by fileKey (backend + path).

export class FileLocks {
  private tails = new Map<string, Promise<void>>();

  /** Runs `body` after every earlier body for `key` has settled. */
  async run<T>(key: string, body: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    await previous;
    try {
      return await body();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Runs `body` holding the locks of several files, taken in a fixed order (no deadlock). */
  runAll<T>(keys: readonly string[], body: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(keys)].sort();
    const step = (i: number): Promise<T> =>
      i === sorted.length ? body() : this.run(sorted[i]!, () => step(i + 1));
    return step(0);
  }
}
