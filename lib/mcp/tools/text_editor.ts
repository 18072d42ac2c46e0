// The `text_editor` tool: create, str_replace, delete and undo_edit on one file (local or
// ssh://). Schema, description and the call into lib/ops/edit; no logic of its own. The edit
// machinery (lib/ops/edit, the str_replace ladder, the diff) loads on the first call (issue 26).

import * as z from "zod";
import { argError } from "../arg_errors.ts";
import { runTool, stepSyntaxFor } from "../render.ts";
import { argNotes, toolInput } from "../tool_input.ts";
import type { ToolRegistrar } from "../tool_env.ts";
import { onFirstUse } from "../../core/first_use.ts";

// The edit ops load on the first edit (issue 26); one that fails to load is tried again.
const loadRunTextEditor = onFirstUse(
  "edit",
  () => import("../../ops/edit/text_editor.ts").then(({ runTextEditor }) => runTextEditor),
);

export const TEXT_EDITOR_DESCRIPTION = "Edit one file by text. Commands:\n" +
  '- "str_replace": old_text → new_text. old_text must match one place (copy it from a view ' +
  'without the "N:hh|" prefixes); several matches are listed by id (add context, set ' +
  "replace_all, or use batch_edit). Double-escaped text (literal \\n) and indentation slips are " +
  "recovered and reported (new_text takes the matched lines' indentation); no match shows the " +
  "closest regions and what differs.\n" +
  '- "create": a new file from file_text (folders made); never overwrites.\n' +
  '- "delete": remove a file. "undo_edit": revert the last edit of path by this server.\n' +
  "Results are diffs whose lines carry fresh ids (+12:4f|...). Encoding, line ends and the final " +
  "newline are kept. Prefer this over sed/echo.\n" +
  'Example: {"command":"str_replace","path":"src/app.ts","old_text":"const port = 80;",' +
  '"new_text":"const port = 8080;"}';

export const registerTextEditorTool: ToolRegistrar = (mcp, env) => {
  mcp.registerTool(
    "text_editor",
    {
      title: "Edit a file by text",
      description: TEXT_EDITOR_DESCRIPTION,
      inputSchema: toolInput({
        command: z.enum(["create", "str_replace", "delete", "undo_edit"], {
          error: 'command must be "str_replace", "create", "delete" or "undo_edit"; to read a ' +
            "file use the view tool, to edit by line ids use batch_edit.",
        }),
        path: z.string(argError("path", 'a string, e.g. "src/app.ts"', true)).describe(
          'The file (relative, absolute, "~/x" or ssh://host/path).',
        ),
        file_text: z.string(argError("file_text", "a string")).optional().describe(
          "create: the whole content.",
        ),
        old_text: z.string(argError("old_text", "a string")).optional().describe(
          "str_replace: the exact text to replace.",
        ),
        new_text: z.string(argError("new_text", 'a string ("" deletes old_text)')).optional()
          .describe('str_replace: the replacement ("" deletes).'),
        replace_all: z.boolean(argError("replace_all", "true or false")).optional().describe(
          "str_replace: replace every exact match.",
        ),
      }, {
        // old_str/new_str: the names of Anthropic's text editor tool, which agents write from habit.
        aliases: { content: "file_text", old_str: "old_text", new_str: "new_text" },
        lines: ["file_text", "old_text", "new_text"],
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
        "text_editor",
        async () => {
          const runTextEditor = await loadRunTextEditor();
          return await runTextEditor(env.services, env.session, args);
        },
        argNotes(args),
        stepSyntaxFor(env.options),
      ),
  );
};
