// edit_plan.ts (pure): batch_edit planning against the viewed file — inserts, replaces and
// deletes, line endings kept, stale ids and changed interiors refused with the report.

import { assert, assertEquals, assertStringIncludes, assertThrows } from "../../_assert.ts";
import { AnchorError } from "../../../lib/core/errors.ts";
import { contentLines, parseEditOps } from "../../../lib/core/edit/edit_ops.ts";
import { planLineEdits } from "../../../lib/core/edit/edit_plan.ts";
import type { ShownMemory } from "../../../lib/core/edit/shown_lines.ts";
import { formatLineId, hashLine } from "../../../lib/core/edit/line_id.ts";
import { linePrint } from "../../../lib/core/edit/shown_lines.ts";
import { decodeText, encodeDoc, type TextDoc } from "../../../lib/core/text/text_file.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

function docOf(text: string): TextDoc {
  const d = decodeText(enc.encode(text));
  if (d.kind !== "text") throw new Error("binary");
  return d.doc;
}

const idOf = (doc: TextDoc, line: number) => formatLineId(line, doc.lines[line - 1]!);

function plan(text: string, ops: unknown, shown?: ShownMemory): string {
  const doc = docOf(text);
  return dec.decode(encodeDoc(planLineEdits(doc, parseEditOps(ops), { path: "f", shown })));
}

function planError(text: string, ops: unknown, shown?: ShownMemory): AnchorError {
  const e = assertThrows(() => plan(text, ops, shown));
  assert(e instanceof AnchorError, String(e));
  return e;
}

/** Memory of a full view of `text` (hashes and fingerprints, as view records them). */
function viewed(text: string): ShownMemory {
  const lines = docOf(text).lines;
  const at = (n: number) => (n >= 1 && n <= lines.length ? lines[n - 1]! : undefined);
  return {
    known: true,
    hashAt: (n) => (at(n) === undefined ? undefined : hashLine(at(n)!)),
    printAt: (n) => (at(n) === undefined ? undefined : linePrint(at(n)!)),
  };
}

const FILE = "one\ntwo\nthree\nfour\nfive\n";
const d = docOf(FILE);

Deno.test("contentLines: one trailing newline ends the last line, CRLF reads as LF", () => {
  assertEquals(contentLines(""), []);
  assertEquals(contentLines("\n"), [""]);
  assertEquals(contentLines("a\r\nb\r\n"), ["a", "b"]);
  assertEquals(contentLines("a\n\n"), ["a", ""]);
});

Deno.test("batch_edit: insert at 0, -1 and after an id; replace and delete, all against the viewed file", () => {
  const out = plan(FILE, [
    { op: "insert", anchor: 0, content: "zero" },
    { op: "replace", start: idOf(d, 2), content: "TWO" },
    { op: "replace", start: idOf(d, 3), end: idOf(d, 4), content: "" },
    { op: "insert", anchor: idOf(d, 5), content: "five and a half\n" },
    { op: "insert", anchor: -1, content: "six\nseven" },
  ]);
  assertEquals(out, "zero\none\nTWO\nfive\nfive and a half\nsix\nseven\n");
});

Deno.test("batch_edit: inserts at one anchor keep their order; an insert after a replaced range lands after it", () => {
  const out = plan(FILE, [
    { op: "insert", anchor: idOf(d, 2), content: "a" },
    { op: "replace", start: idOf(d, 1), end: idOf(d, 2), content: "X\nY\nZ" },
    { op: "insert", anchor: idOf(d, 2), content: "b" },
    { op: "insert", anchor: 0, content: "s" },
  ]);
  assertEquals(out, "s\nX\nY\nZ\na\nb\nthree\nfour\nfive\n");
});

Deno.test("batch_edit keeps CRLF, mixed endings, a missing final newline", () => {
  const crlf = "a\r\nb\r\nc\r\n";
  const dc = docOf(crlf);
  assertEquals(
    plan(crlf, [{ op: "replace", start: idOf(dc, 2), content: "B1\nB2" }]),
    "a\r\nB1\r\nB2\r\nc\r\n",
  );
  const noFinal = "a\nb";
  const dn = docOf(noFinal);
  assertEquals(plan(noFinal, [{ op: "insert", anchor: -1, content: "c" }]), "a\nb\nc");
  assertEquals(plan(noFinal, [{ op: "replace", start: idOf(dn, 2), content: "" }]), "a");
  const mixed = "a\r\nb\nc\r\n";
  const dm = docOf(mixed);
  assertEquals(
    plan(mixed, [{ op: "replace", start: idOf(dm, 2), content: "B" }]),
    "a\r\nB\nc\r\n",
  );
});

