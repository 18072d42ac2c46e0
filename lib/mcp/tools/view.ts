// The `view` tool: read a file with line ids, list a directory, or search file contents. Schema,
// description and handler only; the work is lib/ops/view.ts (shared with `anchorfs view`).

import * as z from "zod";
import { argError } from "../arg_errors.ts";
import { runView } from "../../ops/view.ts";
import { runTool } from "../render.ts";
import type { ToolRegistrar } from "../tool_env.ts";

const position = (name: string, what: string, example: string) =>
  z.union(
    [z.number(), z.string()],
    argError(name, 'a line number (e.g. 10 or -1) or a line id string "N:hh" (e.g. "10:a3")'),
  ).optional().describe(
    `${what}: a line number (negative counts from the end: -1 is the last line) or a line id ` +
      `"N:hh" copied from an earlier view, which is verified (a stale id returns the current ` +
      `lines with fresh ids). ${example}`,
  );

export const VIEW_DESCRIPTION =
  "Read a file, list a directory, or search file contents. Use it instead of cat, head, grep, " +
  "rg, ls or find: its output carries the line ids that text_editor and batch_edit take.\n" +
  "- File: every line is shown as N:hh|content, where N is the line number and hh a 2-hex hash " +
  "of the line's content (e.g. 12:a3|  return x;). Pass start/end to read a range; long files " +
  "are cut with a notice naming the next range.\n" +
  "- Directory: a recursive, .gitignore-aware listing, one row per file: " +
  "path<TAB>N lines<TAB>~T tokens, so you can budget reads. Hidden files are skipped unless " +
  "include_hidden; narrow with pattern and max_depth.\n" +
  "- Search (content set): matching lines with ids, grouped by file, plus context lines.\n" +
  "- Odd names (a tab, newline or other control character, edge spaces, bytes that are not " +
  'UTF-8) are shown quoted, e.g. "new\\nline.txt" or "bad\\xff.txt"; pass such a path back ' +
  "exactly as shown, quotes included, to any tool.\n" +
  'Examples: {"path":"src/app.ts"} · {"path":"src/app.ts","start":120,"end":180} · ' +
  '{"path":"src/app.ts","start":"120:4f","end":-1} · {"path":"."} · ' +
  '{"path":"src","pattern":"*.ts|!*_test.ts","max_depth":2} · ' +
  '{"path":"src|tests","content":"parseConfig","context":2} · ' +
  '{"path":".","content":"(?i)todo|fixme","regex":true}. Paths may be relative to the working ' +
  "directory, absolute, ~/x or ssh://host/abs/path.";

const flag = (name: string) =>
  z.union([z.boolean(), z.enum(["true", "false"])], argError(name, "true or false")).optional();
const whole = (name: string, example: string) =>
  z.union([z.number(), z.string()], argError(name, `a whole number, e.g. ${example}`)).optional();

export const registerViewTool: ToolRegistrar = (mcp, env) => {
  mcp.registerTool(
    "view",
    {
      title: "View files, directories and search results",
      description: VIEW_DESCRIPTION,
      inputSchema: z.object({
        path: z.string(argError("path", 'a string, e.g. "src/app.ts" or "."', true)).describe(
          'File or directory, e.g. "src/app.ts", ".", "/etc/hosts", "ssh://box/srv/app". For a ' +
            'search, several roots may be joined with |, e.g. "src|tests".',
        ),
        start: position("start", "First line to show (files only)", 'e.g. 100 or "100:3c".'),
        end: position(
          "end",
          "Last line to show, inclusive (files only)",
          'e.g. 160, -1 or "160:e0".',
        ),
        content: z.string(argError("content", 'a string, e.g. "parseConfig"')).optional().describe(
          "Search for this text in the file or directory tree (one line; literal and " +
            'case-sensitive unless regex is true), e.g. "fetchUser(".',
        ),
        regex: flag("regex").describe(
          "Treat content as a JavaScript regular expression; a leading (?i) makes it " +
            'case-insensitive, e.g. {"content":"(?i)user(name|id)","regex":true}.',
        ),
        context: whole("context", "2").describe(
          "Lines of context to show around each search match (0-50), e.g. 2.",
        ),
        pattern: z.string(argError("pattern", 'a string of globs, e.g. "*.ts|!*_test.ts"'))
          .optional().describe(
            "Glob filter for listings and searches (ripgrep -g grammar): * ? [abc] {a,b} **; a " +
              "glob without / matches file names at any depth, with / the path relative to path; " +
              'a leading ! excludes; join globs with | (later ones win), e.g. "*.{ts,tsx}|!*.d.ts". ' +
              "Escape # as \\#.",
          ),
        include_hidden: flag("include_hidden").describe(
          "Include hidden files and directories (names starting with a dot). .git is never " +
            "listed. .gitignore rules still apply.",
        ),
        max_depth: whole("max_depth", "2").describe(
          "How many directory levels to descend: 1 lists only the directory's own entries.",
        ),
      }),
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    (args) =>
      runTool(
        "view",
        () =>
          runView(env.services.locations, env.session, args, {
            reads: env.services.reads,
            scanner: env.services.scanner,
          }),
      ),
  );
};
