// undo_store.ts with blobs: past the memory bound the oldest levels are written out and read back
// by undo byte for byte; a write that fails keeps the bytes in memory; bytes that cannot be read
// back are a clear error that drops that level; dropped levels forget what they wrote.

import { assert, assertEquals, assertRejects } from "../../_assert.ts";
import { AnchorError } from "../../../lib/core/errors.ts";
import { UndoStore } from "../../../lib/ops/edit/undo_store.ts";
import type { UndoBlobs } from "../../../lib/ops/ports/undo_blobs.ts";

/** Blobs in a map, with switches for failures; `dropped` lists the handles forgotten. */
class MapBlobs implements UndoBlobs {
  readonly kept = new Map<string, Uint8Array>();
  readonly dropped: string[] = [];
  failPuts = false;
  failGets = false;
  private n = 0;
  put(bytes: Uint8Array): Promise<string | null> {
    if (this.failPuts) return Promise.resolve(null);
    const handle = `b${this.n++}`;
    this.kept.set(handle, bytes.slice());
    return Promise.resolve(handle);
  }
  get(handle: string): Promise<Uint8Array> {
    const bytes = this.kept.get(handle);
    if (this.failGets || !bytes) return Promise.reject(new Error("gone"));
    return Promise.resolve(bytes.slice());
  }
  drop(handle: string): void {
    this.dropped.push(handle);
    this.kept.delete(handle);
  }
  close(): Promise<void> {
    this.kept.clear();
    return Promise.resolve();
  }
}

const settle = () => new Promise((r) => setTimeout(r, 0));
const bytesOf = (level: number) => new Uint8Array(1000).fill(level);
const entry = (before: Uint8Array | null) => ({
  action: "str_replace",
  before,
  mode: null,
  after: { size: 1, fingerprint: 1 },
  url: "a.txt",
});

Deno.test("past the memory bound the oldest levels are written out, and undo reads each back whole", async () => {
  const blobs = new MapBlobs();
  const store = new UndoStore(20, 1 << 30, 10, blobs, 3000);
  store.push("other", entry(null)); // created a file: no bytes
  for (let level = 1; level <= 12; level++) store.push("a", entry(bytesOf(level)));
  for (let i = 0; i < 20; i++) await settle();
  assert(store.bytesInMemory <= 3000, `${store.bytesInMemory} bytes in memory`);
  assertEquals(blobs.kept.size, 9); // 12 levels, 3 of them in memory
  for (let level = 12; level >= 1; level--) {
    assertEquals((await store.peek("a"))?.before, bytesOf(level));
    store.pop("a");
  }
  assertEquals(store.depth("a"), 0);
  assertEquals(blobs.kept.size, 0); // every level popped forgot its file
  assertEquals((await store.peek("other"))?.before, null);
});

Deno.test("a write out that fails keeps the bytes in memory, and undo still has them", async () => {
  const blobs = new MapBlobs();
  blobs.failPuts = true;
  const store = new UndoStore(20, 1 << 30, 10, blobs, 1000);
  for (let level = 1; level <= 4; level++) store.push("a", entry(bytesOf(level)));
  for (let i = 0; i < 10; i++) await settle();
  assertEquals(store.bytesInMemory, 4000);
  assertEquals((await store.peek("a"))?.before, bytesOf(4));
  store.pop("a");
  assertEquals((await store.peek("a"))?.before, bytesOf(3));
});

Deno.test("bytes that cannot be read back: an error naming the file, and that level is dropped", async () => {
  const blobs = new MapBlobs();
  const store = new UndoStore(20, 1 << 30, 10, blobs, 0);
  store.push("a", entry(bytesOf(1)));
  store.push("a", entry(bytesOf(2)));
  for (let i = 0; i < 10; i++) await settle();
  assertEquals(store.bytesInMemory, 0);
  blobs.failGets = true;
  const e = await assertRejects(() => store.peek("a"));
  assert(e instanceof AnchorError);
  assert(e.message.includes("a.txt") && e.message.includes("not be read back"), e.message);
  assertEquals(store.depth("a"), 1);
  blobs.failGets = false;
  assertEquals((await store.peek("a"))?.before, bytesOf(1));
});

Deno.test("levels dropped past the per-file count, or cleared, forget their written bytes", async () => {
  const blobs = new MapBlobs();
  const store = new UndoStore(3, 1 << 30, 2, blobs, 0);
  for (let level = 1; level <= 5; level++) {
    store.push("a", entry(bytesOf(level)));
    for (let i = 0; i < 5; i++) await settle();
  }
  assertEquals(store.depth("a"), 3);
  assertEquals(blobs.kept.size, 3);
  assertEquals(blobs.dropped.length, 2);
  store.clear();
  assertEquals(blobs.kept.size, 0);
  assertEquals(store.depth("a"), 0);
  assertEquals(store.bytesInMemory, 0);
});
