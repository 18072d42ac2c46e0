// lib/core/edit: editing by line id: ids and their verification, what the agent was shown, line-
// edit planning, the str_replace ladder, diffs and the session's edit log. Pure.
// This file is the folder's public surface: what code outside lib/core/edit/ uses.

export { renderEditDiff, renderFileHead, type ShownLine } from "./edit_diff.ts";
export { describeShifts, type LoggedEdit, remapThroughLog, splicesBetween } from "./edit_log.ts";
export { type Anchor, type EditOp, parseAnchor, parseEditOps } from "./edit_ops.ts";
export { planLineEdits, type PlanOptions } from "./edit_plan.ts";
export { editSlipError, findEditSlips } from "./edit_slip.ts";
export {
  assertFresh,
  checkLineId,
  fnv1a32,
  formatLineId,
  formatStaleReport,
  hashLine,
  isLineIdLike,
  type LineId,
  parseLineId,
  renderLine,
  type StaleId,
  staleIdError,
} from "./line_id.ts";
export { linePrint, ShownLines, type ShownMemory } from "./shown_lines.ts";
export { sameDoc } from "./splice_lines.ts";
export { ViewMemory } from "./view_memory.ts";
export {
  type MatchTier,
  planStrReplace,
  type StrReplaceRequest,
  type StrReplaceResult,
} from "./str_replace/mod.ts";
