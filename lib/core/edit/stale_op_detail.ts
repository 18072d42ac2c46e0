// The extra detail a STALE_LINE_ID report gets for a batch of operations: which interior lines
// changed or were never shown, and where a range that moved is now, with fresh ids to retry with.

import { describeOp, type EditOp } from "./edit_ops.ts";
import {
  findMovedLines,
  hashLine,
  type LineHashIndex,
  lineHashIndex,
  type LineId,
  preferShift,
  renderLine,
  type StaleId,
} from "./line_id.ts";
import { linePrint, type ShownMemory } from "./shown_lines.ts";
import { lineRanges } from "./unshown_lines.ts";

/** An operation whose ends verified but whose interior did not match what was shown. */
export interface StaleInterior {
  op: EditOp;
  /** Lines that changed since they were shown. */
  lines: number[];
  /** Lines that were never shown. */
  unshown: number[];
}

/** Shown lines looked at, each side, to tell how the lines around a stale id moved. */
const SHIFT_NEIGHBOURS = 12;

/**
 * How the lines shown around a line moved since they were shown: the shift that the nearest
 * shown lines whose content is unique in the file agree on (by their 32-bit fingerprints), or
 * undefined when they do not agree or none is known. Blank lines and `}` share a hash, so this
 * tells which of two equally near candidates moved there.
 */
export function shownShift(
  lines: readonly string[],
  shown: ShownMemory,
): (line: number) => number | undefined {
  let prints: Map<number, number[]> | undefined;
  return (line) => {
    if (!shown.printAt) return undefined;
    prints ??= printIndex(lines);
    const shifts: number[] = [];
    for (let d = 1; d <= SHIFT_NEIGHBOURS && shifts.length < 3; d++) {
      for (const k of [line - d, line + d]) {
        const p = k >= 1 ? shown.printAt(k) : undefined;
        const at = p === undefined ? undefined : prints.get(p);
        if (at?.length === 1) shifts.push(at[0]! - k);
      }
    }
    return shifts.length > 0 && shifts.every((x) => x === shifts[0]) ? shifts[0] : undefined;
  };
}

function printIndex(lines: readonly string[]): Map<number, number[]> {
  const index = new Map<number, number[]>();
  for (let m = 1; m <= lines.length; m++) {
    const p = linePrint(lines[m - 1]!);
    const list = index.get(p);
    if (list) list.push(m);
    else index.set(p, [m]);
  }
  return index;
}

/** One block of text per problem, to follow the stale-id report. */
export function staleOpDetail(
  ops: readonly EditOp[],
  interior: readonly StaleInterior[],
  lines: readonly string[],
  shown: ShownMemory,
  stale: readonly StaleId[],
  movedBy: (line: number) => number | undefined = shownShift(lines, shown),
): string[] {
  // Built once for the whole report: per operation they made it operations × lines.
  const scan: Scan = { lines, budget: 4 * lines.length + 100_000, movedBy };
  const staleOps = new Set<string>();
  for (const s of stale) {
    if (s.reason === "interior_changed") continue;
    for (let i = s.what.indexOf("."); i !== -1; i = s.what.indexOf(".", i + 1)) {
      staleOps.add(s.what.slice(0, i));
    }
  }
  // Like the stale-id report, details stop after a bound: the size of one error is bounded.
  const out = interior.slice(0, MAX_DETAILED).map((x) => describeInterior(x, scan, shown));
  for (const op of ops) {
    if (out.length >= 2 * MAX_DETAILED) break;
    out.push(...describeMovedRange(op, scan, staleOps));
  }
  return out;
}

/**
 * The file's lines with what the report computes from them once (hash index, fingerprints), and a
 * budget of line comparisons for the fingerprint search, past which it reports nothing more.
 */
interface Scan {
  lines: readonly string[];
  hashes?: LineHashIndex;
  prints?: Map<number, number[]>;
  budget: number;
  /** How the lines shown around a line moved (shownShift). */
  movedBy?: (line: number) => number | undefined;
}

const MAX_RANGE_SHOWN = 40;
/** Operations given their own interior block (and as many moved-range blocks). */
const MAX_DETAILED = 50;

function describeInterior(
  x: StaleInterior,
  scan: Scan,
  shown: ShownMemory,
): string {
  const lines = scan.lines;
  const op = x.op;
  const from = op.op === "insert" ? (op.anchor.kind === "after" ? op.anchor.id.line : 1) : op
    .start.line;
  const to = op.op === "insert" ? from : op.end.line;
  const why: string[] = [];
  if (x.lines.length > 0) {
    why.push(
      `line${x.lines.length === 1 ? "" : "s"} ${lineRanges(x.lines)} changed since you were shown ${
        x.lines.length === 1 ? "it" : "them"
      }`,
    );
  }
  if (x.unshown.length > 0) {
    why.push(
      `line${x.unshown.length === 1 ? "" : "s"} ${lineRanges(x.unshown)} ${
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
  const moved = findByFingerprint(from, to, scan, shown);
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
  scan: Scan,
  shown: ShownMemory,
): number | null {
  const lines = scan.lines;
  const span = to - from;
  if (span + 1 > MAX_RANGE_SHOWN || !shown.printAt) return null;
  const want: number[] = [];
  for (let n = from; n <= to; n++) {
    const p = shown.printAt(n);
    if (p === undefined) return null;
    want.push(p);
  }
  if (!scan.prints) {
    scan.prints = new Map();
    for (let m = 1; m <= lines.length; m++) {
      const p = linePrint(lines[m - 1]!);
      const list = scan.prints.get(p);
      if (list) list.push(m);
      else scan.prints.set(p, [m]);
    }
  }
  let best: number | null = null;
  for (const m of scan.prints.get(want[0]!) ?? []) {
    if (m + span > lines.length) break;
    if (--scan.budget < 0) return null;
    if (m === from) continue;
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
  scan: Scan,
  staleOps: ReadonlySet<string>,
): string[] {
  const lines = scan.lines;
  if (op.op === "insert" && op.anchor.kind !== "after") return [];
  if (!staleOps.has(op.what)) return [];
  const first = op.op === "replace" ? op.start : (op.anchor as { id: LineId }).id;
  const last = op.op === "replace" ? op.end : first;
  const span = last.line - first.line;
  if (span + 1 > MAX_RANGE_SHOWN) return [];
  const starts = preferShift(
    findMovedLines(lines, first.hash, first.line, 6, scan.hashes ??= lineHashIndex(lines))
      .filter((n) =>
        n !== first.line && n + span <= lines.length &&
        hashLine(lines[n + span - 1]!) === last.hash
      ),
    first.line,
    scan.movedBy?.(first.line),
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
