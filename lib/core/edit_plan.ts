// Planning a batch of line edits (batch_edit, extract_lines) against a document as it was viewed:
// parse ids, verify every one (ends against the file, interiors against what the agent was
// shown), reject overlaps, then apply all operations at once in memory. Pure; writes happen in ops.

import { AnchorError } from "./errors.ts";
import {
  checkLineId,
  findMovedLines,
  hashHex,
  hashLine,
  type LineId,
  parseLineId,
  renderLine,
  type StaleId,
  staleIdError,
} from "./line_id.ts";
import { linePrint } from "./shown_lines.ts";
import { dominantEol, type TextDoc } from "./text_file.ts";

/** Where an insert goes: after a verified line, at the start (0) or at the end (-1). */
export type Anchor = { kind: "start" } | { kind: "end" } | { kind: "after"; id: LineId };

export type EditOp =
  | { op: "insert"; anchor: Anchor; lines: string[]; what: string }
  | { op: "replace"; start: LineId; end: LineId; lines: string[]; what: string };

/** An operation as a model sends it; validated by parseEditOps. */
export interface RawEditOp {
  op?: unknown;
  anchor?: unknown;
  start?: unknown;
  end?: unknown;
  content?: unknown;
}

/** What the agent was shown for this file: the line hashes handed out in views and results. */
export interface ShownMemory {
  /** False when nothing of this file was ever shown (fresh server, CLI): interiors unchecked. */
  known: boolean;
  hashAt(line: number): number | undefined;
  /** The 32-bit content fingerprint shown for the line (linePrint), when the recorder had it. */
  printAt?(line: number): number | undefined;
}

export const NO_MEMORY: ShownMemory = { known: false, hashAt: () => undefined };

/** Splits content into lines: CRLF is read as LF, one trailing newline ends the last line. */
export function contentLines(content: string): string[] {
  const text = content.replace(/\r\n/g, "\n");
  if (text === "") return [];
  return (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n");
}

function invalidOp(message: string, hint: string): AnchorError {
  return new AnchorError({ code: "INVALID_OPERATION", message, hint });
}

const EXAMPLE_OPS =
  '[{"op":"replace","start":"12:a3","end":"14:0f","content":"new lines\\n"},{"op":"insert","anchor":-1,"content":"appended\\n"}]';

/** Parses an anchor: 0 (start), -1 (end), or a line id. Any other number is refused. */
export function parseAnchor(raw: unknown, what: string): Anchor {
  if (raw === 0 || raw === "0") return { kind: "start" };
  if (raw === -1 || raw === "-1") return { kind: "end" };
  if (raw === undefined || raw === null || raw === "") {
    throw invalidOp(
      `${what} is missing: an insert needs an anchor.`,
      `Pass "anchor": a line id to insert after (e.g. "12:a3"), 0 for the file start, or -1 to append.`,
    );
  }
  if (typeof raw === "number") {
    throw new AnchorError({
      code: "INVALID_LINE_ID",
      message: `${what} ${raw} is a bare line number; only 0 (file start) and -1 (end of file) ` +
        `are accepted as numbers, because a number alone cannot prove the line is still the ` +
        `one you saw.`,
      hint: `Pass the line's id as view shows it before the "|", e.g. "${
        Math.abs(raw) || 1
      }:a3"; run view to get current ids.`,
    });
  }
  return { kind: "after", id: parseLineId(raw, what) };
}

/** Validates the operations a model sent; every message names the operation by index. */
export function parseEditOps(raw: unknown): EditOp[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    throw invalidOp(
      "operations must be a non-empty list of insert/replace operations.",
      `e.g. "operations": ${EXAMPLE_OPS}`,
    );
  }
  return raw.map((item: RawEditOp, i): EditOp => {
    const at = `operations[${i}]`;
    if (typeof item !== "object" || item === null) {
      throw invalidOp(`${at} is not an object.`, `e.g. "operations": ${EXAMPLE_OPS}`);
    }
    if (typeof item.content !== "string") {
      throw invalidOp(
        `${at}.content is missing or not a string.`,
        'Give the new lines as one string, e.g. "content": "line one\\nline two\\n"; "" deletes ' +
          "the replaced lines.",
      );
    }
    const lines = contentLines(item.content);
    if (item.op === "insert") {
      if (item.start !== undefined || item.end !== undefined) {
        throw invalidOp(
          `${at} is an insert but has start/end; an insert takes "anchor".`,
          `{"op":"insert","anchor":"12:a3","content":"..."} inserts after line 12, or use ` +
            `{"op":"replace","start":...,"end":...} to replace lines.`,
        );
      }
      if (lines.length === 0) {
        throw invalidOp(
          `${at} inserts empty content: nothing would change.`,
          'Give the lines to insert; "\\n" inserts one blank line.',
        );
      }
      return { op: "insert", anchor: parseAnchor(item.anchor, `${at}.anchor`), lines, what: at };
    }
    if (item.op === "replace") {
      if (item.anchor !== undefined) {
        throw invalidOp(
          `${at} is a replace but has "anchor"; a replace takes "start" and optional "end".`,
          `{"op":"replace","start":"12:a3","end":"14:0f","content":"..."}`,
        );
      }
      if (item.start === undefined) {
        throw invalidOp(
          `${at}.start is missing: a replace needs the id of its first line.`,
          `{"op":"replace","start":"12:a3","end":"14:0f","content":"..."}`,
        );
      }
      const start = parseLineId(item.start, `${at}.start`);
      const end = item.end === undefined || item.end === ""
        ? start
        : parseLineId(item.end, `${at}.end`);
      if (end.line < start.line) {
        throw invalidOp(
          `${at}: end ${end.line}:${hashHex(end.hash)} comes before start ${start.line}:${
            hashHex(start.hash)
          }.`,
          "Swap them: start is the first line of the range, end the last (inclusive).",
        );
      }
      return { op: "replace", start, end, lines, what: at };
    }
    throw invalidOp(
      `${at}.op is ${JSON.stringify(item.op)}; it must be "insert" or "replace".`,
      `e.g. "operations": ${EXAMPLE_OPS}`,
    );
  });
}

