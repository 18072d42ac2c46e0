// The human CLI: finds the subcommand, handles --help/--version and usage errors, renders
// AnchorErrors as `error:`/`hint:` lines. No logic of its own: subcommands call the ops.

import { closeServices, createServices } from "../compose.ts";
import { toAnchorError } from "../core/errors.ts";
import type { Services } from "../ops/services.ts";
import { VERSION } from "../version.ts";
import { type CliCommand, UsageError } from "./command.ts";
import { CLI_COMMANDS } from "./commands.ts";
import { exitCodeFor, renderErrorForTerminal, type Terminal } from "./output.ts";

export function topLevelUsage(commands: readonly CliCommand[] = CLI_COMMANDS): string {
  const rows: [string, string][] = [
    ["mcp", "Serve the tools over MCP on stdio (for Claude, Cursor, Codex, ...)"],
    ...commands.map((c): [string, string] => [c.name, c.summary]),
  ];
  const width = Math.max(...rows.map(([n]) => n.length));
  return `anchorfs ${VERSION}: a file system and shell for AI coding agents, with verified line ids.

Usage: anchorfs <command> [options]

Commands:
${rows.map(([n, s]) => `  ${n.padEnd(width)}  ${s}`).join("\n")}

Options:
  -h, --help     Show help (also: anchorfs <command> --help)
  -V, --version  Show the version

Lines are shown as N:hh|content: the line number and a 2-hex hash of the line's content.
`;
}

/** Runs a human subcommand; returns the process exit code. */
export async function runCli(args: string[], terminal: Terminal): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined || name === "-h" || name === "--help" || name === "help") {
    if (name === "help" && rest[0]) return runCli([rest[0], "--help"], terminal);
    terminal.out(topLevelUsage());
    return name === undefined ? 2 : 0;
  }
  if (name === "-V" || name === "--version" || name === "version") {
    terminal.out(`anchorfs ${VERSION}\n`);
    return 0;
  }
  const command = CLI_COMMANDS.find((c) => c.name === name);
  if (!command) {
    terminal.err(
      `anchorfs: unknown ${name.startsWith("-") ? "option" : "command"} ${
        JSON.stringify(name)
      }\n\n${topLevelUsage()}`,
    );
    return 2;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    terminal.out(`${command.usage}\n`);
    return 0;
  }
  let services: Services | undefined;
  try {
    return await command.run(rest, {
      terminal,
      services: () => (services ??= createServices()),
    });
  } catch (e) {
    if (e instanceof UsageError) {
      terminal.err(`anchorfs ${name}: ${e.message}\n\n${command.usage}\n`);
      return 2;
    }
    const error = toAnchorError(e);
    if (error.fault === "internal" && e instanceof Error) terminal.err(`${e.stack ?? e.message}\n`);
    terminal.err(renderErrorForTerminal(error));
    return exitCodeFor(error);
  } finally {
    if (services) await closeServices(services);
  }
}
