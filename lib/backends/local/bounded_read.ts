// The buffer of a read that stops one byte past a bound whatever the file's stat said: a /proc
// file states 0 bytes (/proc/self/pagemap then reads for gigabytes) and a log grows while it is
// read. Only buffer bookkeeping: the caller does the reads, synchronous or not.

import { fileTooLargeToRead } from "../../core/read_refusals.ts";

// Exported for tests.
/** Bytes read past the stat's size at a time, to learn whether the file really ends there. */
export const PROBE_BYTES = 64 * 1024;
// Exported for tests.
/**
 * Room left past the stat's size in the buffer itself, so that the read which finds the end asks
 * for these few bytes instead of a fresh 64 KiB probe: a probe per read was most of what 100
 * views in flight allocated (10,000 views of small files: malloc heap +50 MB at its peak).
 * A multiple of 8, as every read must be (the page map below).
 */
export const END_CHECK_BYTES = 8;

/**
 * One bounded read: ask {@linkcode BoundedRead.next} where to read, report the count to
 * {@linkcode BoundedRead.took} until {@linkcode BoundedRead.done}, then take
 * {@linkcode BoundedRead.bytes}. The buffer is sized from the stat, so a file that ends there
 * costs one read and one empty read of {@linkcode END_CHECK_BYTES}; past it, reads go through a 64 KiB probe and the buffer
 * grows, never beyond `max + 1` bytes. Reads ask for whole blocks (the buffer's room up to `max`,
 * or the full probe), never for an odd tail: /proc/self/pagemap refuses reads that are not a
 * multiple of 8 bytes (EINVAL).
 *
 * @example
 * ```ts
 * const read = new BoundedRead(0, 4); // stat says 0 bytes; at most 4 wanted
 * while (!read.done) {
 *   const [buf, at, length] = read.next();
 *   buf.fill(7, at, at + length); // a file that never ends
 *   read.took(length);
 * }
 * read.bytes().length; // 5: one byte more than 4, so the file holds more
 * ```
 */
export class BoundedRead {
  private buf: Uint8Array;
  private filled = 0;
  private probe: Uint8Array | undefined;
  /** Whether the read `next` gave goes into the buffer (else into the probe). */
  private intoBuffer = true;
  /** Set once the file ended or more than `max` bytes came. */
  done = false;

  /** `size`: what the stat said; `max`: the most bytes wanted (Infinity: to the end). */
  constructor(size: number, private readonly max: number) {
    this.buf = new Uint8Array(Math.min(Math.max(size, 0) + END_CHECK_BYTES, max + 1));
  }

  /** Where the next read goes: [buffer, offset, length]. */
  next(): [Uint8Array, number, number] {
    const room = Math.min(this.buf.length, this.max) - this.filled;
    this.intoBuffer = room > 0;
    if (room > 0) return [this.buf, this.filled, room];
    this.probe ??= new Uint8Array(PROBE_BYTES);
    return [this.probe, 0, PROBE_BYTES];
  }

  /** The count of the read made where `next` said (0: the end of the file). */
  took(n: number): void {
    if (n === 0) {
      this.done = true;
      return;
    }
    if (this.intoBuffer) {
      this.filled += n;
      return;
    }
    // Past the buffer (the stat's size, or `max`): the file is longer than its stat said.
    const keep = Math.min(n, this.max + 1 - this.filled);
    if (this.filled + keep > this.buf.length) {
      const grown = new Uint8Array(
        Math.min(Math.max(this.buf.length * 2, this.filled + keep + PROBE_BYTES), this.max + 1),
      );
      grown.set(this.buf.subarray(0, this.filled));
      this.buf = grown;
    }
    this.buf.set(this.probe!.subarray(0, keep), this.filled);
    this.filled += keep;
    if (this.filled > this.max) this.done = true;
  }

  /** What was read: at most `max` bytes, or `max + 1` when the file holds more. */
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.filled);
  }
}

/**
 * One file of a bulk read (readFiles), from its stat's `size` and `readUpTo` (reads at most
 * `max + 1` bytes): unread when the stat is over `skipLargerThan` (FILE_TOO_LARGE), else its head
 * with the full size, or the whole file, refused when it turned out bigger than the limit.
 */
export function readBulkOne(
  path: string,
  size: number,
  options: { headBytes?: number; skipLargerThan?: number },
  readUpTo: (max: number) => Uint8Array,
): { path: string; data: Uint8Array; size: number } {
  const head = options.headBytes;
  const limit = options.skipLargerThan;
  if (limit !== undefined && size > limit) throw fileTooLargeToRead(path, size, limit);
  const data = readUpTo(head ?? limit ?? Infinity);
  if (head !== undefined) {
    return { path, data: data.subarray(0, head), size: Math.max(size, data.length) };
  }
  if (limit !== undefined && data.length > limit) {
    throw fileTooLargeToRead(path, data.length, limit, size);
  }
  return { path, data, size: data.length };
}
