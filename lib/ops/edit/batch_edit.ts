// batch_edit: several insert/replace operations on one file, all referring to the file as it was
// viewed, verified first (every id, and every line of a replaced range against what was shown),
// then written at once: all or nothing.

import { type EditOp, parseEditOps } from "../../core/edit/edit_ops.ts";
import { planLineEdits } from "../../core/edit/edit_plan.ts";
import { editSlipError, findEditSlips } from "../../core/edit/edit_slip.ts";
import { describeShifts, remapThroughLog, splicesBetween } from "../../core/edit/edit_log.ts";
import { hashLine } from "../../core/edit/line_id.ts";
import { linePrint } from "../../core/edit/shown_lines.ts";
import type { ShownMemory } from "../../core/edit/shown_lines.ts";
import { fileKey, ownEditLog } from "../session.ts";
import { AnchorError } from "../../core/errors.ts";
import { sameDoc } from "../../core/edit/splice_lines.ts";
import type { Session } from "../session.ts";
import {
  bytesPrint,
  commitEdit,
  displayPathOf,
  type EditOptions,
  type EditServices,
  shownMemory,
} from "./commit.ts";
import { editExistingFile } from "./edit_existing_file.ts";
import { plural } from "../../core/plural.ts";
import type { Guide } from "../../core/next_step.ts";

export interface BatchEditArgs {
  path: string;
  operations: unknown;
  /** Apply content that repeats the line next to its range (refused by default as a slip). */
  allow_repeat?: boolean;
}

/** Applies the operations (all or none); the result keeps the calls it suggests as steps. */
export async function runBatchEdit(
  services: EditServices,
  session: Session,
  args: BatchEditArgs,
  options: EditOptions = {},
): Promise<Guide> {
  const ops: EditOp[] = parseEditOps(args.operations);
  return await editExistingFile(services, session, args.path, async (file, location) => {
    const path = displayPathOf(session, location);
    // Ids issued before this session's own edits of the file are mapped to where they are now.
    const log = ownEditLog(session, fileKey(location), bytesPrint(file.bytes));
    const remapped = remapThroughLog(file.doc.lines, ops, log);
    const doc = planLineEdits(file.doc, remapped.ops, {
      path,
      shown: trustRanges(shownMemory(session, location), remapped.ranges, file.doc.lines),
    });
    if (args.allow_repeat !== true) {
      const slips = findEditSlips(file.doc.lines, remapped.ops);
      if (slips.length > 0) throw editSlipError(path, file.doc.lines, slips);
    }
    const shifts = describeShifts(splicesBetween(file.doc.lines, doc.lines));
    const notes = [
      ...(remapped.moves.length > 0 ? [`Ids mapped: ${remapped.moves.join("; ")}.`] : []),
      ...(shifts !== undefined && doc.lines.length !== file.doc.lines.length ? [shifts] : []),
    ];
    if (sameDoc(doc, file.doc)) {
      throw new AnchorError({
        code: "NO_CHANGE",
        message: `The operations leave ${
          JSON.stringify(displayPathOf(session, location))
        } unchanged (the new content equals the old); nothing was written.`,
        hint: "Check the content of the replace operations.",
      });
    }
    return await commitEdit(services, {
      file,
      doc,
      action: `batch_edit, ${plural(ops.length, "operation")}`,
      notes,
      session,
      options,
    });
  });
}

/**
 * The shown memory, plus the ranges the edit log mapped: their lines were only moved by this
 * session's own edits since they were shown, so they are still what the agent saw.
 */
function trustRanges(
  shown: ShownMemory,
  ranges: readonly { from: number; to: number }[],
  lines: readonly string[],
): ShownMemory {
  if (ranges.length === 0) return shown;
  const inRange = (n: number) => ranges.some((r) => n >= r.from && n <= r.to);
  return {
    known: shown.known,
    hashAt: (n) => inRange(n) ? hashLine(lines[n - 1] ?? "") : shown.hashAt(n),
    printAt: (n) => inRange(n) ? linePrint(lines[n - 1] ?? "") : shown.printAt?.(n),
  };
}
