// edit_diff.ts (pure): result diffs carry fresh ids on new lines, split distant hunks, cut long
// diffs, and collapse long runs and whole-file rewrites.

import { assertEquals, assertStringIncludes } from "../../_assert.ts";
import { renderEditDiff, renderFileHead } from "../../../lib/core/edit/edit_diff.ts";
import { hashLine, renderLine } from "../../../lib/core/edit/line_id.ts";

Deno.test("the diff carries fresh ids on new-side lines and none on removed lines", () => {
  const before = ["a", "b", "c", "d", "e", "f"];
  const after = ["a", "b", "C", "c2", "d", "e", "f"];
  const diff = renderEditDiff(before, after);
  assertEquals(
    diff.text,
    [
      "@@ -1,5 +1,6 @@",
      ` ${renderLine(1, "a")}`,
      ` ${renderLine(2, "b")}`,
      "-c",
      `+${renderLine(3, "C")}`,
      `+${renderLine(4, "c2")}`,
      ` ${renderLine(5, "d")}`,
      ` ${renderLine(6, "e")}`,
    ].join("\n"),
  );
  assertEquals(diff.added, 2);
  assertEquals(diff.removed, 1);
  assertEquals(diff.shown.map((s) => s.line), [1, 2, 3, 4, 5, 6]);
  assertEquals(diff.shown[2]!.hash, hashLine("C"));
});

Deno.test("distant changes make separate hunks; identical input gives an empty diff", () => {
  const before = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
  const after = before.slice();
  after[1] = "changed 2";
  after[25] = "changed 26";
  const diff = renderEditDiff(before, after);
  assertEquals(diff.text.split("\n").filter((l) => l.startsWith("@@")).length, 2);
  assertStringIncludes(diff.text, `+${renderLine(26, "changed 26")}`);
  assertEquals(renderEditDiff(before, before).text, "");
});

Deno.test("a long diff is cut and says so", () => {
  const before = Array.from({ length: 1000 }, (_, i) => `n${i}`);
  const after = before.map((l, i) => i % 10 === 0 ? `${l}!` : l);
  const diff = renderEditDiff(before, after, { maxLines: 50 });
  assertEquals(diff.truncated, true);
  assertEquals(diff.text.split("\n").length, 50);
  assertEquals(diff.added, 100);
});

Deno.test("a rewrite of a large file is shown as removed-then-added, collapsed, with correct counts", () => {
  const before = Array.from({ length: 50_000 }, (_, i) => `old ${i}`);
  const after = Array.from({ length: 50_000 }, (_, i) => `new ${i}`);
  const diff = renderEditDiff(before, after);
  assertEquals(diff.removed, 50_000);
  assertEquals(diff.added, 50_000);
  assertEquals(diff.truncated, false);
  assertStringIncludes(diff.text, "@@ -1,50000 +1,50000 @@");
  assertStringIncludes(diff.text, "-… 49,994 more removed lines (old lines 4-49,997)");
  assertStringIncludes(diff.text, "+… 49,994 more added lines (new lines 4-49,997, not shown)");
  assertStringIncludes(diff.text, `+${renderLine(1, "new 0")}`);
  assertStringIncludes(diff.text, `+${renderLine(50_000, "new 49999")}`);
  // Only the lines shown are recorded as shown: the three at each end of the added run.
  assertEquals(diff.shown.map((s) => s.line), [1, 2, 3, 49_998, 49_999, 50_000]);
});

Deno.test("runs up to 20 lines are shown whole; longer runs show their ends and an id range", () => {
  const before = ["a", "z"];
  const twenty = Array.from({ length: 20 }, (_, i) => `x${i}`);
  assertEquals(renderEditDiff(before, ["a", ...twenty, "z"]).shown.length, 22);
  const many = Array.from({ length: 30 }, (_, i) => `y${i}`);
  const diff = renderEditDiff(["a", ...many, "z"], before);
  assertEquals(diff.text.split("\n").filter((l) => l.startsWith("-")).length, 7);
  assertStringIncludes(diff.text, "-… 24 more removed lines (old lines 5-28)");
  assertEquals(diff.removed, 30);
});

Deno.test("a long changed line is cut to a window around the change, not its start", () => {
  const left = "L".repeat(6000);
  const right = "R".repeat(5000);
  const diff = renderEditDiff([`${left}old${right}`], [`${left}new${right}`]);
  assertEquals(diff.text.includes("new"), true);
  assertEquals(diff.text.includes("old"), true);
  assertStringIncludes(diff.text, "[line cut: 11,003 characters; shown 5,881-6,280]");
  assertEquals(diff.text.length < 1200, true, `diff is ${diff.text.length} characters`);
  // The id still covers the whole line.
  assertEquals(diff.shown[0]!.hash, hashLine(`${left}new${right}`));
});

Deno.test("a file head shows the first lines with ids and counts the rest", () => {
  const lines = Array.from({ length: 40 }, (_, i) => `l${i}`);
  const head = renderFileHead(lines);
  assertEquals(head.text.split("\n"), lines.slice(0, 5).map((l, i) => renderLine(i + 1, l)));
  assertEquals(head.rest, 35);
  assertEquals(head.shown.map((s) => s.line), [1, 2, 3, 4, 5]);
});
