// The two adapters behind main.ts, loaded together once main.ts has opened stdin: the MCP server
// command (lib/mcp) and the human CLI (lib/cli). They never import each other. The CLI's own
// modules load only when it runs: `anchorfs mcp` never holds them (issue 26).

import type { Terminal } from "./cli/output.ts";

export { runMcpCommand } from "./mcp/command.ts";
// How a person reads a suggested call: `anchorfs mcp` writes its start-up errors with it.
export { cliStepSyntax } from "./cli/step_command.ts";

/** The human CLI (lib/cli/main.ts) with `args` (without the program name); its exit code. */
export async function runCli(args: string[], terminal: Terminal): Promise<number> {
  const cli = await import("./cli/main.ts");
  return await cli.runCli(args, terminal);
}
