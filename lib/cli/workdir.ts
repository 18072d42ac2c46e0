// `anchorfs workdir [PATH]`: shows how a path resolves (local or ssh://), as the workdir tool would.

import { createSession } from "../ops/session.ts";
import { renderResultForTerminal } from "./output.ts";
import { step, toolCallSyntax } from "../core/next_step.ts";
import { runWorkdir } from "../ops/workdir.ts";
import {
  ALLOW_HELP,
  ALLOW_OPTION,
  applyAllow,
  type CliCommand,
  parseCommandArgs,
  UsageError,
} from "./command.ts";

function parseWorkdirArgs(args: string[]) {
  const parsed = parseCommandArgs(args, { ...ALLOW_OPTION });
  if (parsed.positionals.length > 1) throw new UsageError("workdir takes at most one PATH");
  return parsed;
}

export const workdirCommand: CliCommand = {
  name: "workdir",
  summary: "Show the working directory, or check that PATH is a directory anchorfs can use",
  usage: `Usage: anchorfs workdir [PATH]

Without PATH, prints the current directory. With PATH (relative, absolute, ~/x or
ssh://host/abs/path), resolves it the way the workdir tool's "set" does and prints the result,
or an error saying what is wrong.

Options:
${ALLOW_HELP}`,
  parse: parseWorkdirArgs,
  async run(args, { terminal, services }) {
    const { values, positionals } = parseWorkdirArgs(args);
    const all = services();
    await applyAllow(all, values.allow);
    const { locations } = all;
    const session = createSession(locations.localAt(Deno.cwd()));
    if (positionals[0] === undefined) {
      terminal.out(renderResultForTerminal(await runWorkdir(session, locations, "get")));
      return 0;
    }
    // The check is the tool's "set"; its "set to ... (was ...)" would claim a change that a
    // subcommand cannot make to the user's shell, so say what was checked instead.
    await runWorkdir(session, locations, "set", positionals[0]);
    const url = session.cwd.url;
    terminal.out(
      // Both forms are meant here: the tool call an agent makes in a session, and the server flag.
      `${url} is a directory anchorfs can use: ${
        toolCallSyntax(step("workdir", { action: "set", path: url }))
      } in a session, or anchorfs mcp --path ${url}.\n`,
    );
    return 0;
  },
};