/** The old-file span an operation touches, for overlap checks: [from, to] inclusive, or a gap. */
interface Span {
  /** Replace: first and last replaced line. Insert: the gap after line `from` (to = from - 0.5). */
  from: number;
  to: number;
  insert: boolean;
  index: number;
}

function describeOp(op: EditOp): string {
  if (op.op === "insert") {
    const a = op.anchor;
    return `${op.what} (insert after ${
      a.kind === "start" ? "0 (file start)" : a.kind === "end" ? "-1 (end)" : idText(a.id)
    })`;
  }
  return `${op.what} (replace ${idText(op.start)}${
    op.end.line === op.start.line ? "" : `..${idText(op.end)}`
  })`;
}

const idText = (id: LineId) => `${id.line}:${hashHex(id.hash)}`;

export interface PlanOptions {
  /** The path as the agent wrote it, for messages. */
  path: string;
  shown?: ShownMemory;
}

export interface PlannedEdit {
  doc: TextDoc;
  /** Lines (1-based, in the new file) that the operations wrote, for the result summary. */
  changedLines: number;
}

/**
 * Verifies every id of `ops` against `doc` (and interiors against what was shown), rejects
 * overlaps, and returns the new document. Throws STALE_LINE_ID / OVERLAPPING_OPERATIONS.
 */
export function planLineEdits(doc: TextDoc, ops: readonly EditOp[], options: PlanOptions): TextDoc {
  const lines = doc.lines;
  const shown = options.shown ?? NO_MEMORY;
  const stale: StaleId[] = [];
  const interior: { op: EditOp; lines: number[]; unshown: number[] }[] = [];
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
    if (!endsOk || !shown.known) continue;
    // Every line the operation depends on must still be what the agent was shown.
    const from = op.op === "insert" ? (op.anchor.kind === "after" ? op.anchor.id.line : 0) : op
      .start.line;
    const to = op.op === "insert" ? from : op.end.line;
    const changed: number[] = [];
    const unshown: number[] = [];
    for (let n = Math.max(1, from); n <= to; n++) {
      const was = shown.hashAt(n);
      const print = shown.printAt?.(n);
      if (was === undefined) unshown.push(n);
      else if (was !== hashLine(lines[n - 1]!)) changed.push(n);
      // Same 8-bit hash, different content (1 in 256): only the fingerprint can tell.
      else if (print !== undefined && print !== linePrint(lines[n - 1]!)) changed.push(n);
    }
    const endsShown = ids.every(({ id }) => shown.hashAt(id.line) === id.hash);
    if (changed.length > 0 || (unshown.length > 0 && !endsShown)) {
      interior.push({ op, lines: changed, unshown });
      const first = ids[0]!;
      stale.push({ id: first.id, what: first.what, reason: "interior_changed" });
    }
  }
  if (stale.length > 0) {
    const error = staleIdError(options.path, lines, stale);
    const extra = [
      ...interior.map((x) => describeInterior(x, lines, shown)),
      ...ops.flatMap((op) => describeMovedRange(op, lines, stale)),
    ];
    if (extra.length > 0) {
      throw new AnchorError({
        code: error.code,
        message: error.message,
        hint: error.hint,
        detail: `${error.detail}\n\n${extra.join("\n\n")}`,
      });
    }
    throw error;
  }
  rejectOverlaps(ops);
  return applyLineEdits(doc, ops);
}

