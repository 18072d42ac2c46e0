// recover.ts and outline_cache.ts (pure): blanked lines keep every offset, the next statement is
// found again, and the outline cache drops its least recently used entries.

import { assertEquals } from "../../_assert.ts";
import { blankLines, resyncLine } from "../../../lib/core/outline/recover.ts";
import { OutlineCache } from "../../../lib/core/outline/outline_cache.ts";

Deno.test("blankLines keeps every offset and line end; resyncLine finds the next statement", () => {
  const text = "a(\r\n  b\n  c)\nd\n";
  const blank = blankLines(text, 1, 2);
  assertEquals(blank, "  \r\n   \n  c)\nd\n");
  assertEquals(blank.length, text.length);
  assertEquals(blankLines(text, 5, 6), text);
  const src = "class A {\n  bad(x {\n    if (x {\n  }\n\n  good() {}\n}\nfunction f() {}\n";
  assertEquals(resyncLine(src, 2), 6); // skips the deeper lines, the closing brace and the blank
  assertEquals(resyncLine(src, 1), 8);
  assertEquals(resyncLine(src, 8), null);
});

Deno.test("OutlineCache drops the least recently used entries past its count or weight", () => {
  const cache = new OutlineCache<string>(2, 10);
  cache.set("a", "A", 4);
  cache.set("b", "B", 4);
  assertEquals(cache.get("a"), "A"); // a is now the most recent
  cache.set("c", "C", 4); // over both bounds: b goes
  assertEquals([cache.get("b"), cache.get("a"), cache.get("c")], [undefined, "A", "C"]);
  cache.set("d", "D", 9); // weight: a and c go
  assertEquals([cache.size, cache.weight, cache.get("d")], [1, 9, "D"]);
  cache.set("huge", "H", 11); // heavier than the bound: not kept, nothing else lost
  assertEquals([cache.get("huge"), cache.get("d")], [undefined, "D"]);
});
