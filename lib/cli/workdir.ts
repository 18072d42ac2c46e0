// `anchorfs workdir [PATH]`: shows how a path resolves (local or ssh://), as the workdir tool would.

import { createSession } from "../ops/session.ts";
import { runWorkdir } from "../ops/workdir.ts";
import { type CliCommand, parseCommandArgs, UsageError } from "./command.ts";

export const workdirCommand: CliCommand = {
  name: "workdir",
  summary: "Show the working directory, or check that PATH is a directory anchorfs can use",
  usage: `Usage: anchorfs workdir [PATH]

Without PATH, prints the current directory. With PATH (relative, absolute, ~/x or
ssh://host/abs/path), resolves it the way the workdir tool's "set" does and prints the result,
or an error saying what is wrong.`,
  async run(args, { terminal, services }) {
    const { positionals } = parseCommandArgs(args, {});
    if (positionals.length > 1) throw new UsageError("workdir takes at most one PATH");
    const { locations } = services();
    const session = createSession(locations.localAt(Deno.cwd()));
    const text = positionals[0] === undefined
      ? await runWorkdir(session, locations, "get")
      : await runWorkdir(session, locations, "set", positionals[0]);
    terminal.out(`${text}\n`);
    return 0;
  },
};
