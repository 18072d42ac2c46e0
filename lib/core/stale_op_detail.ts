// The extra detail a STALE_LINE_ID report gets for a batch of operations: which interior lines
// changed or were never shown, and where a range that moved is now, with fresh ids to retry with.

import { describeOp, type EditOp } from "./edit_ops.ts";
import type { ShownMemory } from "./edit_plan.ts";
import { findMovedLines, hashLine, type LineId, renderLine, type StaleId } from "./line_id.ts";
import { linePrint } from "./shown_lines.ts";

/** An operation whose ends verified but whose interior did not match what was shown. */
export interface StaleInterior {
  op: EditOp;
  /** Lines that changed since they were shown. */
  lines: number[];
  /** Lines that were never shown. */
  unshown: number[];
}

/** One block of text per problem, to follow the stale-id report. */
export function staleOpDetail(
  ops: readonly EditOp[],
  interior: readonly StaleInterior[],
  lines: readonly string[],
  shown: ShownMemory,
  stale: readonly StaleId[],
): string[] {
  return [
    ...interior.map((x) => describeInterior(x, lines, shown)),
    ...ops.flatMap((op) => describeMovedRange(op, lines, stale)),
  ];
}

const MAX_RANGE_SHOWN = 40;

function describeInterior(
  x: StaleInterior,
  lines: readonly string[],
  shown: ShownMemory,
): string {
  const op = x.op;
  const from = op.op === "insert" ? (op.anchor.kind === "after" ? op.anchor.id.line : 1) : op
    .start.line;
  const to = op.op === "insert" ? from : op.end.line;
  const why: string[] = [];
  if (x.lines.length > 0) {
    why.push(
      `line${x.lines.length === 1 ? "" : "s"} ${
        compactList(x.lines)
      } changed since you were shown ${x.lines.length === 1 ? "it" : "them"}`,
    );
  }
  if (x.unshown.length > 0) {
    why.push(
      `line${x.unshown.length === 1 ? "" : "s"} ${compactList(x.unshown)} ${
        x.unshown.length === 1 ? "was" : "were"
      } never shown to you and the range's end ids do not match what you were shown`,
    );
  }
  const out = [
    `${describeOp(op)}: ${why.join("; ")}. The ids may match only by their 8-bit hash after ` +
    `lines moved. Current content of lines ${from}-${to}${
      to - from + 1 > MAX_RANGE_SHOWN ? ` (first ${MAX_RANGE_SHOWN})` : ""
    }:`,
  ];
  for (let n = from; n <= Math.min(to, from + MAX_RANGE_SHOWN - 1); n++) {
    out.push(renderLine(n, lines[n - 1]!));
  }
  const moved = findByFingerprint(from, to, lines, shown);
  if (moved !== null) {
    out.push(
      `The content you were shown at lines ${from}-${to} is now at lines ${moved}-${
        moved + to - from
      } (matched by full content fingerprint):`,
    );
    for (let n = moved; n <= moved + to - from; n++) out.push(renderLine(n, lines[n - 1]!));
  }
  return out.join("\n");
}

/**
 * Where the lines shown as `from..to` are now, found by their 32-bit fingerprints (nearest
 * first), or null when the fingerprints are unknown or the block is not found whole.
 */
function findByFingerprint(
  from: number,
  to: number,
  lines: readonly string[],
  shown: ShownMemory,
): number | null {
  const span = to - from;
  if (span + 1 > MAX_RANGE_SHOWN || !shown.printAt) return null;
  const want: number[] = [];
  for (let n = from; n <= to; n++) {
    const p = shown.printAt(n);
    if (p === undefined) return null;
    want.push(p);
  }
  let best: number | null = null;
  for (let m = 1; m + span <= lines.length; m++) {
    if (m === from || linePrint(lines[m - 1]!) !== want[0]) continue;
    let all = true;
    for (let k = 1; k <= span && all; k++) all = linePrint(lines[m + k - 1]!) === want[k];
    if (all && (best === null || Math.abs(m - from) < Math.abs(best - from))) best = m;
  }
  return best;
}

/**
 * For an operation whose ids went stale because lines moved: where a range with the same first
 * and last hashes and the same length (or the insert's anchor line) is now, shown whole with
 * fresh ids at the start of a line, so that one retry can target it (and it counts as shown).
 */
function describeMovedRange(
  op: EditOp,
  lines: readonly string[],
  stale: readonly StaleId[],
): string[] {
  if (op.op === "insert" && op.anchor.kind !== "after") return [];
  if (!stale.some((s) => s.what.startsWith(`${op.what}.`) && s.reason !== "interior_changed")) {
    return [];
  }
  const first = op.op === "replace" ? op.start : (op.anchor as { id: LineId }).id;
  const last = op.op === "replace" ? op.end : first;
  const span = last.line - first.line;
  if (span + 1 > MAX_RANGE_SHOWN) return [];
  const starts = findMovedLines(lines, first.hash, first.line, 6).filter((n) =>
    n !== first.line && n + span <= lines.length &&
    hashLine(lines[n + span - 1]!) === last.hash
  ).slice(0, op.op === "replace" ? 2 : 3);
  return starts.map((n) => {
    const moved = `${describeOp(op)} may have moved by ${n - first.line > 0 ? "+" : ""}${
      n - first.line
    } lines: `;
    const out = [
      span === 0
        ? `${moved}line ${n} has the same hash now (check the content):`
        : `${moved}lines ${n}-${
          n + span
        } now start and end with the same hashes (check the content):`,
    ];
    for (let k = n; k <= n + span; k++) out.push(renderLine(k, lines[k - 1]!));
    return out.join("\n");
  });
}

function compactList(nums: readonly number[]): string {
  const parts: string[] = [];
  let i = 0;
  while (i < nums.length && parts.length < 8) {
    let j = i;
    while (j + 1 < nums.length && nums[j + 1] === nums[j]! + 1) j++;
    parts.push(i === j ? `${nums[i]}` : `${nums[i]}-${nums[j]}`);
    i = j + 1;
  }
  return parts.join(", ") + (i < nums.length ? ", ..." : "");
}
