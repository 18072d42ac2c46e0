// Hostile sizes for the edit algorithms: the one-pass splicing and the line-run search count
// their element reads (bounded by a constant times the input), and the str_replace ladder and
// line edits answer at sizes where a quadratic path took seconds to minutes (200,000 newlines,
// 100,000 repeated lines, 20,000 operations). No clock is read: a regression shows as a stall.

import fc from "fast-check";
import { assert, assertEquals } from "../../_assert.ts";
import { AnchorError } from "../../../lib/core/errors.ts";
import { parseEditOps } from "../../../lib/core/edit/edit_ops.ts";
import { planLineEdits } from "../../../lib/core/edit/edit_plan.ts";
import { hashHex, hashLine } from "../../../lib/core/edit/line_id.ts";
import { applySplices, type Splice } from "../../../lib/core/edit/splice_lines.ts";
import { planStrReplace } from "../../../lib/core/edit/str_replace/mod.ts";
import { findLineRuns } from "../../../lib/core/edit/str_replace/fuzzy.ts";
import { splitLines, type TextDoc } from "../../../lib/core/text/text_file.ts";
import { findMovedLines } from "../../../lib/core/edit/line_id.ts";
import { mapLine, splicesBetween } from "../../../lib/core/edit/edit_log.ts";
import { isRepeatableLine } from "../../../lib/core/edit/edit_slip.ts";

/** An array whose element reads are counted. */
function counted<T>(items: T[]): { array: T[]; reads: () => number } {
  let reads = 0;
  const array = new Proxy(items, {
    get(target, key, receiver) {
      if (typeof key === "string" && /^[0-9]+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver);
    },
  });
  return { array, reads: () => reads };
}

const docOf = (text: string): TextDoc => ({ encoding: "utf-8", bom: false, ...splitLines(text) });
const idOf = (lines: readonly string[], n: number) => `${n}:${hashHex(hashLine(lines[n - 1]!))}`;

/** The splice of one block as it was done before applySplices: Array.splice with the neighbours. */
function spliceOnce(doc: { lines: string[]; eols: string[] }, s: Splice, eol: string): void {
  const { at, count } = s;
  const oldEols = doc.eols.slice(at, at + count);
  const near = [oldEols[count - 1], doc.eols[at - 1], doc.eols[at]].find((e) => e) ?? eol;
  const newEols = s.lines.map((_, i) => {
    const e = oldEols[i];
    return e === undefined || e === "" ? near : e;
  });
  if (count > 0 && at + count === doc.lines.length && oldEols[count - 1] === "") {
    if (newEols.length > 0) newEols[newEols.length - 1] = "";
  }
  doc.lines.splice(at, count, ...s.lines);
  doc.eols.splice(at, count, ...newEols);
}

const eolArb = fc.constantFrom("\n", "\r\n", "");
const lineArb = fc.constantFrom("a", "b", "", "}");

Deno.test("applySplices gives what splicing each block in turn gave", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(lineArb, eolArb), { maxLength: 12 }),
      fc.array(
        fc.tuple(fc.nat(12), fc.nat(3), fc.array(lineArb, { maxLength: 3 })),
        { maxLength: 5 },
      ),
      fc.constantFrom("\n", "\r\n"),
      (rows, raw, eol) => {
        const doc = { lines: rows.map((r) => r[0]), eols: rows.map((r) => r[1]) };
        // Bottom-up, non-overlapping: sort by position, drop what would overlap.
        const splices: Splice[] = [];
        let cut = doc.lines.length;
        for (const [at, count, lines] of raw.sort((a, b) => b[0] - a[0])) {
          if (at > cut) continue;
          const c = Math.min(count, cut - at);
          splices.push({ at, count: c, lines });
          cut = at;
        }
        const want = { lines: doc.lines.slice(), eols: doc.eols.slice() };
        for (const s of splices) spliceOnce(want, s, eol);
        assertEquals(applySplices(doc, splices, eol), want);
      },
    ),
    { numRuns: 500 },
  );
});

Deno.test("applySplices reads each line a bounded number of times, whatever the splice count", () => {
  for (const n of [1_000, 10_000, 100_000]) {
    const lines = counted(Array.from({ length: n }, (_, i) => `line ${i}`));
    const eols = counted(lines.array.map(() => "\n"));
    // One splice per line: with Array.splice each moved the rest of the file.
    const splices = Array.from({ length: n }, (_, i) => ({
      at: n - 1 - i,
      count: 1,
      lines: [`new ${i}`],
    }));
    const out = applySplices({ lines: lines.array, eols: eols.array }, splices, "\n");
    assertEquals(out.lines.length, n);
    assert(lines.reads() + eols.reads() <= 8 * n, `${lines.reads() + eols.reads()} reads for ${n}`);
  }
});

