// batch_edit: several insert/replace operations on one file, all referring to the file as it was
// viewed, verified first (every id, and every line of a replaced range against what was shown),
// then written at once: all or nothing.

import { type EditOp, parseEditOps } from "../../core/edit_ops.ts";
import { planLineEdits } from "../../core/edit_plan.ts";
import { AnchorError } from "../../core/errors.ts";
import { sameDoc } from "../../core/splice_lines.ts";
import type { Session } from "../session.ts";
import {
  commitEdit,
  displayPathOf,
  type EditOptions,
  type EditServices,
  shownMemory,
} from "./commit.ts";
import { editExistingFile } from "./edit_existing_file.ts";
import { plural } from "../../core/plural.ts";

export interface BatchEditArgs {
  path: string;
  operations: unknown;
}

export async function runBatchEdit(
  services: EditServices,
  session: Session,
  args: BatchEditArgs,
  options: EditOptions = {},
): Promise<string> {
  const ops: EditOp[] = parseEditOps(args.operations);
  return await editExistingFile(services, session, args.path, async (file, location) => {
    const doc = planLineEdits(file.doc, ops, {
      path: displayPathOf(session, location),
      shown: shownMemory(session, location),
    });
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
      session,
      options,
    });
  });
}
