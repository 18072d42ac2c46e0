// The refusal of an operation whose end line was never shown to the agent: nothing in it changed
// as far as the agent was shown, but a line it replaces cannot be checked. The report says that
// first, shows the missing lines when they are few (they then count as shown, so the same edit
// goes through when sent again) and names the view that shows them. Never "lines changed" nor
// "retry with the fresh ids": neither is true, and the retry would fail the same way. Pure.

import { describeOp, type EditOp } from "./edit_ops.ts";
import { AnchorError } from "../errors.ts";
import { renderLine } from "./line_id.ts";
import { guide, step } from "../next_step.ts";
import { plural } from "../plural.ts";

/** An operation refused only because lines of its range were never shown. */
export interface UnshownRange {
  op: EditOp;
  /** Lines of the range never shown (ascending). */
  unshown: number[];
}

/** Missing lines shown in the report itself at most (more: the view names them). */
const INLINE_MAX = 20;

/** The lines of `nums` as ranges: "274-275", "12, 30-31". */
export function lineRanges(nums: readonly number[]): string {
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

/** The LINES_NOT_SHOWN error for operations that are refused for that reason only. */
export function unshownLinesError(
  path: string,
  lines: readonly string[],
  ranges: readonly UnshownRange[],
): AnchorError {
  const blocks: string[] = [];
  let inline = 0;
  let first: { from: number; to: number } | undefined;
  for (const r of ranges) {
    const from = Math.max(1, r.unshown[0]! - 1);
    const to = Math.min(lines.length, r.unshown[r.unshown.length - 1]! + 1);
    first ??= { from, to };
    const what =
      `${describeOp(r.op)}: ${plural(r.unshown.length, "line")} of its range (${
        lineRanges(r.unshown)
      }) ${r.unshown.length === 1 ? "was" : "were"} never shown to you, so it cannot be checked ` +
      "against what you saw; the lines you were shown in it are unchanged.";
    if (r.unshown.length <= INLINE_MAX && inline + r.unshown.length <= 2 * INLINE_MAX) {
      inline += r.unshown.length;
      blocks.push(
        [
          `${what} ${r.unshown.length === 1 ? "It is" : "They are"} (now counted as shown):`,
          ...r.unshown.map((n) => renderLine(n, lines[n - 1]!)),
        ].join("\n"),
      );
    } else blocks.push(what);
  }
  const view = step("view", { path, start: first!.from, end: first!.to });
  return new AnchorError({
    code: "LINES_NOT_SHOWN",
    message: `Nothing was written to ${JSON.stringify(path)}: ${
      ranges.length === 1 ? "an operation reaches" : `${ranges.length} operations reach`
    } lines you were never shown (first: ${describeOp(ranges[0]!.op)}, line${
      ranges[0]!.unshown.length === 1 ? "" : "s"
    } ${lineRanges(ranges[0]!.unshown)}); no line you were shown changed.`,
    detail: blocks.join("\n\n"),
    hint:
      guide`Look at the missing lines (above when few, or with ${view}); if the range is what you meant, send the same batch_edit again: its ids are current.`,
  });
}