Deno.test("findLineRuns finds what trying every start finds", () => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom("x", "y"), { maxLength: 40 }),
      fc.array(fc.constantFrom("x", "y"), { minLength: 1, maxLength: 5 }),
      (have, want) => {
        const naive: number[] = [];
        for (let i = 0; i + want.length <= have.length; i++) {
          if (want.every((w, k) => have[i + k] === w)) naive.push(i);
        }
        assertEquals(findLineRuns(have, want, Infinity), naive);
      },
    ),
    { numRuns: 500 },
  );
});

Deno.test("findLineRuns compares a number of lines linear in its input", () => {
  // 100,000 equal lines against 50,000 of them and one different: n × m starts to try.
  for (const n of [1_000, 10_000, 100_000]) {
    const have = counted(Array.from({ length: n }, () => "foo bar"));
    const want = counted([...Array.from({ length: n / 2 }, () => "foo bar"), "zzz"]);
    assertEquals(findLineRuns(have.array, want.array, 21), []);
    const reads = have.reads() + want.reads();
    assert(reads <= 8 * (n + n / 2), `${reads} reads for ${n}`);
  }
});

const answerCode = (call: () => unknown) => {
  try {
    call();
    return "ok";
  } catch (e) {
    if (e instanceof AnchorError) return e.code;
    throw e;
  }
};

Deno.test("str_replace answers hostile sizes: newlines, escapes, repeated near misses", () => {
  const small = docOf(Array.from({ length: 20 }, (_, i) => `line ${i}\n`).join(""));
  fc.assert(
    fc.property(fc.integer({ min: 100_000, max: 200_000 }), (n) => {
      assertEquals(
        answerCode(() => planStrReplace(small, { oldText: "\n".repeat(n), newText: "" }, "f")),
        "NO_MATCH",
      );
      assertEquals(
        answerCode(() => planStrReplace(small, { oldText: "\\n".repeat(n), newText: "" }, "f")),
        "NO_MATCH",
      );
    }),
    { numRuns: 3 },
  );
  const repeated = docOf("foo bar\n".repeat(100_000));
  const oldText = "foo bar\n".repeat(50_000) + "zzz";
  assertEquals(
    answerCode(() => planStrReplace(repeated, { oldText, newText: "" }, "f")),
    "NO_MATCH",
  );
});

Deno.test("replace_all replaces every match, past 10,000 of them", () => {
  const n = 30_000;
  const doc = docOf("a\n".repeat(n));
  const r = planStrReplace(doc, { oldText: "a", newText: "b", replaceAll: true }, "f");
  assertEquals(r.matches.length, n);
  assert(r.doc.lines.every((l) => l === "b"));
  const line = docOf(`${"a".repeat(n)}\n`);
  const one = planStrReplace(line, { oldText: "a", newText: "bb", replaceAll: true }, "f");
  assertEquals(one.doc.lines, ["b".repeat(2 * n)]);
});

Deno.test("str_replace writes a new_text of 300,000 lines (no argument-spread overflow)", () => {
  const doc = docOf("one\ntwo\nthree\n");
  const newText = Array.from({ length: 300_000 }, (_, i) => `l${i}`).join("\n");
  const r = planStrReplace(doc, { oldText: "two", newText }, "f");
  assertEquals(r.doc.lines.length, 300_002);
  assertEquals(r.doc.lines[300_001], "three");
});

Deno.test("batch_edit: 20,000 operations apply, and overlaps among them are found", () => {
  const n = 20_000;
  const lines = Array.from({ length: n }, (_, i) => `line ${i}`);
  const doc = docOf(lines.join("\n") + "\n");
  const raw = lines.map((_, i) => ({
    op: "replace",
    start: idOf(lines, i + 1),
    content: `n${i}\n`,
  }));
  const out = planLineEdits(doc, parseEditOps(raw), { path: "f" });
  assertEquals(out.lines, lines.map((_, i) => `n${i}`));
  // The last operation overlaps the first: found by the sweep, not by 2×10^8 pair checks.
  const overlapping = [...raw, {
    op: "replace",
    start: idOf(lines, 1),
    end: idOf(lines, 2),
    content: "",
  }];
  const shown = { known: true, hashAt: (l: number) => hashLine(lines[l - 1] ?? "") };
  assertEquals(
    answerCode(() => planLineEdits(doc, parseEditOps(overlapping), { path: "f", shown })),
    "OVERLAPPING_OPERATIONS",
  );
});

