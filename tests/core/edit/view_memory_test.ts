// view_memory.ts (pure): the view memory is bounded by bytes; the oldest files lose their lines and
// keep their fingerprint; an unchanged re-view keeps what it holds.

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

Deno.test("an unchanged re-view keeps the lines already held, and becomes the most recent", () => {
  const lines = Array.from({ length: 50 }, (_, i) => `line ${i}`);
  const memory = new ViewMemory(5_000); // room for two files' lines
  memory.remember("a", "p", lines);
  memory.remember("b", "p", [...lines]);
  const again = lines.map((line) => `${line}`); // equal content, another array
  memory.remember("a", "p", again);
  // The array held since the first view stays (a replacement per re-view is old-space garbage).
  assertEquals(memory.get("a")?.lines === lines, true);
  const before = memory.bytes;
  // "a" is now the most recent: a third file evicts "b"'s lines first.
  memory.remember("c", "p", [...lines]);
  assertEquals(memory.get("b")?.lines, null);
  assertEquals(memory.get("a")?.lines === lines, true);
  assertEquals(memory.bytes <= 5_000, true, `${memory.bytes} (was ${before})`);
  // Changed content (same fingerprint string or not) replaces the lines.
  const changed = [...lines.slice(0, 49), "other"];
  memory.remember("a", "p", changed);
  assertEquals(memory.get("a")?.lines, changed);
  memory.remember("a", "q", [...changed]);
  assertEquals(memory.get("a")?.print, "q");
});
