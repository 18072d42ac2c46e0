// anchorfs entrypoint and composition root: `anchorfs mcp` serves MCP on stdio (lib/mcp);
// every other subcommand is the human CLI (lib/cli). The two adapters never import each other.
// They load only after `mcp` has opened stdin (lib/mcp/stdio/early_start.ts): an MCP client's
// `initialize` is answered while the rest of the server loads. Descriptors for that load are held
// from the first moment (spare_descriptors.ts): a load that meets EMFILE ends a Deno process.

import { EXIT, realTerminal, reportWriteError, WriteError } from "./lib/cli/output.ts";
import { openEarly } from "./lib/mcp/stdio/early_start.ts";
import { loadWithReserve, reserveAtStart } from "./lib/backends/local/spare_descriptors.ts";

/** Said on stderr, before anything is served, when the open-file limit leaves too little room. */
const NO_DESCRIPTORS = "error: anchorfs cannot start: too few file descriptors are free under " +
  "this process's limit of open files (EMFILE; the soft `ulimit -n` of the process that started " +
  "it), and loading its modules would fail. Nothing was served.\nhint: start it with a higher " +
  "limit: `ulimit -n 4096` in the shell that starts it, or LimitNOFILE=4096 for a service.\n";

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
  // `anchorfs mcp help` and `anchorfs help mcp` read as `anchorfs mcp --help`, as for every
  // subcommand (the CLI, which knows only its own, handles theirs).
  const pair = args.length === 2 ? `${args[0]} ${args[1]}` : "";
  if (pair === "mcp help" || pair === "help mcp") args = ["mcp", "--help"];
  if (!reserveAtStart()) {
    realTerminal.err(NO_DESCRIPTORS);
    return EXIT.failed;
  }
  const opening = args[0] === "mcp" ? openEarly(args.slice(1)) : undefined;
  // Loading blocks the event loop: let the opening exchange through first.
  await opening?.ready;
  // The reserve is released for this load (and taken back after): Deno's loader finds room.
  const { cliStepSyntax, runCli, runMcpCommand } = await loadWithReserve(
    () => import("./lib/commands.ts"),
    { check: false },
  );
  if (args[0] === "mcp") {
    // Start-up errors go to a person on stderr: their next steps as command lines.
    const io = { ...realTerminal, steps: cliStepSyntax };
    try {
      return await runMcpCommand(args.slice(1), io, opening);
    } catch (e) {
      // Its help or a usage error could not be written: one line, as in the CLI.
      if (e instanceof WriteError) return reportWriteError(e, realTerminal, EXIT.failed);
      throw e;
    }
  }
  return await runCli(args, realTerminal);
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
