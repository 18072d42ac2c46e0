// heap.ts's CollectionPacer (pure): a forced collection is due at the mark and, after one, only
// once the heap grew the headroom past what it left; the next waits 4 times the last one's length
// when it brought the heap under the mark, 9 times when it did not.

import { assertEquals } from "../../_assert.ts";
import {
  collectionCount,
  CollectionPacer,
  QuietCollectionPacer,
  startQuietCollections,
} from "../../../lib/backends/local/heap.ts";
import { callEnded, callStarted, quietForMs } from "../../../lib/core/call_activity.ts";

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

Deno.test("a quiet collection is due after a second with no call, once the heap grew 2 MB past the last", () => {
  const pacer = new QuietCollectionPacer();
  // A call running (0) or one that ended under a second ago: not quiet, however big the heap.
  assertEquals([pacer.due(40 * MB, 0), pacer.due(40 * MB, 999)], [false, false]);
  assertEquals(pacer.due(40 * MB, 1_000), true);
  pacer.collected(14 * MB);
  // Quiet, but it has not grown since: nothing to collect, however long it idles.
  assertEquals([pacer.due(14 * MB, 5_000), pacer.due(15 * MB, 60_000)], [false, false]);
  assertEquals(pacer.due(16 * MB, 1_500), true);
  // A heap seen lower (collected by V8 or after a search) counts from there.
  pacer.collected(14 * MB);
  assertEquals([pacer.due(10 * MB, 2_000), pacer.due(11 * MB, 2_000)], [false, false]);
  assertEquals(pacer.due(12 * MB, 2_000), true);
});

Deno.test("the calls in flight and the time since the last one ended say how long the process is quiet", () => {
  callStarted();
  callStarted();
  assertEquals(quietForMs(), 0);
  callEnded();
  assertEquals(quietForMs(), 0, "one call still runs");
  const before = performance.now();
  callEnded();
  const after = performance.now();
  const quiet = quietForMs(after + 1_500);
  assertEquals(quiet >= 1_500 && quiet <= 1_500 + (after - before), true, `${quiet} ms`);
});

Deno.test({
  name: "a serving process collects once it is quiet after allocating",
  // The collections' timer runs for the life of the process (unref'd), past this test.
  sanitizeOps: false,
  async fn() {
    // A call runs: no collection while it does, however long and however much garbage.
    callStarted();
    startQuietCollections();
    const before = collectionCount();
    // Garbage the way a call leaves it: 8 MB of strings, dead once this block ends.
    {
      const held: string[] = [];
      for (let i = 0; i < 8_000; i++) held.push(`${i}`.padEnd(1024, "x"));
      assertEquals(held.length, 8_000);
    }
    await new Promise((r) => setTimeout(r, 2_500));
    assertEquals(collectionCount(), before, "collected while a call ran");
    callEnded();
    const deadline = Date.now() + 20_000;
    while (collectionCount() === before && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assertEquals(collectionCount() > before, true, "no collection within 20 s of quiet");
  },
});
