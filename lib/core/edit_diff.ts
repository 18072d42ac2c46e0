// The result of every edit: a compact unified diff whose new-side lines carry the fresh ids of the
// new file (`+12:4f|content`, ` 13:a0|context`), so the next edit can target them without a view.
// Pure; uses the `diff` package on the changed window only (common head and tail are skipped).

import { diffArrays } from "diff";
import { formatLineId, hashLine, renderLine } from "./line_id.ts";
import { linePrint } from "./shown_lines.ts";
import { plural } from "./plural.ts";

export interface EditDiff {
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

export interface DiffOptions {
  /** Unchanged lines shown around each change (default 2). */
  context?: number;
  /** Cap on rendered diff lines (default 400). */
  maxLines?: number;
}

const MAX_EDIT_LENGTH = 1000;
/**
 * Longer lines are cut in the diff text (their id still covers the whole line), as in view: a
 * file holding one huge line must not come back whole in every edit result.
 */
export const DIFF_MAX_LINE_CHARS = 4000;

function cutLine(text: string): string {
  return text.length <= DIFF_MAX_LINE_CHARS
    ? text
    : `${text.slice(0, DIFF_MAX_LINE_CHARS)} … [line cut: ${plural(text.length, "character")}]`;
}
/** In a diff too long to show whole, removed runs keep this many lines before a count. */
const COMPACT_REMOVED = 3;

interface Row {
  kind: " " | "-" | "+";
  text: string;
  /** 1-based old line (for " " and "-"). */
  oldNo: number;
  /** 1-based new line (for " " and "+"). */
  newNo: number;
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
  for (const change of changes) {
    for (const text of change.value) {
      if (change.added) rows.push({ kind: "+", text, oldNo: o, newNo: ++n });
      else if (change.removed) rows.push({ kind: "-", text, oldNo: ++o, newNo: n });
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

function renderHunks(rows: Row[], context: number, maxLines: number): EditDiff {
  // Keep changed rows and `context` rows around them; split where a longer run is unchanged.
  const keep = new Array<boolean>(rows.length).fill(false);
  rows.forEach((r, i) => {
    if (r.kind === " ") return;
    for (let k = Math.max(0, i - context); k <= Math.min(rows.length - 1, i + context); k++) {
      keep[k] = true;
    }
  });
  // When everything would not fit, runs of removed lines shrink to their first lines and a
  // count: the new lines (with their ids) are what the next edit needs.
  const compact = keep.filter(Boolean).length > maxLines;
  const out: string[] = [];
  const shown: ShownLine[] = [];
  let added = 0;
  let removed = 0;
  let truncated = false;
  let removedRun = 0;
  let i = 0;
  while (i < rows.length) {
    if (!keep[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j < rows.length && keep[j]) j++;
    const hunk = rows.slice(i, j);
    const oldStart = hunk.find((r) => r.kind !== "+")?.oldNo ?? hunk[0]!.oldNo;
    const newStart = hunk.find((r) => r.kind !== "-")?.newNo ?? hunk[0]!.newNo;
    const oldCount = hunk.filter((r) => r.kind !== "+").length;
    const newCount = hunk.filter((r) => r.kind !== "-").length;
    if (!truncated) {
      out.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`);
    }
    for (let k = 0; k < hunk.length; k++) {
      const r = hunk[k]!;
      if (r.kind === "+") added++;
      if (r.kind === "-") removed++;
      removedRun = r.kind === "-" ? removedRun + 1 : 0;
      if (out.length >= maxLines) {
        truncated = true;
        continue;
      }
      if (r.kind === "-") {
        if (compact && removedRun > COMPACT_REMOVED) {
          if (removedRun === COMPACT_REMOVED + 1) {
            let rest = 0;
            while (hunk[k + rest]?.kind === "-") rest++;
            out.push(`-… ${plural(rest, "more removed line")}`);
          }
          continue;
        }
        out.push(`-${cutLine(r.text)}`);
      } else {
        out.push(
          r.text.length <= DIFF_MAX_LINE_CHARS
            ? `${r.kind}${renderLine(r.newNo, r.text)}`
            : `${r.kind}${formatLineId(r.newNo, r.text)}|${cutLine(r.text)}`,
        );
        shown.push({ line: r.newNo, hash: hashLine(r.text), print: linePrint(r.text) });
      }
    }
    i = j;
  }
  return { text: out.join("\n"), shown, added, removed, truncated };
}
