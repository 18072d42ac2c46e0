// The one place the human CLI writes to the terminal. Errors are rendered as `error:` and
// `hint:` lines on stderr; results go to stdout.

import type { AnchorError, ErrorCode } from "../core/errors.ts";
import { type Guide, renderGuide, type StepSyntax } from "../core/next_step.ts";
import { cliStepSyntax } from "./step_command.ts";

const encoder = new TextEncoder();

export interface Terminal {
  out(text: string): void;
  err(text: string): void;
  /** True when stderr is an interactive terminal: progress (spinners) is drawn there, so a
   * redirected stderr gets none. */
  stderrIsTty: boolean;
}

function writeAll(stream: { writeSync(p: Uint8Array): number }, text: string): void {
  let bytes = encoder.encode(text);
  while (bytes.length > 0) bytes = bytes.subarray(stream.writeSync(bytes));
}

export const realTerminal: Terminal = {
  out: (text) => {
    try {
      writeAll(Deno.stdout, text);
    } catch (e) {
      // A closed pipe (`anchorfs view x | head`) is not an error worth a stack trace.
      if (!(e instanceof Deno.errors.BrokenPipe)) throw e;
    }
  },
  err: (text) => writeAll(Deno.stderr, text),
  stderrIsTty: Deno.stderr.isTerminal(),
};

/**
 * Renders a result for a person: its next steps as command lines (`syntax`: with the options the
 * command was given that they must repeat), ending with a newline.
 */
export function renderResultForTerminal(
  result: string | Guide,
  syntax: StepSyntax = cliStepSyntax,
): string {
  const text = renderGuide(result, syntax);
  return text.endsWith("\n") ? text : `${text}\n`;
}

/** Renders an error for a person: message and detail, then the next step as a command line. */
export function renderErrorForTerminal(
  error: AnchorError,
  syntax: StepSyntax = cliStepSyntax,
): string {
  const lines = [`error: ${error.message}`];
  const detail = error.detailText && renderGuide(error.detailText, syntax);
  const hint = error.hintText && renderGuide(error.hintText, syntax);
  if (detail) lines.push("", detail);
  if (hint) lines.push("", `hint: ${hint}`);
  return `${lines.join("\n")}\n`;
}

/** The CLI's exit codes (docs/errors.md "Exit codes"; `anchorfs --help` lists them too). */
export const EXIT = {
  ok: 0,
  /** The operation failed (missing file, stale line ids, unreachable host, ...). */
  failed: 1,
  /** Bad usage: unknown command or option, a malformed or missing argument value. */
  usage: 2,
  /** A bug in anchorfs (the stack trace goes to stderr): report it, do not retry. */
  internal: 3,
  /** `jobs wait --timeout`: the job is still running (like timeout(1)). */
  waitTimeout: 124,
  /** `jobs wait|tail|kill`: no job with that id (125 so it is not read as the job's own exit 1). */
  noSuchJob: 125,
} as const;

/** Error codes that mean the call itself was malformed (exit 2), whatever the files hold. */
const USAGE_CODES = new Set<ErrorCode>([
  "INVALID_ARGUMENT",
  "MISSING_ARGUMENT",
  "INVALID_FLAG",
  "INVALID_LINE_ID",
  "INVALID_OPERATION",
  "INVALID_REGEX",
  "INVALID_PATTERN",
  "INVALID_REMOTE_PATH",
  "MULTILINE_SEARCH",
  "EMPTY_PATH",
  "EMPTY_SEARCH",
  "EMPTY_COMMAND",
  "MISSING_JOB_ID",
]);

/** The exit code for an error: see EXIT. */
export function exitCodeFor(error: AnchorError): number {
  if (error.fault === "internal") return EXIT.internal;
  if (error.code === "JOB_NOT_FOUND") return EXIT.noSuchJob;
  if (USAGE_CODES.has(error.code)) return EXIT.usage;
  return EXIT.failed;
}

/** A usage error in the shape of every other error: `error:` then `hint:`. */
export function renderUsageError(message: string, hint: string): string {
  return `error: ${message}\nhint: ${hint}\n`;
}
