// Property tests for id-based edits: fresh ids always apply exactly as intended, and old ids
// after unrelated insertions/deletions either hit the same content or fail with a report.
// The line alphabet is tiny and holds 8-bit hash collisions ("v23"/"v26", "v16"/"v31") on
// purpose: "}" and blank lines and colliding lines are where 8-bit ids go wrong.

import fc from "fast-check";
import { assert, assertEquals } from "../../_assert.ts";
import { AnchorError } from "../../../lib/core/errors.ts";
import type { EditOp } from "../../../lib/core/edit/edit_ops.ts";
import { planLineEdits } from "../../../lib/core/edit/edit_plan.ts";
import type { ShownMemory } from "../../../lib/core/edit/shown_lines.ts";
import { hashLine } from "../../../lib/core/edit/line_id.ts";
import { linePrint } from "../../../lib/core/edit/shown_lines.ts";
import type { TextDoc } from "../../../lib/core/text/text_file.ts";

const ALPHABET = ["}", "", "{", "a", "b", "v23", "v26", "v16", "v31"];
const line = fc.constantFrom(...ALPHABET);

Deno.test("the alphabet really holds 8-bit collisions", () => {
  assertEquals(hashLine("v23"), hashLine("v26"));
  assertEquals(hashLine("v16"), hashLine("v31"));
});

const doc = (lines: string[]): TextDoc => ({
  encoding: "utf-8",
  bom: false,
  lines: lines.slice(),
  eols: lines.map(() => "\n"),
});

const id = (lines: string[], n: number) => ({ line: n, hash: hashLine(lines[n - 1]!) });

/** What a full view of `lines` leaves in memory (hashes and fingerprints, like view does). */
function viewOf(lines: string[]): ShownMemory {
  return {
    known: true,
    hashAt: (n) => (n >= 1 && n <= lines.length ? hashLine(lines[n - 1]!) : undefined),
    printAt: (n) => (n >= 1 && n <= lines.length ? linePrint(lines[n - 1]!) : undefined),
  };
}

interface Seed {
  kind: "insert" | "replace";
  pos: number;
  len: number;
  content: string[];
  useEnd: boolean;
}

const seed = fc.record({
  kind: fc.constantFrom("insert" as const, "replace" as const),
  pos: fc.nat(),
  len: fc.nat({ max: 3 }),
  content: fc.array(line, { maxLength: 3 }),
  useEnd: fc.boolean(),
});

/** Turns seeds into non-overlapping ops with fresh ids, plus the expected result (a model). */
function buildOps(lines: string[], seeds: Seed[]): { ops: EditOp[]; expected: string[] } {
  const n = lines.length;
  const ops: EditOp[] = [];
  const replaced: { s: number; e: number; content: string[] }[] = [];
  const inserts: { gap: number; content: string[] }[] = [];
  for (const [i, sd] of seeds.entries()) {
    const what = `operations[${i}]`;
    if (sd.kind === "replace" && n > 0) {
      const s = (sd.pos % n) + 1;
      const e = Math.min(n, s + sd.len);
      if (replaced.some((r) => r.s <= e && s <= r.e)) continue;
      if (inserts.some((x) => x.gap >= s && x.gap < e)) continue;
      replaced.push({ s, e, content: sd.content });
      ops.push({ op: "replace", start: id(lines, s), end: id(lines, e), lines: sd.content, what });
    } else {
      const content = sd.content.length > 0 ? sd.content : ["a"];
      const gap = sd.pos % (n + 1);
      if (replaced.some((r) => gap >= r.s && gap < r.e)) continue;
      inserts.push({ gap, content });
      const anchor = gap === 0
        ? { kind: "start" as const }
        : gap === n && sd.useEnd
        ? { kind: "end" as const }
        : { kind: "after" as const, id: id(lines, gap) };
      ops.push({ op: "insert", anchor, lines: content, what });
    }
  }
  const expected: string[] = [];
  const gapInserts = (g: number) => {
    for (const x of inserts) if (x.gap === g) expected.push(...x.content);
  };
  gapInserts(0);
  for (let k = 1; k <= n; k++) {
    const r = replaced.find((r) => r.s <= k && k <= r.e);
    if (r && r.s === k) expected.push(...r.content);
    else if (!r) expected.push(lines[k - 1]!);
    gapInserts(k);
  }
  return { ops, expected };
}

