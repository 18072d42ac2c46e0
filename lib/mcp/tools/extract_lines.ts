// The `extract_lines` tool: copy a line range from one file into another (or the same) file,
// local or ssh://. Schema, description and the call into lib/ops/edit.

import * as z from "zod";
import { argError } from "../arg_errors.ts";
import { runExtractLines } from "../../ops/edit/extract_lines.ts";
import { runTool } from "../render.ts";
import type { ToolRegistrar } from "../tool_env.ts";

export const EXTRACT_LINES_DESCRIPTION =
  "Copy lines start..end of from_path into to_path after `position` (0 = file start, -1 = end, " +
  "or a line id of to_path). start/end are ids (verified) or line numbers (negative counts from " +
  "the end: -1 is the last line; a number outside the file is refused). to_path may be " +
  "another machine (ssh://host/path); it is created when missing (position 0 or -1). The " +
  "source is not changed; to move code, follow with batch_edit replacing the source range with " +
  '"". The result is a diff of to_path with fresh ids.\n' +
  'Example: {"from_path":"src/big.ts","start":"120:4c","end":"164:07","to_path":' +
  '"src/helpers.ts","position":-1}';

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
      inputSchema: z.object({
        from_path: z.string(argError("from_path", "a file path string", true)).describe(
          "The file to copy from.",
        ),
        start: idOrNumber("start").describe(
          'First line to copy: an id ("120:4c") or a line number (negative counts from the end).',
        ),
        end: idOrNumber("end", false).optional().describe(
          "Last line to copy (inclusive); omit for one line.",
        ),
        to_path: z.string(argError("to_path", "a file path string", true)).describe(
          "The file to copy into (created when missing).",
        ),
        position: idOrNumber("position").describe(
          'Where in to_path: 0 = start, -1 = end, or the id of the line to insert after ("8:1d").',
        ),
      }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    (args) => runTool("extract_lines", () => runExtractLines(env.services, env.session, args)),
  );
};
