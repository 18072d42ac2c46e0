// A bounded cache of outlines by content: a key (the text's hash and its language) maps to what
// parsing it gave. Least recently used entries go first once the entry count or the total weight
// (declarations held) is past its bound, so memory stays bounded however many files are seen.
// Pure: the caller hashes.

export class OutlineCache<T> {
  readonly #entries = new Map<string, { value: T; weight: number }>();
  #weight = 0;

  constructor(readonly maxEntries = 256, readonly maxWeight = 200_000) {}

  get(key: string): T | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    // Map keeps insertion order: re-inserting makes this the most recently used.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` unless its weight alone is past the bound. */
  set(key: string, value: T, weight: number): void {
    const old = this.#entries.get(key);
    if (old) {
      this.#entries.delete(key);
      this.#weight -= old.weight;
    }
    if (weight > this.maxWeight) return;
    this.#entries.set(key, { value, weight });
    this.#weight += weight;
    for (const [k, e] of this.#entries) {
      if (this.#entries.size <= this.maxEntries && this.#weight <= this.maxWeight) break;
      this.#entries.delete(k);
      this.#weight -= e.weight;
    }
  }

  get size(): number {
    return this.#entries.size;
  }

  get weight(): number {
    return this.#weight;
  }
}
