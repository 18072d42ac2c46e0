// The shape of a human subcommand and the shared argument parsing around node:util parseArgs.

import { parseArgs, type ParseArgsConfig } from "node:util";
import type { Services } from "../ops/services.ts";
import type { Terminal } from "./output.ts";

export interface CliContext {
  terminal: Terminal;
  /** Built lazily: `--help` must not open anything. */
  services: () => Services;
}

export interface CliCommand {
  name: string;
  /** One line for the top-level usage. */
  summary: string;
  /** The full `anchorfs NAME --help` text. */
  usage: string;
  run(args: string[], context: CliContext): Promise<number>;
}

export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig["options"]>;

/** parseArgs with strict checking; throws UsageError with a one-line message. */
export function parseCommandArgs<T extends Options>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (e) {
    throw new UsageError((e as Error).message.split("\n")[0]);
  }
}
