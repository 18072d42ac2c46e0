// The slip of two edits planned from one view: the second one's range holds lines the first just
// wrote, and its content puts back the text the first replaced, undoing it without a word. Such
// an operation is refused, naming the lines as "your edit of a moment ago". Pure.

import { describeOp, type EditOp } from "./edit_ops.ts";
import { AnchorError } from "../errors.ts";
import { formatLineId, renderLine } from "./line_id.ts";
import { type Guide, guide, step } from "../next_step.ts";
import type { WrittenRegion } from "./edit_log.ts";

interface OwnRevert {
  op: EditOp;
  region: WrittenRegion;
  /** The lines of the range the edit wrote (1-based, now). */
  from: number;
  to: number;
  /** An old line the operation puts back. */
  restored: string;
}

/**
 * The replace operations whose range holds lines the last own edit wrote (`regions`, numbered as
 * the file is now) and whose content brings back a line that edit removed, while dropping a line
 * it wrote: the operation would undo that edit.
 */
export function findOwnReverts(
  ops: readonly EditOp[],
  regions: readonly WrittenRegion[],
): OwnRevert[] {
  const found: OwnRevert[] = [];
  for (const op of ops) {
    if (op.op !== "replace") continue;
    const content = new Set(op.lines.map((l) => l.trim()));
    for (const region of regions) {
      const from = Math.max(op.start.line, region.start);
      const to = Math.min(op.end.line, region.start + region.written.length - 1);
      if (from > to) continue;
      const written = new Set(region.written.map((l) => l.trim()));
      const restored = region.removed.find((l) => {
        const t = l.trim();
        return t.length >= 3 && !written.has(t) && content.has(t);
      });
      const overlap = region.written.slice(from - region.start, to - region.start + 1);
      const dropped = overlap.some((l) => l.trim() !== "" && !content.has(l.trim()));
      if (restored !== undefined && dropped) found.push({ op, region, from, to, restored });
    }
  }
  return found;
}

/** The refusal: which lines are the agent's own edit, what the operation would put back. */
export function ownRevertError(
  path: string,
  lines: readonly string[],
  reverts: readonly OwnRevert[],
): AnchorError {
  const first = reverts[0]!;
  const span = (r: OwnRevert) =>
    r.from === r.to ? `line ${r.from} is` : `lines ${r.from}-${r.to} are`;
  const parts = reverts.map((r) =>
    `${describeOp(r.op)} would undo your edit of a moment ago: ${span(r)} what that edit just ` +
    `wrote, and its content puts back ${
      JSON.stringify(clip(r.restored))
    }, which that edit replaced.`
  );
  const shown: string[] = [];
  const from = Math.max(1, first.op.op === "replace" ? first.op.start.line : first.from);
  const to = Math.min(lines.length, first.op.op === "replace" ? first.op.end.line : first.to);
  for (let n = from; n <= Math.min(to, from + 39); n++) shown.push(renderLine(n, lines[n - 1]!));
  const hint: Guide =
    guide`The operation was probably planned before that edit: plan its content again from the lines below (their ids are current). To undo that edit on purpose: ${
      step("text_editor", { command: "undo_edit", path })
    }; to write the content anyway, send the same call with "allow_repeat": true.`;
  return new AnchorError({
    code: "UNDOES_OWN_EDIT",
    message: `Nothing was written to ${JSON.stringify(path)}. ${parts.join(" ")}`,
    detail: `Current content of lines ${from}-${to} (${
      formatLineId(first.from, lines[first.from - 1]!)
    } is the first line your edit wrote):\n${shown.join("\n")}`,
    hint,
  });
}

function clip(text: string): string {
  const t = text.trim();
  return t.length > 80 ? `${t.slice(0, 80)}…` : t;
}
