// The result of every edit: a compact unified diff whose new-side lines carry the fresh ids of the
// new file (`+12:4f|content`, ` 13:a0|context`), so the next edit can target them without a view.
// Pure; uses the `diff` package on the changed window only (common head and tail are skipped).

import { diffArrays } from "diff";
import { formatLineId, hashLine, renderLine } from "./line_id.ts";
import { linePrint } from "./shown_lines.ts";
import { plural } from "../plural.ts";

interface EditDiff {
  /** The hunks, ready to show. Empty when nothing changed. */
  text: string;
  /** New-file lines shown in `text` (1-based) with their hashes: recorded as "shown". */
  shown: ShownLine[];
  added: number;
  removed: number;
  /** True when the diff was cut to `maxLines`. */
  truncated: boolean;
}

/** A line shown to the agent: number, 8-bit hash and 32-bit content fingerprint. */
export interface ShownLine {
  line: number;
  hash: number;
  print: number;
}

interface DiffOptions {
  /** Unchanged lines shown around each change (default 2). */
  context?: number;
  /** Cap on rendered diff lines (default 400). */
  maxLines?: number;
}

const MAX_EDIT_LENGTH = 1000;
/**
 * Longer lines are cut in the diff text to a window around what changed (their id still covers
 * the whole line): a minified file must not come back whole in every edit result.
 */
const DIFF_MAX_LINE_CHARS = 400;
/** Characters kept before the first changed character of a cut line. */
const WINDOW_BEFORE = 120;
/** Runs of removed or added lines longer than this show only their ends and a count. */
const DIFF_COLLAPSE_RUN = 20;
/** Lines kept at each end of a collapsed run. */
const COLLAPSE_ENDS = 3;

/**
 * `text` cut to at most DIFF_MAX_LINE_CHARS characters around the changed span `[from, to)`
 * (its first differing character against the line it replaces, or the start for a context line).
 */
