// The most common edit slip: context copied into the new content by mistake. A replacement whose
// first line repeats the line just before the range (or whose last line repeats the line just
// after it), or an insert whose first line repeats its anchor line, would leave that line twice.
// Blank lines and lone closing brackets repeat legitimately and are never counted. Pure.

import { describeOp, type EditOp } from "./edit_ops.ts";
import { AnchorError } from "../errors.ts";
import { formatLineId } from "./line_id.ts";

interface EditSlip {
  op: EditOp;
  /** Which end of the new content repeats a neighbour. */
  side: "first" | "last";
  /** The repeated line (1-based, in the file as viewed) and its text. */
  line: number;
  text: string;
}

// Exported for tests.
/** Lines that legitimately repeat next to each other: blank, or only closing brackets/`end`. */
export function isRepeatableLine(text: string): boolean {
  const t = text.trim();
  return t === "" || closersThenPunctuation(t) || /^(end|fi|done|esac|\*\/|-->)$/.test(t) ||
    /^[\])}]+[;,]?\s*(\/\/.*)?$/.test(t);
}

/**
 * What /^[\])}]+[;,)]*$/ tests, without its backtracking: ")" is in both classes, so the regex
 * tried every split of a run of ")" (2 s on 20,000 of them and an "x"). The greedy run of closers
 * is the only split to try: any other leaves a shorter tail that the same characters must fill.
 */
function closersThenPunctuation(t: string): boolean {
  let i = 0;
  while (i < t.length && (t[i] === "]" || t[i] === ")" || t[i] === "}")) i++;
  if (i === 0) return false;
  for (; i < t.length; i++) if (t[i] !== ";" && t[i] !== "," && t[i] !== ")") return false;
  return true;
}

function same(a: string, b: string): boolean {
  return a.trim() === b.trim();
}

/** The slips in `ops` against `lines` (the file as viewed; ids already verified). */
export function findEditSlips(lines: readonly string[], ops: readonly EditOp[]): EditSlip[] {
  const slips: EditSlip[] = [];
  for (const op of ops) {
    if (op.lines.length === 0) continue;
    const first = op.lines[0]!;
    const last = op.lines[op.lines.length - 1]!;
    if (op.op === "insert") {
      if (op.anchor.kind !== "after") continue;
      const n = op.anchor.id.line;
      const anchor = lines[n - 1];
      if (anchor !== undefined && same(first, anchor) && !isRepeatableLine(anchor)) {
        slips.push({ op, side: "first", line: n, text: anchor });
      }
      continue;
    }
    const before = lines[op.start.line - 2];
    if (before !== undefined && same(first, before) && !isRepeatableLine(before)) {
      slips.push({ op, side: "first", line: op.start.line - 1, text: before });
    }
    const after = lines[op.end.line];
    // A one-line content already counted as a repeat of the line before is not counted twice.
    if (
      after !== undefined && same(last, after) && !isRepeatableLine(after) &&
      !(op.lines.length === 1 && slips.at(-1)?.op === op)
    ) {
      slips.push({ op, side: "last", line: op.end.line + 1, text: after });
    }
  }
  return slips;
}

/** The refusal: names each repeated line and gives the corrected operation. */
export function editSlipError(
  path: string,
  lines: readonly string[],
  slips: EditSlip[],
): AnchorError {
  const parts = slips.map((s) => {
    const where = s.op.op === "insert"
      ? "its anchor line"
      : s.side === "first"
      ? "the line just before the range"
      : "the line just after the range";
    return `${describeOp(s.op)}: its ${s.side} line repeats ${where}, ${
      formatLineId(s.line, s.text)
    }|${clip(s.text)}, which would then appear twice.`;
  });
  const ops = [...new Set(slips.map((s) => s.op))];
  const fixes = ops.map((op) =>
    JSON.stringify(corrected(op, slips.filter((s) => s.op === op), lines))
  );
  return new AnchorError({
    code: "REPEATED_CONTEXT_LINE",
    message: `Nothing was written to ${JSON.stringify(path)}. ${parts.join(" ")}`,
    hint: `If the line was copied as context, send the corrected operation${
      fixes.length > 1 ? "s" : ""
    }: ${
      fixes.join(" · ")
    }. If the repeat is intended, send the same call with "allow_repeat": true.`,
  });
}

function clip(text: string): string {
  const t = text.trim();
  return t.length > 80 ? `${t.slice(0, 80)}…` : t;
}

/** The operation without the repeated lines (content trimmed at the slipped ends). */
function corrected(
  op: EditOp,
  slips: readonly EditSlip[],
  lines: readonly string[],
): Record<string, unknown> {
  const from = slips.some((s) => s.side === "first") ? 1 : 0;
  const to = op.lines.length - (slips.some((s) => s.side === "last") ? 1 : 0);
  const content = op.lines.slice(from, Math.max(from, to)).join("\n");
  if (op.op === "insert") {
    const n = op.anchor.kind === "after" ? op.anchor.id.line : 0;
    return { op: "insert", anchor: formatLineId(n, lines[n - 1] ?? ""), content };
  }
  const start = formatLineId(op.start.line, lines[op.start.line - 1] ?? "");
  const end = formatLineId(op.end.line, lines[op.end.line - 1] ?? "");
  return { op: "replace", start, ...(end !== start && { end }), content };
}
