// edit_slip.ts (pure): the repeated-context guard finds edits whose first or last line repeats its
// neighbour, exempting blank lines and lone closing brackets.

import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { parseEditOps } from "../../../lib/core/edit/edit_ops.ts";
import {
  editSlipError,
  findEditSlips,
  isRepeatableLine,
} from "../../../lib/core/edit/edit_slip.ts";
import { formatLineId } from "../../../lib/core/edit/line_id.ts";

const FILE = ["a", "b", "c", "d", "e"];
const id = (n: number, lines = FILE) => formatLineId(n, lines[n - 1]!);

Deno.test("findEditSlips: replacing line 3 of a b c d e with b C d repeats b and d", () => {
  const ops = parseEditOps([{ op: "replace", start: id(3), content: "b\nC\nd" }]);
  const slips = findEditSlips(FILE, ops);
  assertEquals(slips.map((s) => [s.side, s.line, s.text]), [["first", 2, "b"], ["last", 4, "d"]]);
  const error = editSlipError("f.txt", FILE, slips);
  assertEquals(error.code, "REPEATED_CONTEXT_LINE");
  assertStringIncludes(error.message, "its first line repeats the line just before the range");
  assertStringIncludes(error.hint!, `{"op":"replace","start":"${id(3)}","content":"C"}`);
  assertStringIncludes(error.hint!, '"allow_repeat": true');
});

Deno.test("findEditSlips: an insert whose first line repeats its anchor", () => {
  const ops = parseEditOps([{ op: "insert", anchor: id(2), content: "b\nnew" }]);
  const slips = findEditSlips(FILE, ops);
  assertEquals(slips.map((s) => [s.side, s.line]), [["first", 2]]);
  assertStringIncludes(
    editSlipError("f.txt", FILE, slips).hint!,
    `{"op":"insert","anchor":"${id(2)}","content":"new"}`,
  );
});

Deno.test("findEditSlips: blank lines and lone closing brackets repeat legitimately", () => {
  const lines = ["function a() {", "  x();", "}", "", "function b() {", "}"];
  const ops = parseEditOps([
    // Diffs of real edits start or end with a blank line or a closing bracket next to the same.
    { op: "insert", anchor: formatLineId(3, "}"), content: "\nfunction c() {\n}" },
    { op: "replace", start: formatLineId(5, lines[4]!), content: "}\n\nfunction b2() {" },
  ]);
  assertEquals(findEditSlips(lines, ops), []);
  for (const t of ["", "  ", "}", "});", "]", ")", "})", "end", "fi", "done", "};"]) {
    assert(isRepeatableLine(t), JSON.stringify(t));
  }
  for (const t of ["return x;", "} else {", "import a from 'a';"]) {
    assert(!isRepeatableLine(t), JSON.stringify(t));
  }
});

Deno.test("findEditSlips: no slip when the content differs from its neighbours", () => {
  const ops = parseEditOps([
    { op: "replace", start: id(2), end: id(4), content: "B\nC\nD" },
    { op: "insert", anchor: id(5), content: "f" },
  ]);
  assertEquals(findEditSlips(FILE, ops), []);
});
