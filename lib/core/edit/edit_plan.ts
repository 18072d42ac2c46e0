// Planning a batch of line edits (batch_edit, extract_lines) against a document as it was viewed:
// verify every id (ends against the file, interiors against what the agent was shown), reject
// overlaps, then apply all operations at once in memory. Pure; writes happen in ops.

import { describeOp, type EditOp } from "./edit_ops.ts";
import { AnchorError } from "../errors.ts";
import { checkLineId, hashLine, type LineId, type StaleId, staleIdError } from "./line_id.ts";
import { linePrint, type ShownMemory } from "./shown_lines.ts";
import { guide } from "../next_step.ts";
import { applySplices, settleFinalNewline } from "./splice_lines.ts";
import { shownShift, type StaleInterior, staleOpDetail } from "./stale_op_detail.ts";
import { unshownLinesError, type UnshownRange } from "./unshown_lines.ts";
import { dominantEol, type TextDoc } from "../text/text_file.ts";

const NO_MEMORY: ShownMemory = { known: false, hashAt: () => undefined };

/** The old-file span an operation touches, for overlap checks: [from, to] inclusive, or a gap. */
interface Span {
  /** Replace: first and last replaced line. Insert: the gap after line `from` (to = from - 0.5). */
  from: number;
  to: number;
  insert: boolean;
  index: number;
}

/** Options of {@linkcode planLineEdits}. */
export interface PlanOptions {
  /** The path as the agent wrote it, for messages. */
  path: string;
  /** What the agent was shown of this file; without it, range interiors are not checked. */
  shown?: ShownMemory;
}

/**
 * Verifies every id of `ops` against `doc` (and interiors against what was shown), rejects
 * overlaps, and returns the new document. Throws STALE_LINE_ID / OVERLAPPING_OPERATIONS.
 */
export function planLineEdits(doc: TextDoc, ops: readonly EditOp[], options: PlanOptions): TextDoc {
  const lines = doc.lines;
  const shown = options.shown ?? NO_MEMORY;
  const stale: StaleId[] = [];
  const interior: StaleInterior[] = [];
  const unseen: UnshownRange[] = [];
  // Checking interiors costs the lines of every range: at most the file plus one line per insert
  // when ranges are disjoint. Overlapping ranges fail anyway (after the stale ids, reported first),
  // so there the checks stop at that budget instead of costing operations × lines.
  const overlap = findOverlap(ops);
  let budget = overlap ? lines.length + ops.length : Infinity;
  for (const op of ops) {
    const ids: { id: LineId; what: string }[] = op.op === "insert"
      ? (op.anchor.kind === "after" ? [{ id: op.anchor.id, what: `${op.what}.anchor` }] : [])
      : [
        { id: op.start, what: `${op.what}.start` },
        ...(
          op.end.line !== op.start.line ? [{ id: op.end, what: `${op.what}.end` }] : []
        ),
      ];
    let endsOk = true;
    for (const { id, what } of ids) {
      const reason = checkLineId(lines, id);
      if (reason) {
        stale.push({ id, what, reason });
        endsOk = false;
      }
    }
    if (!endsOk || !shown.known || budget <= 0) continue;
    // Every line the operation depends on must still be what the agent was shown.
    const from = op.op === "insert" ? (op.anchor.kind === "after" ? op.anchor.id.line : 0) : op
      .start.line;
    const to = op.op === "insert" ? from : op.end.line;
    budget -= to - Math.max(1, from) + 1;
    const changed: number[] = [];
    const unshown: number[] = [];
    for (let n = Math.max(1, from); n <= to; n++) {
      const was = shown.hashAt(n);
      const print = shown.printAt?.(n);
      if (was === undefined) {
        if (!shown.evicted) unshown.push(n);
      } else if (was !== hashLine(lines[n - 1]!)) changed.push(n);
      // Same 8-bit hash, different content (1 in 256): only the fingerprint can tell.
      else if (print !== undefined && print !== linePrint(lines[n - 1]!)) changed.push(n);
    }
    const endsShown = ids.every(({ id }) => shown.hashAt(id.line) === id.hash);
    if (changed.length > 0) {
      interior.push({ op, lines: changed, unshown });
      const first = ids[0]!;
      stale.push({ id: first.id, what: first.what, reason: "interior_changed" });
    } else if (unshown.length > 0 && !endsShown) {
      // Nothing the agent was shown changed: the range reaches lines it never saw.
      unseen.push({ op, unshown });
    }
  }
  if (stale.length === 0 && unseen.length > 0) throw unshownLinesError(options.path, lines, unseen);
  if (stale.length > 0) {
    for (const u of unseen) interior.push({ op: u.op, lines: [], unshown: u.unshown });
    const movedBy = shownShift(lines, shown);
    const error = staleIdError(options.path, lines, stale, undefined, movedBy);
    const extra = staleOpDetail(ops, interior, lines, shown, stale, movedBy);
    if (extra.length > 0) {
      throw new AnchorError({
        code: error.code,
        message: error.message,
        ...(error.hintText !== undefined && { hint: error.hintText }),
        detail: guide`${error.detailText ?? ""}\n\n${extra.join("\n\n")}`,
      });
    }
    throw error;
  }
  if (overlap) throw overlapError(ops, overlap);
  return applyLineEdits(doc, ops);
}

