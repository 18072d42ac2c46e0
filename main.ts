// anchorfs entrypoint and composition root: `anchorfs mcp` serves MCP on stdio (lib/mcp);
// every other subcommand is the human CLI (lib/cli). The two adapters never import each other.
// They load only after `mcp` has opened stdin (lib/mcp/early_start.ts): an MCP client's
// `initialize` is answered while the rest of the server loads.

import { realTerminal } from "./lib/cli/output.ts";
import { openEarly } from "./lib/mcp/early_start.ts";

/**
 * Runs the anchorfs command line with `args` (without the program name): `mcp` serves MCP on
 * stdio until stdin closes; any other subcommand is the human CLI. Resolves to the exit code.
 *
 * @example
 * ```ts
 * import { main } from "@anchorfs/anchorfs";
 *
 * const code = await main(["--version"]); // prints the version
 * code; // 0
 * ```
 */
export async function main(args: string[]): Promise<number> {
  const opening = args[0] === "mcp" ? openEarly(args.slice(1)) : undefined;
  // Loading blocks the event loop: let the opening exchange through first.
  await opening?.ready;
  const { cliStepSyntax, runCli, runMcpCommand } = await import("./lib/commands.ts");
  if (args[0] === "mcp") {
    // Start-up errors go to a person on stderr: their next steps as command lines.
    const io = { ...realTerminal, steps: cliStepSyntax };
    return await runMcpCommand(args.slice(1), io, opening);
  }
  return await runCli(args, realTerminal);
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