const MAX_RANGE_SHOWN = 40;

function describeInterior(
  x: { op: EditOp; lines: number[]; unshown: number[] },
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

function rejectOverlaps(ops: readonly EditOp[]): void {
  const spans = ops.map((op, i) => spanOf(op, i, Number.MAX_SAFE_INTEGER));
  for (let i = 0; i < spans.length; i++) {
    for (let j = i + 1; j < spans.length; j++) {
      const a = spans[i]!;
      const b = spans[j]!;
      if (overlaps(a, b)) {
        throw new AnchorError({
          code: "OVERLAPPING_OPERATIONS",
          message:
            `${describeOp(ops[a.index]!)} overlaps ${
              describeOp(ops[b.index]!)
            }; nothing was written. All operations refer to the file as you viewed it, so ` +
            "each line may be touched by one operation only.",
          hint: "Merge the two into one replace covering both ranges, or split them so they " +
            "touch different lines (an insert may sit right after a replaced range's end).",
        });
      }
    }
  }
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
 * (see spliceLines); the presence or absence of a final newline is kept.
 */
export function applyLineEdits(doc: TextDoc, ops: readonly EditOp[]): TextDoc {
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
  const out: TextDoc = { ...doc, lines: doc.lines.slice(), eols: doc.eols.slice() };
  for (const { op, span } of order) {
    if (op.op === "insert") spliceLines(out, span.from, 0, op.lines, eol);
    else spliceLines(out, op.start.line - 1, op.end.line - op.start.line + 1, op.lines, eol);
  }
  settleFinalNewline(out, doc);
  return out;
}

/** Replaces `count` lines at 0-based `at` with `newLines`, assigning endings as described above. */
export function spliceLines(
  doc: TextDoc,
  at: number,
  count: number,
  newLines: readonly string[],
  eol: string,
): void {
  const oldEols = doc.eols.slice(at, at + count);
  // Lines beyond the replaced ones follow their neighbourhood: the last replaced line's ending,
  // or for an insert the line above (below at the file start); the dominant one otherwise.
  const near = [oldEols[count - 1], doc.eols[at - 1], doc.eols[at]].find((e) => e) ?? eol;
  const newEols = newLines.map((_, i) => {
    const e = oldEols[i];
    return e === undefined || e === "" ? near : e;
  });
  // A replaced last line without a terminator keeps having none at the end of the new block.
  if (count > 0 && at + count === doc.lines.length && oldEols[count - 1] === "") {
    if (newEols.length > 0) newEols[newEols.length - 1] = "";
  }
  doc.lines.splice(at, count, ...newLines);
  doc.eols.splice(at, count, ...newEols);
}

/** Keeps the original's final-newline presence; every line but the last gets a terminator. */
export function settleFinalNewline(doc: TextDoc, original: TextDoc): void {
  const eol = dominantEol(original);
  const hadFinal = original.lines.length === 0 || original.eols[original.eols.length - 1] !== "";
  for (let i = 0; i < doc.eols.length - 1; i++) if (doc.eols[i] === "") doc.eols[i] = eol;
  const last = doc.eols.length - 1;
  if (last < 0) return;
  if (!hadFinal) doc.eols[last] = "";
  else if (doc.eols[last] === "") doc.eols[last] = eol;
}

/** True when two documents have the same lines and endings (an edit that would change nothing). */
export function sameDoc(a: TextDoc, b: TextDoc): boolean {
  if (a.lines.length !== b.lines.length) return false;
  for (let i = 0; i < a.lines.length; i++) {
    if (a.lines[i] !== b.lines[i] || a.eols[i] !== b.eols[i]) return false;
  }
  return true;
}
