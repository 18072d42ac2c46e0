// anchorfs entrypoint and composition root: `anchorfs mcp` serves MCP on stdio (lib/mcp);
// every other subcommand is the human CLI (lib/cli). The two adapters never import each other.

import { runCli } from "./lib/cli/main.ts";
import { realTerminal } from "./lib/cli/output.ts";
import { runMcpCommand } from "./lib/mcp/command.ts";

export async function main(args: string[]): Promise<number> {
  if (args[0] === "mcp") return await runMcpCommand(args.slice(1), realTerminal);
  return await runCli(args, realTerminal);
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
