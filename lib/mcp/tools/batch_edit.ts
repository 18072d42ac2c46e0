// The `batch_edit` tool: insert/replace operations by line id on one file, verified and applied
// all at once. Schema, description and the call into lib/ops/edit.

import * as z from "zod";
import { AnchorError } from "../../core/errors.ts";
import { runBatchEdit } from "../../ops/edit/batch_edit.ts";
import { runTool } from "../render.ts";
import type { ToolRegistrar } from "../tool_env.ts";

export const BATCH_EDIT_DESCRIPTION =
  "Edit one file by line ids (N:hh from view or from an earlier edit result). Operations:\n" +
  '- {"op":"replace","start":"12:a3","end":"14:0f","content":"..."}: replace lines 12-14 ' +
  '(end optional: one line); content "" deletes them.\n' +
  '- {"op":"insert","anchor":"12:a3","content":"..."}: insert after line 12; anchor 0 = file ' +
  "start, -1 = end of file.\n" +
  "All operations refer to the file as you viewed it (do not adjust numbers for earlier " +
  "operations) and are applied together or not at all. Every id is verified, and every line of " +
  "a replaced range must still be what you were shown: if anything changed, nothing is written " +
  "and the error shows the current lines with fresh ids. Content is whole lines; a trailing " +
  "newline is optional. The result is a diff with fresh ids for the next call.\n" +
  'Example: {"path":"src/app.ts","operations":[{"op":"replace","start":"3:5e","content":' +
  '"const port = 8080;"},{"op":"insert","anchor":-1,"content":"export { port };"}]}';

const idOrNumber = z.union([z.string(), z.number()]);

// Loose field types on purpose: the op layer checks each operation and names the field, the
// operation and the fix; zod would only say "Invalid input" for a union member.
const operation = z.object({
  op: z.string().describe('"insert" (anchor, content) or "replace" (start, end?, content).'),
  anchor: idOrNumber.optional().describe(
    'insert: line id to insert after ("12:a3"), 0 for the file start, -1 for the end.',
  ),
  start: idOrNumber.optional().describe('replace: id of the first line ("12:a3").'),
  end: idOrNumber.optional().describe(
    "replace: id of the last line (inclusive); omit for one line.",
  ),
  content: z.string().optional().describe(
    'The new lines, required ("" with replace deletes the range).',
  ),
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
      inputSchema: z.object({
        path: z.string().describe(
          'The file: relative to the working directory, absolute, "~/x" or "ssh://host/abs/path".',
        ),
        // A JSON string is accepted too: models sometimes send the list encoded once more.
        operations: z.union([z.array(operation), z.string()], { error: OPERATIONS_SHAPE }).describe(
          "The operations, applied together to the file as viewed.",
        ),
      }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    ({ path, operations }) =>
      runTool("batch_edit", () =>
        runBatchEdit(env.services, env.session, {
          path,
          operations: typeof operations === "string" ? parseOperations(operations) : operations,
        })),
  );
};

function parseOperations(text: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AnchorError({
      code: "INVALID_OPERATION",
      message: "operations is a string that is not a JSON list of operations.",
      hint: 'Pass a list, e.g. "operations": [{"op":"insert","anchor":-1,"content":"new line"}].',
    });
  }
  // Encoded once more, models also send one operation without its list, or the whole arguments
  // object: both are unambiguous.
  if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) {
    const object = parsed as { op?: unknown; operations?: unknown };
    if (typeof object.op === "string") return [object];
    if (Array.isArray(object.operations)) return object.operations;
  }
  return parsed;
}
