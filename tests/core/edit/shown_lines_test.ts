// shown_lines.ts (pure): the memory of lines handed out is recorded from report rows, bounded by
// bytes (oldest files first), and an evicted line is verified by its hash alone; recording a
// whole view leaves what forget + recordWithPrints would, whatever was held.

import { assert, assertEquals, assertThrows } from "../../_assert.ts";
import {
  linePrint,
  SHOWN_FILE_BYTES,
  SHOWN_LINE_BYTES,
  ShownLines,
  type ShownMemory,
} from "../../../lib/core/edit/shown_lines.ts";
import { planLineEdits } from "../../../lib/core/edit/edit_plan.ts";
import type { EditOp } from "../../../lib/core/edit/edit_ops.ts";
import type { TextDoc } from "../../../lib/core/text/text_file.ts";
import { hashLine, renderLine } from "../../../lib/core/edit/line_id.ts";

Deno.test("recordRendered takes report rows and the 'is now at' list, checking each hash", () => {
  const shown = new ShownLines();
  const tricky = "a, 9:00|b"; // content that looks like another list entry
  const report = [
    "start 3:00: line 3 no longer has hash 00.",
    renderLine(2, "two"),
    `Content with hash 5e is now at: ${renderLine(40, "x")}, ${renderLine(7, tricky)}, ${
      renderLine(90, "y")
    } (nearest first; an 8-bit hash can collide, check the content).`,
    "12:ff|not the content of that hash",
  ].join("\n");
  shown.recordRendered("f", report);
  assertEquals(shown.shownHash("f", 2), hashLine("two"));
  assertEquals(shown.shownHash("f", 40), hashLine("x"));
  assertEquals(shown.shownHash("f", 7), hashLine(tricky));
  assertEquals(shown.shownHash("f", 90), hashLine("y"));
  assertEquals(shown.shownHash("f", 9), undefined);
  assertEquals(shown.shownHash("f", 12), undefined);
});

Deno.test("the memory is bounded by bytes: files shown longest ago go first", () => {
  // Room for about 100 lines.
  const shown = new ShownLines(100 * SHOWN_LINE_BYTES + 2 * SHOWN_FILE_BYTES);
  shown.record("a", 1, Array(60).fill(1));
  shown.record("b", 1, Array(30).fill(2));
  assert(shown.hasFile("a") && shown.hasFile("b"));
  shown.record("c", 1, Array(30).fill(3));
  assert(!shown.hasFile("a"), "the oldest file is forgotten whole");
  assert(shown.evictedFrom("a"));
  assert(shown.hasFile("b") && shown.hasFile("c"));
  assert(!shown.evictedFrom("b"));
  assert(shown.bytes <= 100 * SHOWN_LINE_BYTES + 2 * SHOWN_FILE_BYTES);
  // Shown again later, its memory stays marked: lines shown before eviction are not "never shown".
  shown.record("a", 50, [7]);
  assert(shown.evictedFrom("a"));
  // A write starts the memory anew: nothing was lost since.
  shown.replaceFile("a", [1, 2]);
  assert(!shown.evictedFrom("a"));
});

Deno.test("one file above the bound loses its oldest lines, marked as evicted", () => {
  const shown = new ShownLines(50 * SHOWN_LINE_BYTES + SHOWN_FILE_BYTES);
  shown.recordWithPrints("f", 1, Array(80).fill(5), Array(80).fill(99));
  assertEquals(shown.shownHash("f", 1), undefined);
  assertEquals(shown.shownHash("f", 80), 5);
  assertEquals(shown.shownFingerprint("f", 80), 99);
  assert(shown.evictedFrom("f"));
});