Deno.test("batch_edit: the sweep and the pairwise scan agree on whether operations overlap", () => {
  const n = 400;
  const lines = Array.from({ length: n }, (_, i) => `line ${i}`);
  const doc = docOf(lines.join("\n") + "\n");
  const opArb = fc.oneof(
    fc.tuple(fc.integer({ min: 1, max: n }), fc.nat(3)).map(([s, len]) => ({
      op: "replace",
      start: idOf(lines, s),
      end: idOf(lines, Math.min(n, s + len)),
      content: "x\n",
    })),
    fc.integer({ min: 1, max: n }).map((a) => ({
      op: "insert",
      anchor: idOf(lines, a),
      content: "y\n",
    })),
  );
  fc.assert(
    fc.property(fc.array(opArb, { minLength: 2, maxLength: 60 }), fc.nat(1_100), (ops, pad) => {
      // Padding inserts at the end push the batch past the pairwise limit without overlapping.
      const padded = [
        ...ops,
        ...Array.from({ length: pad }, () => ({ op: "insert", anchor: -1, content: "z\n" })),
      ];
      const small = answerCode(() => planLineEdits(doc, parseEditOps(ops), { path: "f" }));
      const big = answerCode(() => planLineEdits(doc, parseEditOps(padded), { path: "f" }));
      assertEquals(big, small);
    }),
    { numRuns: 200 },
  );
});

Deno.test("findMovedLines picks the nearest lines with the hash, as sorting every match did", () => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom("v23", "v26", "a", "b"), { maxLength: 40 }),
      fc.integer({ min: -2, max: 45 }),
      fc.integer({ min: 1, max: 7 }),
      (lines, near, limit) => {
        const hash = hashLine("v23");
        const all: number[] = [];
        lines.forEach((l, i) => hashLine(l) === hash && all.push(i + 1));
        all.sort((a, b) => Math.abs(a - near) - Math.abs(b - near) || a - b);
        assertEquals(findMovedLines(lines, hash, near, limit), all.slice(0, limit));
      },
    ),
    { numRuns: 500 },
  );
});

Deno.test("a batch of 20,000 stale operations gets a report of bounded size", () => {
  const n = 40_000;
  const lines = Array.from({ length: n }, (_, i) => `line ${i}`);
  const doc = docOf(lines.map((l) => `${l}!`).join("\n") + "\n");
  const raw = Array.from({ length: n / 2 }, (_, i) => ({
    op: "replace",
    start: idOf(lines, 2 * i + 1),
    content: "x\n",
  }));
  let detail = "";
  try {
    planLineEdits(doc, parseEditOps(raw), { path: "f" });
  } catch (e) {
    assert(e instanceof AnchorError && e.code === "STALE_LINE_ID");
    detail = e.detail ?? "";
  }
  // About 1 in 256 of the changed lines kept its 8-bit hash: those ids are not stale.
  assert(/\.\.\. 19,[0-9]{3} more stale ids not detailed\./.test(detail), detail.slice(0, 300));
  assert(detail.length < 100_000, `${detail.length} characters`);
});

Deno.test("isRepeatableLine agrees with its regex form and is linear on runs of closers", () => {
  const regexForm = (text: string) => {
    const t = text.trim();
    return t === "" || /^[\])}]+[;,)]*$/.test(t) || /^(end|fi|done|esac|\*\/|-->)$/.test(t) ||
      /^[\])}]+[;,]?\s*(\/\/.*)?$/.test(t);
  };
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(")", "]", "}", ";", ",", " ", "/", "x", "e"), { maxLength: 12 }),
      (chars) => assertEquals(isRepeatableLine(chars.join("")), regexForm(chars.join(""))),
    ),
    { numRuns: 2_000 },
  );
  // 200,000 ")" and an "x": the regex tried every split of the run (about 50 s at this size).
  assertEquals(isRepeatableLine(")".repeat(200_000) + "x"), false);
  assertEquals(isRepeatableLine(")".repeat(200_000) + ";"), true);
});

Deno.test("splicesBetween: a rewrite of 20,000 lines is one splice; mapped lines keep their text", () => {
  const n = 20_000;
  const a = Array.from({ length: n }, (_, i) => `old ${i}`);
  const b = Array.from({ length: n + 5 }, (_, i) => `new ${i}`);
  assertEquals(splicesBetween(["k", ...a, "k"], ["k", ...b, "k"]), [
    { start: 2, removed: n, added: n + 5 },
  ]);
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom("a", "b", "c"), { maxLength: 30 }),
      fc.array(fc.constantFrom("a", "b", "c"), { maxLength: 30 }),
      (before, after) => {
        const splices = splicesBetween(before, after);
        const moved = splices.reduce((d, s) => d + s.added - s.removed, 0);
        assertEquals(moved, after.length - before.length);
        for (let line = 1; line <= before.length; line++) {
          const to = mapLine(line, splices);
          if (to !== undefined) assertEquals(after[to - 1], before[line - 1]);
        }
      },
    ),
    { numRuns: 1_000 },
  );
});