function cutLine(text: string, from = 0, to = from): string {
  if (text.length <= DIFF_MAX_LINE_CHARS) return text;
  let start = Math.max(0, Math.min(from - WINDOW_BEFORE, text.length - DIFF_MAX_LINE_CHARS));
  let end = Math.min(text.length, start + DIFF_MAX_LINE_CHARS);
  // Never split a surrogate pair.
  if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start--;
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end++;
  const shownTo = to > end ? ` (the change runs to character ${to.toLocaleString("en-US")})` : "";
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""}` +
    ` [line cut: ${plural(text.length, "character")}; shown ${
      (start + 1).toLocaleString("en-US")
    }-${end.toLocaleString("en-US")}${shownTo}]`;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** The span `[from, to)` of `text` that differs from `other` (common prefix and suffix skipped). */
function changedSpan(text: string, other: string | undefined): [number, number] {
  if (other === undefined) return [0, text.length];
  const shortest = Math.min(text.length, other.length);
  let pre = 0;
  while (pre < shortest && text.charCodeAt(pre) === other.charCodeAt(pre)) pre++;
  let suf = 0;
  while (
    suf < shortest - pre &&
    text.charCodeAt(text.length - 1 - suf) === other.charCodeAt(other.length - 1 - suf)
  ) suf++;
  return [pre, Math.max(pre, text.length - suf)];
}

interface Row {
  kind: " " | "-" | "+";
  text: string;
  /** 1-based old line (for " " and "-"). */
  oldNo: number;
  /** 1-based new line (for " " and "+"). */
  newNo: number;
  /** For a changed line: the line it pairs with on the other side (for the cut window). */
  partner?: string;
}

export function renderEditDiff(
  oldLines: readonly string[],
  newLines: readonly string[],
  options: DiffOptions = {},
): EditDiff {
  const context = options.context ?? 2;
  const maxLines = options.maxLines ?? 400;
  let head = 0;
  const shortest = Math.min(oldLines.length, newLines.length);
  while (head < shortest && oldLines[head] === newLines[head]) head++;
  let tail = 0;
  while (
    tail < shortest - head &&
    oldLines[oldLines.length - 1 - tail] === newLines[newLines.length - 1 - tail]
  ) tail++;
  if (head === oldLines.length && head === newLines.length) {
    return { text: "", shown: [], added: 0, removed: 0, truncated: false };
  }
  const oldMid = oldLines.slice(head, oldLines.length - tail);
  const newMid = newLines.slice(head, newLines.length - tail);
  const rows: Row[] = [];
  // Context before the window.
  for (let i = Math.max(0, head - context); i < head; i++) {
    rows.push({ kind: " ", text: oldLines[i]!, oldNo: i + 1, newNo: i + 1 });
  }
  let o = head;
  let n = head;
  // Myers diff is O((N+M)·D): past a few thousand differing lines (a rewritten file) show the
  // window as removed-then-added instead of spending seconds on a minimal diff.
  // At least |N - M| lines differ: past the budget, Myers would give up after its full cost.
  const tooFar = Math.abs(oldMid.length - newMid.length) > MAX_EDIT_LENGTH;
  const changes =
    (tooFar ? undefined : diffArrays(oldMid, newMid, { maxEditLength: MAX_EDIT_LENGTH })) ??
      [
        { value: oldMid, removed: true, added: false, count: oldMid.length },
        { value: newMid, removed: false, added: true, count: newMid.length },
      ];
  for (let c = 0; c < changes.length; c++) {
    const change = changes[c]!;
    // A removed block followed by an added one: pair them line by line, so a long line is cut
    // around what changed in it.
    const other = change.removed && changes[c + 1]?.added
      ? changes[c + 1]!.value
      : change.added && changes[c - 1]?.removed
      ? changes[c - 1]!.value
      : undefined;
    for (let k = 0; k < change.value.length; k++) {
      const text = change.value[k]!;
      const partner = other?.[k];
      if (change.added) rows.push({ kind: "+", text, oldNo: o, newNo: ++n, partner });
      else if (change.removed) rows.push({ kind: "-", text, oldNo: ++o, newNo: n, partner });
      else rows.push({ kind: " ", text, oldNo: ++o, newNo: ++n });
    }
  }
  for (let k = 0; k < Math.min(context, tail); k++) {
    rows.push({
      kind: " ",
      text: oldLines[oldLines.length - tail + k]!,
      oldNo: ++o,
      newNo: ++n,
    });
  }
  return renderHunks(rows, context, maxLines);
}

/** Changed rows and `context` rows around them; hunks split where a longer run is unchanged. */
function keptRows(rows: Row[], context: number): boolean[] {
  const keep = new Array<boolean>(rows.length).fill(false);
  rows.forEach((r, i) => {
    if (r.kind === " ") return;
    for (let k = Math.max(0, i - context); k <= Math.min(rows.length - 1, i + context); k++) {
      keep[k] = true;
    }
  });
  return keep;
}

/** `@@ -oldStart,oldCount +newStart,newCount @@` of one hunk. */
function hunkHeader(hunk: Row[]): string {
  const oldStart = hunk.find((r) => r.kind !== "+")?.oldNo ?? hunk[0]!.oldNo;
  const newStart = hunk.find((r) => r.kind !== "-")?.newNo ?? hunk[0]!.newNo;
  const oldCount = hunk.filter((r) => r.kind !== "+").length;
  const newCount = hunk.filter((r) => r.kind !== "-").length;
  return `@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`;
}

function renderHunks(rows: Row[], context: number, maxLines: number): EditDiff {
  const keep = keptRows(rows, context);
  const out: string[] = [];
  const shown: ShownLine[] = [];
  let added = 0;
  let removed = 0;
  let truncated = false;
  let i = 0;
  while (i < rows.length) {
    if (!keep[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j < rows.length && keep[j]) j++;
    const hunk = rows.slice(i, j);
    if (!truncated) out.push(hunkHeader(hunk));
    let k = 0;
    while (k < hunk.length) {
      const r = hunk[k]!;
      // A run of removed or added lines longer than DIFF_COLLAPSE_RUN: its ends and a count.
      // The hidden lines are not recorded as shown (an edit of them needs a view, or a range
      // from the ids shown at the run's ends).
      let run = 0;
      if (r.kind !== " ") { while (hunk[k + run]?.kind === r.kind) run++; }
      const collapse = run > DIFF_COLLAPSE_RUN;
      const count = collapse ? run : 1;
      for (let m = 0; m < count; m++) {
        const row = hunk[k + m]!;
        if (row.kind === "+") added++;
        if (row.kind === "-") removed++;
        if (out.length >= maxLines) {
          truncated = true;
          continue;
        }
        if (collapse && m === COLLAPSE_ENDS) {
          const hidden = run - 2 * COLLAPSE_ENDS;
          const first = row.kind === "+" ? row.newNo : row.oldNo;
          const range = `${first.toLocaleString("en-US")}-${
            (first + hidden - 1).toLocaleString("en-US")
          }`;
          out.push(
            row.kind === "+"
              ? `+… ${plural(hidden, "more added line")} (new lines ${range}, not shown)`
              : `-… ${plural(hidden, "more removed line")} (old lines ${range})`,
          );
        }
        if (collapse && m >= COLLAPSE_ENDS && m < run - COLLAPSE_ENDS) continue;
        pushRow(row);
      }
      k += count;
    }
    i = j;
  }
  return { text: out.join("\n"), shown, added, removed, truncated };

  function pushRow(r: Row): void {
    const [from, to] = r.kind === " " ? [0, 0] : changedSpan(r.text, r.partner);
    if (r.kind === "-") {
      out.push(`-${cutLine(r.text, from, to)}`);
      return;
    }
    out.push(
      r.text.length <= DIFF_MAX_LINE_CHARS
        ? `${r.kind}${renderLine(r.newNo, r.text)}`
        : `${r.kind}${formatLineId(r.newNo, r.text)}|${cutLine(r.text, from, to)}`,
    );
    shown.push({ line: r.newNo, hash: hashLine(r.text), print: linePrint(r.text) });
  }
}

/** Lines of a whole file written or restored at once (create, undo of a delete) shown as its head. */
const FILE_HEAD_LINES = 5;

/**
 * The head of a file written whole (created, or restored by undo): its first lines with ids (long
 * lines cut), and a count of the rest. Only the lines shown are recorded as shown.
 */
export function renderFileHead(
  lines: readonly string[],
  max = FILE_HEAD_LINES,
): { text: string; shown: ShownLine[]; rest: number } {
  const head = lines.slice(0, max);
  const shown: ShownLine[] = [];
  const out = head.map((text, i) => {
    shown.push({ line: i + 1, hash: hashLine(text), print: linePrint(text) });
    return text.length <= DIFF_MAX_LINE_CHARS
      ? renderLine(i + 1, text)
      : `${formatLineId(i + 1, text)}|${cutLine(text)}`;
  });
  return { text: out.join("\n"), shown, rest: lines.length - head.length };
}
