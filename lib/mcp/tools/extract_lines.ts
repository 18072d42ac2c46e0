// The `extract_lines` tool: copy a line range from one file into another (or the same) file,
// local or ssh://. Schema, description and the call into lib/ops/edit, which loads on the first
// call (issue 26).

import * as z from "zod";
import { argError } from "../arg_errors.ts";
import { runTool, stepSyntaxFor } from "../render.ts";
import { argNotes, toolInput } from "../tool_input.ts";
import type { ToolRegistrar } from "../tool_env.ts";
import { onFirstUse } from "../../core/first_use.ts";

// The edit ops load on the first edit (issue 26); one that fails to load is tried again.
const loadRunExtractLines = onFirstUse(
  "edit",
  () => import("../../ops/edit/extract_lines.ts").then(({ runExtractLines }) => runExtractLines),
);

export const EXTRACT_LINES_DESCRIPTION =
  "Copy lines start..end of from_path into to_path after position (0 = start, -1 = end, or a " +
  "line id of to_path). start/end: ids (verified) or numbers (-1 = last), or from_symbol: a " +
  "name from view's outline. to_path is created when missing. The " +
  'source is unchanged: to move code, then replace the source range with "" (batch_edit). The ' +
  "result is a diff with fresh ids.\n" +
  'Example: {"from_path":"src/big.ts","start":"120:4c","end":"164:07","to_path":"src/a.ts",' +
  '"position":-1}';

const idOrNumber = (name: string, required = true) =>
  z.union(
    [z.string(), z.number()],
    argError(name, 'a line id string "N:hh" (e.g. "12:a3") or a number', required),
  );

export const registerExtractLinesTool: ToolRegistrar = (mcp, env) => {
  mcp.registerTool(
    "extract_lines",
    {
      title: "Copy lines between files",
      description: EXTRACT_LINES_DESCRIPTION,
      inputSchema: toolInput({
        from_path: z.string(argError("from_path", "a file path string", true)),
        from_symbol: z.string(argError("from_symbol", 'a name, e.g. "JobManager.start"'))
          .optional(),
        // Optional only for from_symbol: null still reads "start is null, but it is required".
        start: idOrNumber("start").optional(),
        end: idOrNumber("end", false).optional().describe("Last line (inclusive)."),
        to_path: z.string(argError("to_path", "a file path string", true)),
        position: idOrNumber("position").describe("0, -1, or the id to insert after."),
      }, {
        aliases: {
          from_start: "start",
          from_end: "end",
          append_path: "to_path",
          append_line: "position",
        },
      }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    (args) =>
      runTool(
        "extract_lines",
        async () => {
          const runExtractLines = await loadRunExtractLines();
          return await runExtractLines(env.services, env.session, args);
        },
        argNotes(args),
        stepSyntaxFor(env.options),
      ),
  );
};
