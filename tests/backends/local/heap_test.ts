// heap.ts's CollectionPacer (pure): a forced collection is due at the mark and, after one, only
// once the heap grew the headroom past what it left; the next waits 4 times the last one's length
// when it brought the heap under the mark, 9 times when it did not.

import { assertEquals } from "../../_assert.ts";
import { CollectionPacer } from "../../../lib/backends/local/heap.ts";

const MB = 1024 * 1024;

Deno.test("a collection is due at the mark, then only past what the last left plus the headroom", () => {
  const pacer = new CollectionPacer(40 * MB, 16 * MB);
  assertEquals([pacer.due(39 * MB), pacer.due(40 * MB)], [false, true]);
  pacer.collected(40, 30 * MB, 1_000);
  // 30 MB live: collecting at 40 would free 10 MB; wait for 46.
  assertEquals([pacer.due(45 * MB), pacer.due(46 * MB)], [false, true]);
  // A heap seen lower (V8 collected on its own) lowers what the headroom counts from.
  assertEquals(pacer.due(26 * MB), false);
  assertEquals([pacer.due(41 * MB), pacer.due(42 * MB)], [false, true]);
});

Deno.test("a collection that brought the heap under the mark is followed after 4 times its length", () => {
  const pacer = new CollectionPacer(40 * MB, 16 * MB);
  assertEquals(pacer.delay(0), 0);
  pacer.collected(60, 25 * MB, 1_000);
  assertEquals([pacer.delay(1_000), pacer.delay(1_200), pacer.delay(1_300)], [240, 40, 0]);
  // Never sooner than 100 ms after a short one.
  pacer.collected(20, 25 * MB, 2_000);
  assertEquals(pacer.delay(2_000), 100);
});

Deno.test("a collection that left the heap above the mark is followed after 9 times its length", () => {
  const pacer = new CollectionPacer(40 * MB, 16 * MB);
  pacer.collected(200, 180 * MB, 1_000);
  assertEquals(pacer.delay(1_000), 1_800);
  assertEquals([pacer.due(190 * MB), pacer.due(196 * MB)], [false, true]);
});
