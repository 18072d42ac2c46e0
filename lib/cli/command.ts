// The shape of a human subcommand and the shared argument parsing around node:util parseArgs.

import { parseArgs, type ParseArgsConfig } from "node:util";
import { Confinement } from "../ops/confinement.ts";
import type { Services } from "../ops/services.ts";
import type { Terminal } from "./output.ts";
import type { StepSyntax } from "../core/next_step.ts";
import { type ParseArgsFailure, parseArgsMessage } from "../core/usage_text.ts";

interface CliContext {
  terminal: Terminal;
  /**
   * Built lazily (`--help` must not open anything), once: the first call's options count
   * (`anchorfs jobs --state-dir DIR` names the state dir).
   */
  services: (options?: CliServiceOptions) => Services;
}

/** What a subcommand may choose about the services it uses. */
interface CliServiceOptions {
  /** The state dir jobs are kept in (default: ANCHORFS_STATE_DIR, else the platform's). */
  stateDir?: string;
}

export interface CliCommand {
  name: string;
  /** One line for the top-level usage. */
  summary: string;
  /** The full `anchorfs NAME --help` text. */
  usage: string;
  /**
   * Checks the arguments without running anything (no services, no I/O): throws UsageError for
   * what run() would refuse as usage. run() starts with it; the docs test feeds it every
   * `anchorfs ...` example.
   */
  parse(args: string[]): unknown;
  run(args: string[], context: CliContext): Promise<number>;
  /**
   * The exit code when the operation fails (an error that is not bad usage, or a failed write);
   * EXIT.failed (1) when left out. `view --content` exits 2, as grep does: 1 means no match.
   */
  failedExitCode?(args: string[]): number;
  /**
   * How the next steps of this command's errors are written when its arguments hold options the
   * suggested commands must repeat (`jobs --state-dir DIR`); cliStepSyntax when left out.
   */
  stepSyntax?(args: string[]): StepSyntax;
}

export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig["options"]>;

/**
 * parseArgs with strict checking; throws UsageError with a one-line message. A negative number
 * after an option that takes a value (`--start -5`, documented as "negative counts from the
 * end") is that option's value, not an unknown flag.
 */
export function parseCommandArgs<T extends Options>(args: string[], options: T) {
  const valued = new Set<string>();
  for (const [name, option] of Object.entries(options)) {
    if (option.type !== "string") continue;
    valued.add(`--${name}`);
    if (option.short) valued.add(`-${option.short}`);
  }
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const next = args[i + 1];
    if (arg === "--") {
      joined.push(...args.slice(i));
      break;
    }
    if (valued.has(arg) && next !== undefined && /^-\d+(\.\d+)?$/.test(next)) {
      joined.push(`${arg}=${next}`);
      i++;
    } else joined.push(arg);
  }
  try {
    return parseArgs({ args: joined, options, strict: true, allowPositionals: true });
  } catch (e) {
    throw new UsageError(parseArgsMessage(e as ParseArgsFailure, true));
  }
}

/** `--allow DIR` (repeatable) for subcommands that take paths: the check of `anchorfs mcp --allow`. */
export const ALLOW_OPTION = { allow: { type: "string", multiple: true } } as const;

export const ALLOW_HELP =
  "  --allow DIR           Refuse paths outside DIR (symlinks resolved; repeatable)";

/** Confines every path the command resolves to the --allow directories (none given: no-op). */
export async function applyAllow(services: Services, allow: string[] | undefined): Promise<void> {
  if (allow === undefined || allow.length === 0) return;
  const start = services.locations.localAt(Deno.cwd());
  const confinement = await Confinement.create(services.locations, start, { allow, roots: false });
  services.locations.setGuard(confinement);
}
