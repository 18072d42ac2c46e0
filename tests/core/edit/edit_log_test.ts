// edit_log.ts (pure): ids from before a session's own edits are mapped through them, and a range
// the edits cut into or an id naming another line is refused.

import { assertEquals, assertStringIncludes } from "../../_assert.ts";
import { parseEditOps } from "../../../lib/core/edit/edit_ops.ts";
import {
  describeShifts,
  mapLine,
  remapThroughLog,
  splicesBetween,
} from "../../../lib/core/edit/edit_log.ts";
import { formatLineId, hashLine } from "../../../lib/core/edit/line_id.ts";

Deno.test("splicesBetween and mapLine: untouched lines map, replaced ones do not", () => {
  const before = ["a", "b", "c", "d", "e"];
  const after = ["x", "a", "B", "c", "d", "e", "f"];
  const splices = splicesBetween(before, after);
  assertEquals(splices, [
    { start: 1, removed: 0, added: 1 },
    { start: 2, removed: 1, added: 1 },
    { start: 6, removed: 0, added: 1 },
  ]);
  assertEquals([1, 2, 3, 4, 5].map((n) => mapLine(n, splices)), [2, undefined, 4, 5, 6]);
  assertEquals(
    describeShifts(splices),
    "Later line numbers moved: after old line 0 by +1, after old line 5 by +2; ids from your " +
      "earlier views still work, except those of old line 2 (this edit replaced them).",
  );
  assertEquals(
    describeShifts([{ start: 3, removed: 0, added: 2 }]),
    "Later line numbers moved: after old line 2 by +2; ids from your earlier views still work.",
  );
  assertStringIncludes(
    describeShifts([{ start: 3, removed: 0, added: 2 }], false)!,
    "so ids from your earlier views may be off",
  );
});

Deno.test("remapThroughLog maps ids from before two edits, and refuses a range the edits cut into", () => {
  const v0 = ["a", "b", "c", "d", "e"];
  const v1 = ["x", ...v0];
  const v2 = ["x", "y", ...v0];
  const log = [
    { splices: splicesBetween(v0, v1), after: "1", at: 1 },
    { splices: splicesBetween(v1, v2), after: "2", at: 2 },
  ];
  const ops = parseEditOps([
    { op: "replace", start: formatLineId(3, "c"), end: formatLineId(4, "d"), content: "C" },
    { op: "insert", anchor: formatLineId(2, "a"), content: "z" }, // an id from v1
  ]);
  const r = remapThroughLog(v2, ops, log);
  assertEquals(
    r.ops.map((o) =>
      o.op === "replace"
        ? [o.start.line, o.end.line]
        : o.anchor.kind === "after" && o.anchor.id.line
    ),
    [[5, 6], 3],
  );
  assertEquals(r.moves.length, 3);
  assertEquals(r.ranges, [{ from: 5, to: 6 }]);

  // The range b..d, after our edit inserted a line inside it: not mapped (never seen whole).
  const w1 = ["a", "b", "c", "new", "d", "e"];
  const cut = remapThroughLog(
    w1,
    parseEditOps([
      { op: "replace", start: formatLineId(2, "b"), end: formatLineId(4, "d"), content: "" },
    ]),
    [{ splices: splicesBetween(v0, w1), after: "1", at: 4 }],
  );
  assertEquals(cut.moves, []);
  assertEquals(cut.ranges, []);
});

Deno.test("remapThroughLog flags an id that names one line as given and another read from before the edit", () => {
  const y = "y";
  // A line whose 8-bit hash collides with "y".
  let twin = "";
  for (let i = 0; twin === ""; i++) if (hashLine(`a${i}`) === hashLine(y)) twin = `a${i}`;
  const v0 = ["x", y, "z"];
  const v1 = ["new", twin, y, "z"];
  const log = [{ splices: splicesBetween(v0, v1), after: "", at: 1 }];
  const ops = parseEditOps([{
    op: "replace",
    start: `2:${formatLineId(2, y).split(":")[1]}`,
    content: "Y",
  }]);
  const r = remapThroughLog(v1, ops, log);
  assertEquals(r.ambiguous.length, 1);
  assertStringIncludes(r.ambiguous[0]!, "is line 2 now, and the line you were shown as 2");
});

Deno.test("the regions an edit logs hold copies of their lines, not the file's whole text", async () => {
  // A line split from a 16 MB text is a view that keeps the text alive; the session keeps up to
  // 4,000 logged edits. Twenty edits' regions of twenty such texts, the texts then dropped: with
  // slices kept, the heap held all twenty (~320 MB); with copies, a few kB.
  const module = new URL("../../../lib/core/edit/edit_log.ts", import.meta.url).href;
  const code = `import { writtenRegions } from ${JSON.stringify(module)};
const kept = [];
for (let i = 0; i < 20; i++) {
  const text = ("line " + i + " " + "x".repeat(90) + "\\n").repeat(160_000);
  const before = text.split("\\n");
  const after = [...before];
  after[5] = "changed";
  kept.push(writtenRegions(before, after, [{ start: 6, removed: 1, added: 1 }]));
}
globalThis.gc();
console.log(JSON.stringify({ heap: Deno.memoryUsage().heapUsed, removed: kept[3][0].removed }));`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--v8-flags=--expose-gc", code],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(out.success, true, new TextDecoder().decode(out.stderr));
  const { heap, removed } = JSON.parse(new TextDecoder().decode(out.stdout));
  assertEquals(removed, [`line 3 ${"x".repeat(90)}`]);
  assertEquals(heap < 64 * 1024 * 1024, true, `heap after the texts were dropped: ${heap} bytes`);
});