Deno.test("a stale id fails the whole batch with the report and fresh ids", () => {
  const e = planError(FILE, [
    { op: "insert", anchor: 0, content: "ok" },
    { op: "replace", start: "3:00", content: "x" },
  ]);
  assertEquals(e.code, "STALE_LINE_ID");
  assertStringIncludes(e.message, "nothing was written");
  assertStringIncludes(e.detail!, `${idOf(d, 3)}|three`);
  assertStringIncludes(e.detail!, "view");
});

Deno.test("overlapping operations are rejected naming both ranges", () => {
  const e = planError(FILE, [
    { op: "replace", start: idOf(d, 1), end: idOf(d, 3), content: "x" },
    { op: "replace", start: idOf(d, 3), end: idOf(d, 4), content: "y" },
  ]);
  assertEquals(e.code, "OVERLAPPING_OPERATIONS");
  assertStringIncludes(e.message, `operations[0] (replace ${idOf(d, 1)}..${idOf(d, 3)})`);
  assertStringIncludes(e.message, `operations[1] (replace ${idOf(d, 3)}..${idOf(d, 4)})`);
  const e2 = planError(FILE, [
    { op: "replace", start: idOf(d, 1), end: idOf(d, 3), content: "x" },
    { op: "insert", anchor: idOf(d, 2), content: "y" },
  ]);
  assertEquals(e2.code, "OVERLAPPING_OPERATIONS");
});

Deno.test("a bare number where an id is needed gets its own message", () => {
  const e = planError(FILE, [{ op: "replace", start: 3, content: "x" }]);
  assertEquals(e.code, "INVALID_LINE_ID");
  assertStringIncludes(e.message, "a bare number is only a position");
  const e2 = planError(FILE, [{ op: "insert", anchor: 4, content: "x" }]);
  assertStringIncludes(e2.message, "only 0 (file start) and -1 (end of file)");
  assertStringIncludes(e2.hint!, '"4:a3"');
});

Deno.test("malformed operations name the operation and the fix", () => {
  assertStringIncludes(planError(FILE, []).message, "non-empty list");
  assertStringIncludes(planError(FILE, [{ op: "move", content: "" }]).message, "operations[0].op");
  assertStringIncludes(planError(FILE, [{ op: "insert", anchor: 0 }]).message, "content");
  assertStringIncludes(
    planError(FILE, [{ op: "replace", start: idOf(d, 3), end: idOf(d, 1), content: "" }]).message,
    "comes before start",
  );
});

Deno.test("an unknown op is named before its content, with the ops that exist and how to delete", () => {
  const e = planError(FILE, [{ op: "delete", start: "1:ca" }]);
  assertEquals(e.code, "INVALID_OPERATION");
  assertEquals(
    e.message,
    'operations[0].op is "delete"; batch_edit has two ops: "insert" (after an anchor) and ' +
      '"replace" (a start..end range). To delete lines, replace them with empty content.',
  );
  assertEquals(e.hint, 'Use {"op":"replace","start":"1:ca","end":"1:ca","content":""}.');
  const ranged = planError(FILE, [{ op: "remove", start: "1:ca", end: "3:0f" }]);
  assertStringIncludes(ranged.hint!, '{"op":"replace","start":"1:ca","end":"3:0f","content":""}');
  const missing = planError(FILE, [{ start: "1:ca", content: "x" }]);
  assertStringIncludes(missing.message, "operations[0].op is missing; batch_edit has two ops");
  assertStringIncludes(missing.message, 'replace them with content ""');
});

