// The `view` tool: read a file with line ids, list a directory, or search file contents. Schema,
// description and handler only; the work is lib/ops/view.ts (shared with `anchorfs view`).

import * as z from "zod";
import { argError } from "../arg_errors.ts";
import { Budget } from "../../ops/budget.ts";
import { viewResult } from "../../ops/view.ts";
import { runTool, stepSyntaxFor } from "../render.ts";
import { argNotes, toolInput } from "../tool_input.ts";
import { DEFAULT_DEADLINE_SECONDS, type ToolRegistrar } from "../tool_env.ts";

const position = (name: string, what: string) =>
  z.union(
    [z.number(), z.string()],
    argError(name, 'a line number (e.g. 10 or -1) or a line id string "N:hh" (e.g. "10:a3")'),
  ).optional().describe(what);

export const VIEW_DESCRIPTION =
  "Read a file, list a directory, or search contents; use it instead of cat/head/grep/rg/ls/find.\n" +
  "- File: lines N:hh|content (hh: line hash), e.g. 12:a3|  return x;. " +
  "batch_edit and text_editor take these ids. start/end read a range; long files name the next.\n" +
  "- Directory: recursive, .gitignore-aware rows path<TAB>N lines<TAB>~T tokens.\n" +
  "- Search (content): matching lines with ids.\n" +
  "- outline: a file's declarations with ids (a directory: its map); symbol: one declaration.\n" +
  "Paths: relative, absolute, ~/x or ssh://host/abs/path; pass quoted names back exactly.\n" +
  'Examples: {"path":"src/app.ts","symbol":"JobManager.start"} · ' +
  '{"path":"src|tests","content":"(?i)todo","regex":true,"context":2}';

// "true"/"false" strings are read as booleans by toolInput.
const flag = (name: string) => z.boolean(argError(name, "true or false")).optional();
const whole = (name: string, example: string) =>
  z.union([z.number(), z.string()], argError(name, `a whole number, e.g. ${example}`)).optional();

const VIEW_MEANT = {
  glob: 'use "pattern", e.g. "*.ts".',
  case_sensitive:
    'search is case-sensitive; for case-insensitive set "regex": true and start content with (?i).',
};

export const registerViewTool: ToolRegistrar = (mcp, env) => {
  mcp.registerTool(
    "view",
    {
      title: "View files, directories and search results",
      description: VIEW_DESCRIPTION,
      inputSchema: toolInput({
        path: z.string(argError("path", 'a string, e.g. "src/app.ts" or "."', true)).describe(
          'File or directory; a search may join roots with |, e.g. "src|tests".',
        ),
        start: position("start", 'First line: a number (-1 = last) or an id "N:hh" (verified).'),
        end: position("end", "Last line (inclusive), same forms."),
        content: z.string(argError("content", 'a string, e.g. "parseConfig"')).optional().describe(
          "Text to search for (one line; literal, case-sensitive unless regex).",
        ),
        regex: flag("regex").describe(
          "content is an RE2 regex (no backreferences or lookaround); (?i) ignores case.",
        ),
        context: whole("context", "2").describe("Context lines around matches (0-50)."),
        pattern: z.string(argError("pattern", 'a string of globs, e.g. "*.ts|!*_test.ts"'))
          .optional().describe(
            "Globs (ripgrep -g): no / matches names at any depth; ! excludes; join with |.",
          ),
        include_hidden: flag("include_hidden").describe(
          "Include dot files (.gitignore still applies).",
        ),
        max_depth: whole("max_depth", "2").describe(
          "Directory levels to descend (1 = own entries).",
        ),
        full: flag("full").describe(
          "Send all (re-views send only changes).",
        ),
        // outline and symbol are explained in the description (tools/list is held to 10 KB).
        outline: flag("outline"),
        symbol: z.string(argError("symbol", 'a name string, e.g. "JobManager.start"')).optional()
          .describe("With outline: its members."),
      }, { meant: VIEW_MEANT }),
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    (args, ctx) =>
      runTool(
        "view",
        () =>
          viewResult(env.services.locations, env.session, args, {
            reads: env.services.reads,
            scanner: env.services.scanner,
            outliner: env.services.outliner,
            // notifications/cancelled aborts this signal; the deadline bounds every call.
            budget: new Budget(
              ctx.mcpReq.signal,
              env.options.deadlineSeconds ?? DEFAULT_DEADLINE_SECONDS,
            ),
          }),
        argNotes(args),
        stepSyntaxFor(env.options),
      ),
  );
};
