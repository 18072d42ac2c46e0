// The list of human subcommands. Each lives in its own file and calls the same ops as its MCP
// tool. `mcp` is dispatched by main.ts and only listed here for the usage text.

import type { CliCommand } from "./command.ts";
import { workdirCommand } from "./workdir.ts";
import { editCommand } from "./edit.ts";
import { viewCommand } from "./view.ts";
import { jobsCommand } from "./jobs.ts";

export const CLI_COMMANDS: readonly CliCommand[] = [
  viewCommand,
  workdirCommand,
  jobsCommand,
  editCommand,
];
