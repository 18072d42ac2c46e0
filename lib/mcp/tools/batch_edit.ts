// The `batch_edit` tool: insert/replace operations by line id on one file, verified and applied
// all at once. Schema, description and the call into lib/ops/edit, which loads on the first
// call (issue 26).

import * as z from "zod";
import { normalizeOperations, readBatchOperations } from "../../ops/edit/batch_operations.ts";
import { runTool, stepSyntaxFor } from "../render.ts";
import { argNotes, toolInput } from "../tool_input.ts";
import type { ToolRegistrar } from "../tool_env.ts";
import { onFirstUse } from "../../core/first_use.ts";

// The edit ops load on the first edit (issue 26); one that fails to load is tried again.
const loadRunBatchEdit = onFirstUse(
  "edit",
  () => import("../../ops/edit/batch_edit.ts").then(({ runBatchEdit }) => runBatchEdit),
);

export const BATCH_EDIT_DESCRIPTION =
  "Edit one file by line ids (N:hh from view or an earlier edit result). Operations:\n" +
  '- {"op":"replace","start":"12:a3","end":"14:0f","content":"..."}: lines 12-14 (end optional); ' +
  '"" deletes.\n' +
  '- {"op":"insert","anchor":"12:a3","content":"..."}: after line 12; anchor 0 = file start, ' +
  "-1 = end.\n" +
  "All ids refer to the file as you viewed it (do not shift numbers for earlier operations); " +
  "all apply or none. Ids are verified: if a line changed, nothing is written and the error " +
  "shows current lines with fresh ids. Content is whole lines, without N:hh| prefixes. The " +
  "result is a diff with fresh ids.\n" +
  'Example: {"path":"src/app.ts","operations":[{"op":"replace","start":"3:5e","content":' +
  '"const port = 8080;"},{"op":"insert","anchor":-1,"content":"export { port };"}]}';

const idOrNumber = z.union([z.string(), z.number()]);

// Loose field types on purpose: the op layer checks each operation and names the field, the
// operation and the fix; zod would only say "Invalid input" for a union member.
const operation = z.object({
  op: z.string().describe('"insert" or "replace".'),
  anchor: idOrNumber.optional().describe("insert: id to insert after, 0 or -1."),
  start: idOrNumber.optional().describe("replace: first line id."),
  end: idOrNumber.optional().describe("replace: last line id (inclusive)."),
  content: z.string().optional().describe("The new lines."),
});

const OPERATIONS_SHAPE =
  'operations must be a list like [{"op":"replace","start":"12:a3","end":"14:0f","content":"..."},' +
  '{"op":"insert","anchor":"12:a3","content":"..."}]: ids are strings "N:hh" from view; only ' +
  "anchor takes the numbers 0 (file start) and -1 (end); content is a string.";

export const registerBatchEditTool: ToolRegistrar = (mcp, env) => {
  mcp.registerTool(
    "batch_edit",
    {
      title: "Edit a file by line ids",
      description: BATCH_EDIT_DESCRIPTION,
      inputSchema: toolInput({
        path: z.string().describe('The file (relative, absolute, "~/x" or ssh://host/path).'),
        // A JSON string is accepted too: models sometimes send the list encoded once more.
        operations: z.union([z.array(operation), z.string()], { error: OPERATIONS_SHAPE }),
        allow_repeat: z.boolean().optional().describe(
          "Apply content refused as a slip: a first/last line repeating the line next to it, " +
            "or content that undoes your own last edit.",
        ),
      }, {
        // Before zod: Octofs's names and content as a list of lines (lib/ops/edit).
        rewrite: (raw) => {
          if (Array.isArray(raw.operations)) raw.operations = normalizeOperations(raw.operations);
        },
      }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    (args) =>
      runTool(
        "batch_edit",
        async () => {
          // A JSON string is read as the CLI reads --batch: a list, one operation, or the
          // whole arguments object.
          const given = readBatchOperations(args.operations, "operations (a string)");
          const runBatchEdit = await loadRunBatchEdit();
          return await runBatchEdit(env.services, env.session, {
            path: args.path,
            operations: given.operations,
            ...((args.allow_repeat === true || given.allowRepeat) && { allow_repeat: true }),
          });
        },
        argNotes(args),
        stepSyntaxFor(env.options),
      ),
  );
};