Deno.test("property: edits with fresh ids always apply exactly as intended", () => {
  fc.assert(
    fc.property(
      fc.array(line, { maxLength: 25 }),
      fc.array(seed, { minLength: 1, maxLength: 6 }),
      (lines, seeds) => {
        const { ops, expected } = buildOps(lines, seeds);
        if (ops.length === 0) return;
        const out = planLineEdits(doc(lines), ops, { path: "f", shown: viewOf(lines) });
        assertEquals(out.lines, expected);
        assertEquals(out.eols, expected.map(() => "\n"));
      },
    ),
    { numRuns: 600 },
  );
});

const mutation = fc.array(
  fc.record({
    insert: fc.boolean(),
    at: fc.nat(),
    lines: fc.array(line, { minLength: 1, maxLength: 3 }),
  }),
  { maxLength: 4 },
);

function mutate(
  part: string[],
  muts: { insert: boolean; at: number; lines: string[] }[],
): string[] {
  const out = part.slice();
  for (const m of muts) {
    const at = out.length === 0 ? 0 : m.at % (out.length + (m.insert ? 1 : 0));
    if (m.insert) out.splice(at, 0, ...m.lines);
    else if (out.length > 0) out.splice(at, Math.min(m.lines.length, out.length - at));
  }
  return out;
}

Deno.test("property: old ids after edits elsewhere hit the same content or fail loudly", () => {
  let applied = 0;
  let failed = 0;
  fc.assert(
    fc.property(
      fc.array(line, { minLength: 1, maxLength: 25 }),
      fc.nat(),
      fc.nat({ max: 4 }),
      fc.array(line, { maxLength: 3 }),
      mutation,
      mutation,
      (before, startSeed, len, content, above, below) => {
        const s = (startSeed % before.length) + 1;
        const e = Math.min(before.length, s + len);
        const target = before.slice(s - 1, e);
        const now = [
          ...mutate(before.slice(0, s - 1), above),
          ...target,
          ...mutate(before.slice(e), below),
        ];
        const op: EditOp = {
          op: "replace",
          start: id(before, s),
          end: id(before, e),
          lines: content,
          what: "operations[0]",
        };
        let out: TextDoc;
        try {
          out = planLineEdits(doc(now), [op], { path: "f", shown: viewOf(before) });
        } catch (err) {
          assert(err instanceof AnchorError && err.code === "STALE_LINE_ID", String(err));
          failed++;
          return;
        }
        applied++;
        // It applied at lines s..e of the current file: they must hold exactly the aimed content,
        // and nothing else may have changed.
        assertEquals(now.slice(s - 1, e), target);
        assertEquals(out.lines, [...now.slice(0, s - 1), ...content, ...now.slice(e)]);
      },
    ),
    { numRuns: 1500 },
  );
  assert(applied > 0 && failed > 0, `both outcomes occur (applied ${applied}, failed ${failed})`);
});

Deno.test("property: a line that changed but kept its 8-bit hash is never edited silently", () => {
  const partner: Record<string, string> = { v23: "v26", v26: "v23", v16: "v31", v31: "v16" };
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom<string>("v23", "v16", "a", "}"), { minLength: 1, maxLength: 12 }),
      fc.nat(),
      fc.nat({ max: 3 }),
      fc.nat(),
      (before, startSeed, len, pick) => {
        const s = (startSeed % before.length) + 1;
        const e = Math.min(before.length, s + len);
        const swappable = [];
        for (let k = s; k <= e; k++) if (partner[before[k - 1]!]) swappable.push(k);
        if (swappable.length === 0) return;
        const k = swappable[pick % swappable.length]!;
        const now = before.slice();
        now[k - 1] = partner[before[k - 1]!]!; // same 8-bit hash, different content
        const op: EditOp = {
          op: "replace",
          start: id(before, s),
          end: id(before, e),
          lines: ["x"],
          what: "operations[0]",
        };
        let threw = false;
        try {
          planLineEdits(doc(now), [op], { path: "f", shown: viewOf(before) });
        } catch (err) {
          threw = err instanceof AnchorError && err.code === "STALE_LINE_ID";
        }
        assert(threw, `edit of ${s}..${e} after line ${k} changed must fail`);
      },
    ),
    { numRuns: 500 },
  );
});
