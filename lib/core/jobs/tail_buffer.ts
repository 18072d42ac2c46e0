// A fixed-size ring of the last N bytes written to it: memory stays constant however much output
// flows through. Local jobs do not need it (the child writes its log file directly, no byte passes
// through the server); it is the building block for output that must stream through us (a pipe
// relay, remote commands). Pure: no I/O.

// Exported for tests.
export class TailBuffer {
  private readonly ring: Uint8Array;
  /** Next write position in `ring`. */
  private head = 0;
  /** Bytes currently held (≤ capacity). */
  private held = 0;
  /** Every byte ever pushed, including those that fell out of the ring. */
  private total = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity <= 0) {
      throw new RangeError(`TailBuffer capacity must be a positive integer, got ${capacity}`);
    }
    this.ring = new Uint8Array(capacity);
  }

  /** Appends bytes; only the last `capacity` bytes are kept. */
  push(bytes: Uint8Array): void {
    this.total += bytes.length;
    let chunk = bytes;
    if (chunk.length >= this.capacity) {
      chunk = chunk.subarray(chunk.length - this.capacity);
      this.ring.set(chunk, 0);
      this.head = 0;
      this.held = this.capacity;
      return;
    }
    const first = Math.min(chunk.length, this.capacity - this.head);
    this.ring.set(chunk.subarray(0, first), this.head);
    this.ring.set(chunk.subarray(first), 0);
    this.head = (this.head + chunk.length) % this.capacity;
    this.held = Math.min(this.capacity, this.held + chunk.length);
  }

  /** Total bytes pushed so far. */
  get totalBytes(): number {
    return this.total;
  }

  /** Bytes pushed that are no longer held. */
  get droppedBytes(): number {
    return this.total - this.held;
  }

  /** The held bytes in order, oldest first (a copy). */
  bytes(): Uint8Array {
    const out = new Uint8Array(this.held);
    const start = (this.head - this.held + this.capacity) % this.capacity;
    const first = Math.min(this.held, this.capacity - start);
    out.set(this.ring.subarray(start, start + first), 0);
    out.set(this.ring.subarray(0, this.held - first), first);
    return out;
  }

  clear(): void {
    this.head = 0;
    this.held = 0;
  }
}