Deno.test("an evicted line is verified by its hash alone, never refused as unshown", () => {
  const lines = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`);
  const doc: TextDoc = { encoding: "utf-8", bom: false, lines, eols: lines.map(() => "\n") };
  const shown = new ShownLines(20 * SHOWN_LINE_BYTES + SHOWN_FILE_BYTES);
  shown.recordWithPrints("f", 1, lines.map(hashLine), lines.map(linePrint)); // keeps 21-40
  const memory = (): ShownMemory => ({
    known: shown.hasFile("f"),
    evicted: shown.evictedFrom("f"),
    hashAt: (n) => shown.shownHash("f", n),
    printAt: (n) => shown.shownFingerprint("f", n),
  });
  const op = (start: number, end: number): EditOp => ({
    op: "replace",
    start: { line: start, hash: hashLine(lines[start - 1]!) },
    end: { line: end, hash: hashLine(lines[end - 1]!) },
    lines: ["new"],
    what: "operations[0]",
  });
  // Lines 2-30 span evicted and remembered lines: valid ids are accepted.
  const out = planLineEdits(doc, [op(2, 30)], { path: "f", shown: memory() });
  assertEquals(out.lines.length, 40 - 29 + 1);
  // Without eviction the same unshown range would be refused (ends unknown, interiors unshown).
  const strict = new ShownLines();
  strict.record("f", 35, [hashLine(lines[34]!)]);
  assertThrows(() =>
    planLineEdits(doc, [op(2, 30)], {
      path: "f",
      shown: { known: true, hashAt: (n) => strict.shownHash("f", n) },
    })
  );
  // A remembered line that changed is still caught.
  const changed = [...lines];
  changed[24] = "changed";
  const doc2: TextDoc = { ...doc, lines: changed };
  assertThrows(() => planLineEdits(doc2, [op(2, 30)], { path: "f", shown: memory() }));
});

/** What a memory says of `key`'s lines 1…n and its bound, for comparing two memories. */
function observe(shown: ShownLines, keys: string[], n: number) {
  return {
    bytes: shown.bytes,
    files: keys.map((key) => ({
      key,
      evicted: shown.evictedFrom(key),
      lines: Array.from({ length: n }, (_, i) => [
        shown.shownHash(key, i + 1),
        shown.shownFingerprint(key, i + 1),
      ]),
    })),
  };
}

Deno.test("recordWholeFile is forget + recordWithPrints of every line, whatever was held", () => {
  const lines = Array.from({ length: 30 }, (_, i) => `const v${i} = ${i};`);
  const other = [...lines.slice(0, 29), "changed"];
  // What the memory of "a" may hold before a whole view: nothing, exactly these lines (the
  // re-view of an unchanged file, kept as it is), other content, a part, hashes only, more.
  const before: [string, (s: ShownLines) => void][] = [
    ["nothing", () => {}],
    ["the same whole view", (s) => s.recordWholeFile("a", lines)],
    ["another content", (s) => s.recordWholeFile("a", other)],
    ["a range", (s) => s.recordWithPrints("a", 5, [hashLine(lines[4]!)], [linePrint(lines[4]!)])],
    ["hashes only", (s) => s.record("a", 1, lines.map(hashLine))],
    ["more lines", (s) => s.recordWholeFile("a", [...lines, "extra"])],
  ];
  for (const [what, setUp] of before) {
    // 3,000 bytes: room for two of the three files, so eviction order shows too.
    const fast = new ShownLines(3_000);
    const slow = new ShownLines(3_000);
    for (const s of [fast, slow]) {
      setUp(s);
      s.recordWholeFile("b", lines.slice(0, 20));
    }
    fast.recordWholeFile("a", lines);
    slow.forget("a");
    slow.recordWithPrints("a", 1, lines.map(hashLine), lines.map(linePrint));
    assertEquals(observe(fast, ["a", "b"], 31), observe(slow, ["a", "b"], 31), what);
    // "a" is the most recently shown in both: a third file evicts "b" first.
    for (const s of [fast, slow]) s.recordWholeFile("c", lines.slice(0, 25));
    assertEquals(observe(fast, ["a", "b", "c"], 31), observe(slow, ["a", "b", "c"], 31), what);
    assertEquals(fast.evictedFrom("b"), true, what);
  }
});
