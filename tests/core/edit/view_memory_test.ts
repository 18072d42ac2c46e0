// view_memory.ts (pure): the view memory is bounded by bytes; the oldest files lose their lines and
// keep their fingerprint.

import { assertEquals } from "../../_assert.ts";
import { ViewMemory } from "../../../lib/core/edit/view_memory.ts";

Deno.test("view memory is bounded by bytes: the oldest files lose their lines, keep their fingerprint", () => {
  const memory = new ViewMemory(10_000);
  const lines = Array.from({ length: 50 }, (_, i) => `line ${i}`); // ~50 × (14 + 32) bytes
  for (let f = 0; f < 10; f++) memory.remember(`f${f}`, `print${f}`, lines);
  assertEquals(memory.bytes <= 10_000, true, `${memory.bytes} bytes`);
  assertEquals(memory.get("f0")?.lines, null);
  assertEquals(memory.get("f0")?.print, "print0");
  assertEquals(memory.get("f9")?.lines?.length, 50);
  // A file larger than the whole budget keeps its fingerprint only.
  memory.remember("huge", "p", Array.from({ length: 1000 }, () => "x".repeat(20)));
  assertEquals(memory.get("huge")?.lines, null);
  assertEquals(memory.get("f9")?.lines?.length, 50);
  memory.forget("f9");
  assertEquals(memory.get("f9"), undefined);
  assertEquals(memory.bytes >= 0, true);
});
