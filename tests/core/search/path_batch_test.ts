// path_batch.ts (pure): a batch built from prefixes and names gives back every path in order,
// each prefix kept once while it repeats (property test), and a full batch refuses more.

import fc from "fast-check";
import { assert, assertEquals, assertThrows } from "../../_assert.ts";
import { batchOfPaths, pathAt, PathBatchBuilder } from "../../../lib/core/search/path_batch.ts";

Deno.test("PathBatchBuilder: each file's path comes back in order, a prefix stored once while it repeats", () => {
  const files = fc.array(
    fc.tuple(fc.constantFrom("/", "/r/", "/r/a/", "C:\\r\\", ""), fc.string({ minLength: 1 })),
    { minLength: 1, maxLength: 300 },
  );
  fc.assert(fc.property(files, fc.integer({ min: 1, max: 300 }), (list, capacity) => {
    const builder = new PathBatchBuilder(capacity);
    const batches = [];
    for (const [prefix, name] of list) {
      if (builder.full) batches.push(builder.take());
      builder.add(prefix, name);
    }
    if (builder.length > 0) batches.push(builder.take());
    const paths = batches.flatMap((b) => b.names.map((_, i) => pathAt(b, i)));
    assertEquals(paths, list.map(([prefix, name]) => prefix + name));
    for (const b of batches) {
      assert(b.names.length <= capacity);
      assertEquals(b.dirOf.length, b.names.length);
      // A prefix is stored again only after another one came between.
      for (let k = 1; k < b.prefixes.length; k++) assert(b.prefixes[k] !== b.prefixes[k - 1]);
    }
  }));
});

Deno.test("PathBatchBuilder: a full batch refuses another file until taken, and capacity is 16-bit", () => {
  const builder = new PathBatchBuilder(2);
  builder.add("/r/", "a");
  builder.add("/r/", "b");
  assert(builder.full);
  const refused = assertThrows(() => builder.add("/r/", "c"));
  assert(refused instanceof RangeError && refused.message.includes("take() it first"));
  const taken = builder.take();
  assertEquals([taken.prefixes, taken.names, [...taken.dirOf]], [["/r/"], ["a", "b"], [0, 0]]);
  assertEquals(builder.length, 0);
  builder.add("/s/", "c");
  assertEquals(pathAt(builder.take(), 0), "/s/c");
  assert(assertThrows(() => new PathBatchBuilder(65_537)) instanceof RangeError);
  assert(assertThrows(() => new PathBatchBuilder(0)) instanceof RangeError);
  new PathBatchBuilder(65_536).add("/", "x"); // the largest index still fits
});

Deno.test("batchOfPaths: whole paths under one empty prefix", () => {
  const batch = batchOfPaths(["/a/b.txt", "rel.txt"]);
  assertEquals([pathAt(batch, 0), pathAt(batch, 1)], ["/a/b.txt", "rel.txt"]);
});