function spanOf(op: EditOp, index: number, lineCount: number): Span {
  if (op.op === "replace") {
    return { from: op.start.line, to: op.end.line, insert: false, index };
  }
  const after = op.anchor.kind === "start"
    ? 0
    : op.anchor.kind === "end"
    ? lineCount
    : op.anchor.id.line;
  return { from: after, to: after, insert: true, index };
}

/**
 * Two operations that touch the same line, or undefined. Small batches keep the pairwise scan
 * (it names the first pair in the order given); past that a sort and sweep finds one pair in
 * O(n log n) where the scan cost n² (10^10 checks for 100,000 operations).
 */
function findOverlap(ops: readonly EditOp[]): [number, number] | undefined {
  const spans = ops.map((op, i) => spanOf(op, i, Number.MAX_SAFE_INTEGER));
  if (spans.length <= PAIRWISE_LIMIT) {
    for (let i = 0; i < spans.length; i++) {
      for (let j = i + 1; j < spans.length; j++) {
        if (overlaps(spans[i]!, spans[j]!)) return [i, j];
      }
    }
    return undefined;
  }
  // On a doubled axis line L is the point 2L and the gap after line g the point 2g + 1: a replace
  // covers [2·from, 2·to], an insert is one odd point, and overlaps are intersections.
  const items = spans.map((s) => ({
    index: s.index,
    start: s.insert ? 2 * s.from + 1 : 2 * s.from,
    end: s.insert ? 2 * s.from + 1 : 2 * s.to,
    insert: s.insert,
  }));
  items.sort((a, b) => a.start - b.start || Number(a.insert) - Number(b.insert));
  let reach = -Infinity;
  let owner = -1;
  for (const it of items) {
    if (it.start <= reach) return it.index < owner ? [it.index, owner] : [owner, it.index];
    if (!it.insert && it.end > reach) [reach, owner] = [it.end, it.index];
  }
  return undefined;
}

/** Operations compared pairwise, as before, below this count. */
const PAIRWISE_LIMIT = 1_000;

function overlapError(ops: readonly EditOp[], [a, b]: [number, number]): AnchorError {
  return new AnchorError({
    code: "OVERLAPPING_OPERATIONS",
    message: `${describeOp(ops[a]!)} overlaps ${describeOp(ops[b]!)}; nothing was written. All ` +
      "operations refer to the file as you viewed it, so each line may be touched by one " +
      "operation only.",
    hint: "Merge the two into one replace covering both ranges, or split them so they " +
      "touch different lines (an insert may sit right after a replaced range's end).",
  });
}

function overlaps(a: Span, b: Span): boolean {
  if (a.insert && b.insert) return false; // same anchor: inserted in the order given
  if (!a.insert && !b.insert) return a.from <= b.to && b.from <= a.to;
  const gap = a.insert ? a : b;
  const range = a.insert ? b : a;
  // Inserting after a line strictly inside a replaced range (not after its last line).
  return gap.from >= range.from && gap.from < range.to;
}

/**
 * Applies verified, non-overlapping operations to a copy of `doc`. Line endings: unchanged lines
 * keep theirs; new lines take the replaced lines' endings in order, then their neighbourhood's
 * (see applySplices); the presence or absence of a final newline is kept.
 */
function applyLineEdits(doc: TextDoc, ops: readonly EditOp[]): TextDoc {
  const n = doc.lines.length;
  // Each operation's 0-based position: a replace's first index, an insert's gap (insert at index).
  const order = ops.map((op, i) => {
    const span = spanOf(op, i, n);
    return { op, i, span, pos: span.insert ? span.from : span.from - 1 };
  });
  // Apply bottom-up so earlier positions stay valid; at one position the replace goes first (an
  // insert there sits before it), then inserts in reverse so they end up in the order given.
  order.sort((a, b) => b.pos - a.pos || Number(a.span.insert) - Number(b.span.insert) || b.i - a.i);
  const eol = dominantEol(doc);
  const splices = order.map(({ op, span }) =>
    op.op === "insert"
      ? { at: span.from, count: 0, lines: op.lines }
      : { at: op.start.line - 1, count: op.end.line - op.start.line + 1, lines: op.lines }
  );
  const out: TextDoc = { ...doc, ...applySplices(doc, splices, eol) };
  settleFinalNewline(out, doc);
  return out;
}
