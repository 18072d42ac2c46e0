// Read buffers a reader made for one caller alone, which that caller may free as soon as it is
// done with them instead of at V8's next full collection. A ranged view reads the whole file
// (110 KB of a 2,000-line file) to show 100 lines; with 50 views in flight, such dead buffers
// (promoted before they died, so freed only by a full collection) made 50-75 MB of malloc's heap
// at the peak (10,000 views, memory_bench). Freeing is detaching the buffer
// (ArrayBuffer.prototype.transfer), so only a buffer marked here is freed: one shared with
// others (a pooled Node Buffer, a cache's copy) never is.

const handedOver = new WeakSet<ArrayBuffer>();

/**
 * Marks `bytes` as their caller's alone: nothing else refers to their buffer, so the caller may
 * free it with {@linkcode freeHandedOver}. Returns `bytes`.
 *
 * @example
 * ```ts
 * const bytes = handOver(new Uint8Array(8));
 * freeHandedOver(bytes);
 * bytes.length; // 0: freed
 * ```
 */
export function handOver(bytes: Uint8Array): Uint8Array {
  if (bytes.buffer instanceof ArrayBuffer) handedOver.add(bytes.buffer);
  return bytes;
}

/**
 * Frees the buffer of handed-over `bytes` now: they, and every view of the same buffer, then
 * read as empty, so call it only once nothing of the read is used. Bytes not handed over are
 * left to the collector.
 */
export function freeHandedOver(bytes: Uint8Array): void {
  const buffer = bytes.buffer;
  if (!(buffer instanceof ArrayBuffer) || !handedOver.has(buffer)) return;
  handedOver.delete(buffer);
  // Where the runtime lacks transfer (older engines), the collector frees it as before.
  if (typeof buffer.transfer === "function" && !buffer.detached) buffer.transfer(0);
}
