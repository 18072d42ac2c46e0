// The `text_editor` tool: create, str_replace, delete and undo_edit on one file (local or
// ssh://). Schema, description and the call into lib/ops/edit; no logic of its own.

import * as z from "zod";
import { argError } from "../arg_errors.ts";
import { runTextEditor } from "../../ops/edit/text_editor.ts";
import { runTool } from "../render.ts";
import type { ToolRegistrar } from "../tool_env.ts";

export const TEXT_EDITOR_DESCRIPTION = "Edit one file by text. Commands:\n" +
  '- "str_replace": replace old_text with new_text. old_text must match one place; copy it from ' +
  'a view without the "N:hh|" prefixes. If it matches several places nothing is written and ' +
  "every match is listed by id (add context, set replace_all, or use batch_edit). Small slips " +
  "are recovered and reported: double-escaped JSON (literal \\n) and whitespace/indentation " +
  "differences (new_text is re-indented to the file). If nothing matches, the closest regions " +
  "are shown with ids and what differs.\n" +
  '- "create": new file with file_text (parent folders are made); never overwrites.\n' +
  '- "delete": remove a file (undo_edit brings it back).\n' +
  '- "undo_edit": revert the last edit of path made by this server (10+ levels).\n' +
  "Results are a diff whose lines carry fresh ids (+12:4f|...) for the next edit. Encoding, " +
  "CRLF/LF, BOM and the final newline are kept. Prefer this over sed/echo in the shell.\n" +
  'Example: {"command":"str_replace","path":"src/app.ts","old_text":"const port = 80;",' +
  '"new_text":"const port = 8080;"}';

export const registerTextEditorTool: ToolRegistrar = (mcp, env) => {
  mcp.registerTool(
    "text_editor",
    {
      title: "Edit a file by text",
      description: TEXT_EDITOR_DESCRIPTION,
      inputSchema: z.object({
        command: z.enum(["create", "str_replace", "delete", "undo_edit"], {
          error: 'command must be "str_replace", "create", "delete" or "undo_edit"; to read a ' +
            "file use the view tool, to edit by line ids use batch_edit.",
        }).describe(
          '"str_replace" (old_text, new_text, optional replace_all), "create" (file_text), ' +
            '"delete", or "undo_edit".',
        ),
        path: z.string(argError("path", 'a string, e.g. "src/app.ts"', true)).describe(
          'The file: relative to the working directory, absolute, "~/x" or "ssh://host/abs/path".',
        ),
        file_text: z.string(argError("file_text", "a string")).optional().describe(
          'For "create": the whole content of the file.',
        ),
        old_text: z.string(argError("old_text", "a string")).optional().describe(
          'For "str_replace": the exact text to replace (whole lines or part of a line).',
        ),
        new_text: z.string(argError("new_text", 'a string ("" deletes old_text)')).optional()
          .describe(
            'For "str_replace": the replacement; "" deletes old_text.',
          ),
        replace_all: z.boolean(argError("replace_all", "true or false (a JSON boolean)")).optional()
          .describe(
            'For "str_replace": replace every exact match instead of requiring exactly one.',
          ),
      }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    (args) => runTool("text_editor", () => runTextEditor(env.services, env.session, args)),
  );
};
