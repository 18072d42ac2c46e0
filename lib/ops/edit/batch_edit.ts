// batch_edit: several insert/replace operations on one file, all referring to the file as it was
// viewed, verified first (every id, and every line of a replaced range against what was shown),
// then written at once: all or nothing.

import { type EditOp, parseEditOps } from "../../core/edit/edit_ops.ts";
import { planLineEdits } from "../../core/edit/edit_plan.ts";
import { editSlipError, findEditSlips } from "../../core/edit/edit_slip.ts";
import {
  describeShifts,
  type Remapped,
  remapThroughLog,
  splicesBetween,
  type WrittenRegion,
} from "../../core/edit/edit_log.ts";
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
import { findOwnReverts, ownRevertError } from "../../core/edit/own_revert.ts";
import { plural } from "../../core/plural.ts";
import { type Guide, guide, step } from "../../core/next_step.ts";

interface BatchEditArgs {
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
    const regions = log.at(-1)?.regions ?? [];
    checkOwnEdits(path, file.doc.lines, remapped, regions, args.allow_repeat === true);
    const doc = withOwnEditNote(regions, remapped.ops, () =>
      planLineEdits(file.doc, remapped.ops, {
        path,
        shown: trustRanges(shownMemory(session, location), remapped.ranges, file.doc.lines),
      }));
    if (args.allow_repeat !== true) {
      const slips = findEditSlips(file.doc.lines, remapped.ops);
      if (slips.length > 0) throw editSlipError(path, file.doc.lines, slips);
    }
    const shifts = describeShifts(
      splicesBetween(file.doc.lines, doc.lines),
      session.shown.agreesWith(fileKey(location), file.doc.lines),
    );
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
 * Refuses what the session's own last edit makes unsafe: an id with two readings (as given, and
 * numbered from before that edit), an operation that would undo that edit.
 */
function checkOwnEdits(
  path: string,
  lines: readonly string[],
  remapped: Remapped,
  regions: readonly WrittenRegion[],
  allowRepeat: boolean,
): void {
  if (remapped.ambiguous.length > 0) throw ambiguousIdError(path, remapped.ambiguous);
  if (allowRepeat) return;
  const reverts = findOwnReverts(remapped.ops, regions);
  if (reverts.length > 0) throw ownRevertError(path, lines, reverts);
}

/**
 * `plan()`, with a stale-id report that reaches lines the session's own last edit wrote saying
 * so: a retry with content planned before that edit would undo it.
 */
function withOwnEditNote<T>(
  regions: readonly WrittenRegion[],
  ops: readonly EditOp[],
  plan: () => T,
): T {
  try {
    return plan();
  } catch (e) {
    if (!(e instanceof AnchorError) || e.code !== "STALE_LINE_ID") throw e;
    const own = regions.find((r) =>
      ops.some((op) => {
        const [from, to] = op.op === "replace"
          ? [op.start.line, op.end.line]
          : op.anchor.kind === "after"
          ? [op.anchor.id.line, op.anchor.id.line]
          : [0, -1];
        return from <= r.start + r.written.length - 1 && to >= r.start;
      })
    );
    if (!own) throw e;
    const last = own.start + own.written.length - 1;
    throw new AnchorError({
      code: e.code,
      message:
        `${e.message} ${
          own.start === last ? `Line ${own.start} is` : `Lines ${own.start}-${last} are`
        } your edit of a moment ago: content planned before it would undo it, so plan it again ` +
        "from the current lines below.",
      ...(e.hintText !== undefined && { hint: e.hintText }),
      ...(e.detailText !== undefined && { detail: e.detailText }),
    });
  }
}

/**
 * Ids that name one line as given and another read as numbers from before this session's own
 * edit (their 8-bit hashes collide): neither reading is applied.
 */
function ambiguousIdError(path: string, which: readonly string[]): AnchorError {
  return new AnchorError({
    code: "AMBIGUOUS_LINE_ID",
    message: `Nothing was written to ${JSON.stringify(path)}: ${which.join("; ")}. Both readings ` +
      "match by hash, so the edit could land on the wrong line.",
    hint: guide`View the lines again and use the ids shown then: ${step("view", { path })}.`,
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
