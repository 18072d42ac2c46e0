// `anchorfs edit PATH ...`: str_replace and batch_edit for people and scripts, through the same
// ops as the MCP tools (lib/ops/edit). Prints the same result text; failures exit non-zero with
// the same error text the model gets, its suggested calls written as `anchorfs …` commands.

import { AnchorError } from "../core/errors.ts";
import { runBatchEdit } from "../ops/edit/batch_edit.ts";
import { readBatchOperations } from "../ops/edit/batch_operations.ts";
import { runTextEditor } from "../ops/edit/text_editor.ts";
import { createSession } from "../ops/session.ts";
import { renderResultForTerminal } from "./output.ts";
import type { Guide } from "../core/next_step.ts";
import {
  ALLOW_HELP,
  ALLOW_OPTION,
  applyAllow,
  type CliCommand,
  parseCommandArgs,
  UsageError,
} from "./command.ts";

// Exported for tests.
/** The options of `anchorfs edit` (next steps are rendered against them: step_command.ts). */
export const EDIT_OPTIONS = {
  old: { type: "string" },
  new: { type: "string" },
  "old-file": { type: "string" },
  "new-file": { type: "string" },
  "replace-all": { type: "boolean" },
  batch: { type: "string" },
  "dry-run": { type: "boolean" },
  ...ALLOW_OPTION,
} as const;

/** The options and their combinations; reading --batch/--old-file/--new-file is run()'s. */
function parseEditArgs(args: string[]) {
  const parsed = parseCommandArgs(args, EDIT_OPTIONS);
  const { values, positionals } = parsed;
  if (positionals.length !== 1) {
    throw new UsageError(
      positionals.length === 0 ? "edit needs a PATH" : "edit takes exactly one PATH",
    );
  }
  const textMode = values.old !== undefined || values["old-file"] !== undefined ||
    values.new !== undefined || values["new-file"] !== undefined;
  if (values.batch !== undefined && textMode) {
    throw new UsageError("use either --batch or --old/--new, not both");
  }
  if (values.old !== undefined && values["old-file"] !== undefined) {
    throw new UsageError("use either --old or --old-file");
  }
  if (values.new !== undefined && values["new-file"] !== undefined) {
    throw new UsageError("use either --new or --new-file");
  }
  if (values["old-file"] === "-" && values["new-file"] === "-") {
    throw new UsageError("only one of --old-file and --new-file can read stdin");
  }
  if (values.batch === undefined) {
    if (values.old === undefined && values["old-file"] === undefined) {
      throw new UsageError("edit needs --old (or --old-file) or --batch");
    }
    if (values.new === undefined && values["new-file"] === undefined) {
      throw new UsageError("edit needs --new (or --new-file)");
    }
  }
  return parsed;
}

export const editCommand: CliCommand = {
  name: "edit",
  summary: "Replace text in a file, or apply batch_edit operations by line id",
  usage: `Usage: anchorfs edit PATH --old TEXT --new TEXT [--replace-all] [--dry-run]
       anchorfs edit PATH --old-file FILE --new-file FILE   (FILE "-" reads stdin)
       anchorfs edit PATH --batch FILE.json [--dry-run]     (FILE "-" reads stdin)

Replaces TEXT the way the text_editor tool's str_replace does (exact, then escape sequences,
then whitespace-normalized with re-indentation; only a unique match is applied), or applies
batch_edit operations: a JSON list (or {"operations": [...]}, or one operation) of
  {"op":"replace","start":"12:a3","end":"14:0f","content":"..."}
  {"op":"insert","anchor":"12:a3"|0|-1,"content":"..."}
with ids from \`anchorfs view\`. Prints a diff whose lines carry the new ids. Encoding, line
endings, BOM and final newline are kept.

Options:
  --old TEXT, --new TEXT        Text to replace and its replacement ("" deletes)
  --old-file FILE, --new-file FILE   Read them from files ("-": stdin, for one of them)
  --replace-all                 Replace every exact match
  --batch FILE.json             Operations from a JSON file ("-": stdin)
  --dry-run                     Print the diff, write nothing
${ALLOW_HELP}

Exit status: 0 on success, 1 when the edit failed (nothing was written), 2 for usage errors.`,
  parse: parseEditArgs,
  async run(args, { terminal, services }) {
    const { values, positionals } = parseEditArgs(args);
    const path = positionals[0]!;
    const dryRun = values["dry-run"] === true;
    const all = services();
    await applyAllow(all, values.allow);
    const session = createSession(all.locations.localAt(Deno.cwd()));
    let text: Guide;
    if (values.batch !== undefined) {
      const raw = await readInput(values.batch, "--batch");
      const { operations, allowRepeat } = readBatchOperations(
        raw,
        `--batch ${JSON.stringify(values.batch)}`,
      );
      text = await runBatchEdit(all, session, {
        path,
        operations,
        ...(allowRepeat && { allow_repeat: true }),
      }, { dryRun });
    } else {
      const oldText = values.old ??
        (values["old-file"] !== undefined
          ? await readInput(values["old-file"], "--old-file")
          : undefined);
      const newText = values.new ??
        (values["new-file"] !== undefined
          ? await readInput(values["new-file"], "--new-file")
          : undefined);
      if (oldText === undefined) {
        throw new UsageError("edit needs --old (or --old-file) or --batch");
      }
      if (newText === undefined) throw new UsageError("edit needs --new (or --new-file)");
      const [oldFinal, newFinal] = matchFinalNewlines(
        oldText,
        newText,
        values["old-file"] !== undefined,
        values["new-file"] !== undefined,
      );
      text = await runTextEditor(all, session, {
        command: "str_replace",
        path,
        old_text: oldFinal,
        new_text: newFinal,
        replace_all: values["replace-all"] === true,
      }, { dryRun });
    }
    terminal.out(renderResultForTerminal(text));
    return 0;
  },
};

// Exported for tests.
/**
 * Text read from a file or stdin (`echo beta |`, a heredoc, an editor) ends with a newline that
 * an argument (`--new BETA`) lacks. Taken literally, `--old-file` "beta\n" with `--new BETA`
 * would join the next line onto the replacement. When exactly one side comes from a file and
 * only that side ends with one newline, that newline is dropped so both sides end alike. An empty
 * argument (`--new ""`: delete) is taken as written.
 */
export function matchFinalNewlines(
  oldText: string,
  newText: string,
  oldFromFile: boolean,
  newFromFile: boolean,
): [string, string] {
  if (oldFromFile === newFromFile) return [oldText, newText];
  const [fileText, argText] = oldFromFile ? [oldText, newText] : [newText, oldText];
  if (argText === "" || argText.endsWith("\n")) return [oldText, newText];
  const trimmed = fileText.endsWith("\r\n")
    ? fileText.slice(0, -2)
    : fileText.endsWith("\n")
    ? fileText.slice(0, -1)
    : fileText;
  return oldFromFile ? [trimmed, newText] : [oldText, trimmed];
}

async function readInput(source: string, flag: string): Promise<string> {
  try {
    if (source === "-") return await new Response(Deno.stdin.readable).text();
    return await Deno.readTextFile(source);
  } catch (e) {
    throw new AnchorError({
      code: "NOT_FOUND",
      message: `Cannot read ${flag} ${JSON.stringify(source)}: ${(e as Error).message}`,
      hint: `Check the file name, or pass ${flag} - to read stdin.`,
    });
  }
}
