// `anchorfs view PATH [options]`: the view tool for people. Prints the text the MCP tool returns,
// from the same core function (lib/ops/view.ts), with suggested calls as `anchorfs …` commands.

import { createSession } from "../ops/session.ts";
import { type ViewArgs, viewResult } from "../ops/view.ts";
import { VIEW_MAX_LINES } from "../ops/view_file.ts";
import { EXIT, renderResultForTerminal } from "./output.ts";
import {
  ALLOW_HELP,
  ALLOW_OPTION,
  applyAllow,
  type CliCommand,
  parseCommandArgs,
  UsageError,
} from "./command.ts";

// Exported for tests.
/** The options of `anchorfs view` (next steps are rendered against them: step_command.ts). */
export const VIEW_OPTIONS = {
  start: { type: "string" },
  end: { type: "string" },
  content: { type: "string" },
  regex: { type: "boolean" },
  context: { type: "string" },
  pattern: { type: "string" },
  "include-hidden": { type: "boolean" },
  "max-depth": { type: "string" },
  all: { type: "boolean" },
  outline: { type: "boolean" },
  symbol: { type: "string" },
  ...ALLOW_OPTION,
} as const;

function parseViewArgs(args: string[]) {
  const parsed = parseCommandArgs(args, VIEW_OPTIONS);
  const count = parsed.positionals.length;
  if (count !== 1) {
    throw new UsageError(count === 0 ? "view needs a PATH" : "view takes exactly one PATH");
  }
  return parsed;
}

export const viewCommand: CliCommand = {
  name: "view",
  summary: "Show a file with line ids, list a directory, or search contents",
  usage: `Usage: anchorfs view PATH [options]

Shows a file as N:hh|content lines, lists a directory (path, lines, ~tokens; .gitignore-aware),
or searches contents when --content is given. Prints the same text as the MCP view tool, with
suggested next calls written as commands (\`anchorfs view src --max-depth 2\`).

Options:
  --start N|N:hh        First line (negative counts from the end; an id is verified)
  --end N|N:hh          Last line, inclusive
  --content TEXT        Search for TEXT (literal, case-sensitive); PATH may be "a|b"
  --regex               Treat --content as a regular expression ((?i) prefix: ignore case)
  --context N           Lines of context around each match
  --pattern GLOBS       Filter files: "*.ts|!*_test.ts" (ripgrep -g grammar, later globs win)
  --include-hidden      Include hidden files and directories
  --max-depth N         Directory levels to descend (1: only the directory's own entries)
  --all                 For a file: every line of the range, not a page of ${VIEW_MAX_LINES} (files up
                        to --max-file-bytes, 16M by default)
  --outline             The file's declarations with ids; a directory's map of its files
  --symbol NAME         One declaration's lines with ids (with --outline: its members)
${ALLOW_HELP}

The notices after the output ([...] lines: the next page, ...) go to stderr when stdout is not
a terminal, so a pipe gets only the lines. Exit codes: 0 shown; with --content, 0 some line
matched, 1 none did, 2 an error (as grep); without, 1 the view failed, 2 bad usage.

Examples:
  anchorfs view src/main.ts --start 10 --end 40
  anchorfs view . --pattern '*.ts' --max-depth 2
  anchorfs view 'src|tests' --content parseConfig --context 2
  anchorfs view src/app.ts --symbol JobManager.start`,
  parse: parseViewArgs,
  failedExitCode: (args) => isSearch(args) ? EXIT.searchFailed : EXIT.failed,
  async run(args, { terminal, services }) {
    const { values, positionals } = parseViewArgs(args);
    const viewArgs: ViewArgs = { path: positionals[0]! };
    if (values.start !== undefined) viewArgs.start = values.start;
    if (values.end !== undefined) viewArgs.end = values.end;
    if (values.content !== undefined) viewArgs.content = values.content;
    if (values.regex) viewArgs.regex = true;
    if (values.context !== undefined) viewArgs.context = values.context;
    if (values.pattern !== undefined) viewArgs.pattern = values.pattern;
    if (values["include-hidden"]) viewArgs.include_hidden = true;
    if (values["max-depth"] !== undefined) viewArgs.max_depth = values["max-depth"];
    if (values.outline) viewArgs.outline = true;
    if (values.symbol !== undefined) viewArgs.symbol = values.symbol;
    const all = services();
    await applyAllow(all, values.allow);
    const { locations, scanner, reads, outliner } = all;
    const session = createSession(locations.localAt(Deno.cwd()));
    let matched: number | undefined;
    const result = await viewResult(locations, session, viewArgs, {
      scanner,
      reads,
      outliner,
      unpaged: values.all === true,
      onSearched: (lines) => matched = lines,
    });
    const text = renderResultForTerminal(result);
    const { body, notices } = terminal.stdoutIsTty
      ? { body: text, notices: "" }
      : splitNotices(text);
    terminal.out(body);
    if (notices) terminal.err(notices);
    return matched === 0 ? EXIT.noMatch : EXIT.ok;
  },
};

/** A search: --content with some text (an empty one lists the directory). */
function isSearch(args: string[]): boolean {
  try {
    const content = parseViewArgs(args).values.content;
    return content !== undefined && content !== "";
  } catch {
    return false;
  }
}

/**
 * The output and the `[notice]` lines after it (a blank line, then one notice a line: the next
 * page, cut lines, the file's encoding), for stdout and stderr when stdout is not a terminal.
 * No file line, listing entry or search block starts a paragraph of bracketed lines only.
 */
function splitNotices(text: string): { body: string; notices: string } {
  const at = text.lastIndexOf("\n\n[");
  const tail = text.slice(at + 2);
  const lines = tail.replace(/\n$/, "").split("\n");
  if (at < 0 || !lines.every((l) => l.startsWith("[") && l.endsWith("]"))) {
    return { body: text, notices: "" };
  }
  return { body: text.slice(0, at + 1), notices: tail };
}
