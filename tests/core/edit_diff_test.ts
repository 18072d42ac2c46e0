import { assertEquals, assertStringIncludes } from "../_assert.ts";
import { renderEditDiff } from "../../lib/core/edit_diff.ts";
import { hashLine, renderLine } from "../../lib/core/line_id.ts";

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
  const after = Array.from({ length: 1000 }, (_, i) => `n${i}`);
  const diff = renderEditDiff([], after, { maxLines: 50 });
  assertEquals(diff.truncated, true);
  assertEquals(diff.text.split("\n").length, 50);
  assertEquals(diff.added, 1000);
});

Deno.test("a rewrite of a large file is shown as removed-then-added, cut, with correct counts", () => {
  const before = Array.from({ length: 50_000 }, (_, i) => `old ${i}`);
  const after = Array.from({ length: 50_000 }, (_, i) => `new ${i}`);
  const diff = renderEditDiff(before, after);
  assertEquals(diff.removed, 50_000);
  assertEquals(diff.added, 50_000);
  assertEquals(diff.truncated, true);
  assertStringIncludes(diff.text, "@@ -1,50000 +1,50000 @@");
  // Removed lines shrink to a count so that the new lines and their ids fit.
  assertStringIncludes(diff.text, "-… 49,997 more removed lines");
  assertStringIncludes(diff.text, `+${renderLine(1, "new 0")}`);
  assertEquals(diff.shown.length > 300, true);
});
