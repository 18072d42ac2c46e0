// The human CLI: finds the subcommand, handles --help/--version and usage errors, renders
// AnchorErrors as `error:`/`hint:` lines. No logic of its own: subcommands call the ops.

import { closeServices, createServices } from "../compose.ts";
import { toAnchorError } from "../core/errors.ts";
import type { Services } from "../ops/services.ts";
import { VERSION } from "../version.ts";
import { parseByteCount } from "../ops/read_limits.ts";
import { type CliCommand, UsageError } from "./command.ts";
import { CLI_COMMANDS } from "./commands.ts";
import {
  EXIT,
  exitCodeFor,
  renderErrorForTerminal,
  renderUsageError,
  reportWriteError,
  type Terminal,
  WriteError,
} from "./output.ts";

function topLevelUsage(commands: readonly CliCommand[] = CLI_COMMANDS): string {
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
  -h, --help            Show help (also: anchorfs <command> --help)
  -V, --version         Show the version
  --max-file-bytes N    Before the command: largest file read whole by view and the edits,
                        and searched (default 16M; K, M, G suffixes allowed)

Lines are shown as N:hh|content: the line number and a 2-hex hash of the line's content.

Exit codes: ${EXIT.ok} success · ${EXIT.failed} the operation failed (error: and hint: on stderr; a failed
write to stdout or stderr is one line: anchorfs: write error: ...) · ${EXIT.usage} bad usage (unknown command
or option, malformed argument) · ${EXIT.internal} internal error (a bug) ·
view --content: ${EXIT.ok} a line matched, ${EXIT.noMatch} none did, ${EXIT.searchFailed} an error (as grep) ·
jobs wait/tail -f: the job's exit code, ${EXIT.waitTimeout} on --timeout, ${EXIT.noSuchJob} for an unknown job id.
`;
}

function commandsList(): string {
  return CLI_COMMANDS.map((c) => c.name).join(", ");
}

/** Runs a human subcommand; returns the process exit code (see EXIT). */
export async function runCli(args: string[], terminal: Terminal): Promise<number> {
  try {
    return await dispatch(args, terminal);
  } catch (e) {
    // A help text, a version or a usage error that could not be written.
    if (e instanceof WriteError) return reportWriteError(e, terminal, EXIT.failed);
    throw e;
  }
}

/** The top-level options and the subcommand's name; the subcommand runs in runCommand. */
async function dispatch(args: string[], terminal: Terminal): Promise<number> {
  let maxFileBytes: number | undefined;
  const flag = /^--max-file-bytes(?:=(.*))?$/.exec(args[0] ?? "");
  if (flag) {
    const raw = flag[1] ?? args[1];
    try {
      if (raw === undefined) throw new UsageError('option "--max-file-bytes" needs a value');
      maxFileBytes = parseByteCount("--max-file-bytes", raw);
    } catch (e) {
      const text = e instanceof UsageError ? e.message : toAnchorError(e).message;
      terminal.err(renderUsageError(text, "anchorfs --help lists the options"));
      return EXIT.usage;
    }
    args = args.slice(flag[1] === undefined ? 2 : 1);
  }
  const [name, ...rest] = args;
  if (name === undefined || name === "-h" || name === "--help" || name === "help") {
    if (name === "help" && rest[0]) return dispatch([rest[0], "--help"], terminal);
    if (name !== undefined) {
      terminal.out(topLevelUsage());
      return EXIT.ok;
    }
    terminal.err(topLevelUsage());
    return EXIT.usage;
  }
  if (name === "-V" || name === "--version" || name === "version") {
    terminal.out(`anchorfs ${VERSION}\n`);
    return 0;
  }
  const command = CLI_COMMANDS.find((c) => c.name === name);
  if (!command) {
    terminal.err(renderUsageError(
      `unknown ${name.startsWith("-") ? "option" : "command"} ${JSON.stringify(name)}`,
      `anchorfs --help lists the commands: mcp, ${commandsList()}`,
    ));
    return EXIT.usage;
  }
  // `anchorfs jobs help` reads as `anchorfs help jobs` (a file named help: `view ./help`).
  if (rest.includes("--help") || rest.includes("-h") || (rest.length === 1 && rest[0] === "help")) {
    terminal.out(`${command.usage}\n`);
    return 0;
  }
  return await runCommand(command, rest, terminal, maxFileBytes);
}

async function runCommand(
  command: CliCommand,
  rest: string[],
  terminal: Terminal,
  maxFileBytes: number | undefined,
): Promise<number> {
  let services: Services | undefined;
  try {
    return await command.run(rest, {
      terminal,
      services: (options = {}) => (services ??= createServices({
        ...options,
        ...(maxFileBytes !== undefined && { maxFileBytes }),
      })),
    });
  } catch (e) {
    const failed = command.failedExitCode?.(rest) ?? EXIT.failed;
    if (e instanceof WriteError) return reportWriteError(e, terminal, failed);
    if (e instanceof UsageError) {
      terminal.err(renderUsageError(e.message, `see \`anchorfs ${command.name} --help\``));
      return EXIT.usage;
    }
    const error = toAnchorError(e);
    if (error.fault === "internal" && e instanceof Error) terminal.err(`${e.stack ?? e.message}\n`);
    terminal.err(renderErrorForTerminal(error, command.stepSyntax?.(rest)));
    const code = exitCodeFor(error);
    return code === EXIT.failed ? failed : code;
  } finally {
    if (services) await closeServices(services);
  }
}