Deno.test("interior verification: a changed interior line fails even when both end ids match", () => {
  // The agent viewed the file; then lines 2-4 were rewritten but the ends kept their content.
  const shown = viewed("head\n{\nalpha\n}\ntail\n");
  const now = "head\n{\nBETA\n}\ntail\n";
  const dn = docOf(now);
  const e = planError(now, [
    { op: "replace", start: idOf(dn, 2), end: idOf(dn, 4), content: "{}" },
  ], shown);
  assertEquals(e.code, "STALE_LINE_ID");
  assertStringIncludes(e.detail!, "changed since you were shown");
  assertStringIncludes(e.detail!, "3:");
  assertStringIncludes(e.detail!, "|BETA");
  // Unchanged interior: applies.
  assertEquals(
    plan("head\n{\nalpha\n}\ntail\n", [{
      op: "replace",
      start: idOf(dn, 2),
      end: idOf(dn, 4),
      content: "{}",
    }], shown),
    "head\n{}\ntail\n",
  );
});

Deno.test("interior verification: a shift that keeps the end hashes is caught by what was shown", () => {
  // Viewed: "} m }" ... ; then "}\nk\n" was inserted at the top by someone else. The old ids
  // 1:hh and 3:hh ("}") still match the current lines 1 and 3 by hash, but line 2 is now "k".
  const before = "}\nm\n}\nn\n}\n";
  const shown = viewed(before);
  const after = "}\nk\n" + before;
  const db = docOf(before);
  const ops = [{ op: "replace", start: idOf(db, 1), end: idOf(db, 3), content: "" }];
  const e = planError(after, ops, shown);
  assertEquals(e.code, "STALE_LINE_ID");
  assertStringIncludes(e.detail!, "line 2 changed since you were shown it");
  assertStringIncludes(e.detail!, "|k");
  // Without any memory (CLI, fresh server) only the ends can be checked: that is documented.
  assertEquals(plan(after, ops), "m\n}\nn\n}\n");
});

Deno.test("unshown interior lines pass only when both ends were shown with those ids", () => {
  const text = "l1\nl2\nl3\nl4\nl5\n";
  const dt = docOf(text);
  const ends: ShownMemory = {
    known: true,
    hashAt: (n) => (n === 1 || n === 5 ? hashLine(dt.lines[n - 1]!) : undefined),
  };
  assertEquals(
    plan(text, [{ op: "replace", start: idOf(dt, 1), end: idOf(dt, 5), content: "all" }], ends),
    "all\n",
  );
  const onlyStart: ShownMemory = {
    known: true,
    hashAt: (n) => (n === 1 ? hashLine(dt.lines[0]!) : undefined),
  };
  const e = planError(text, [
    { op: "replace", start: idOf(dt, 1), end: idOf(dt, 5), content: "all" },
  ], onlyStart);
  assertStringIncludes(e.detail!, "never shown to you");
});

Deno.test("a range that moved is shown whole at its new place, with ids that work for one retry", () => {
  const before = "a\nif (x) {\n  y();\n}\nz\n";
  const shown = viewed(before);
  const db = docOf(before);
  const after = "new1\nnew2\n" + before;
  const ops = [{ op: "replace", start: idOf(db, 2), end: idOf(db, 4), content: "done();" }];
  const e = planError(after, ops, shown);
  assertStringIncludes(e.detail!, "may have moved by +2 lines: lines 4-6");
  const da = docOf(after);
  for (let n = 4; n <= 6; n++) assertStringIncludes(e.detail!, `${idOf(da, n)}|${da.lines[n - 1]}`);
  // The retry with the ids from the report (recorded as shown by the op layer) applies.
  assertEquals(
    plan(
      after,
      [{ op: "replace", start: idOf(da, 4), end: idOf(da, 6), content: "done();" }],
      viewed(after),
    ),
    "new1\nnew2\na\ndone();\nz\n",
  );
});

Deno.test("when ids collide after a shift, the shown content is found again by its fingerprint", () => {
  // "}" ends collide; line 2 changed, so the range fails as interior_changed, and the report
  // says where the block the agent saw went.
  const before = "}\nm\n}\nn\n}\n";
  const shown = viewed(before);
  const after = "}\nk\n" + before;
  const db = docOf(before);
  const e = planError(after, [
    { op: "replace", start: idOf(db, 1), end: idOf(db, 3), content: "" },
  ], shown);
  assertStringIncludes(
    e.detail!,
    "is now at lines 3-5 (matched by full content fingerprint)",
    e.detail,
  );
});
