// The one place the human CLI writes to the terminal. Errors are rendered as `error:` and
// `hint:` lines on stderr; results go to stdout.

import type { AnchorError, ErrorCode } from "../core/errors.ts";
import { type Guide, renderGuide, type StepSyntax } from "../core/next_step.ts";
import { cliStepSyntax } from "./step_command.ts";

const encoder = new TextEncoder();

export interface Terminal {
  /** Writes to stdout; throws WriteError when the write fails (full disk, closed pipe, EIO). */
  out(text: string): void;
  /** Writes to stderr; throws WriteError when the write fails. */
  err(text: string): void;
  /** True when stdout is an interactive terminal: a view's paging notices stay after the lines
   * there, and go to stderr when stdout is a file or a pipe (so `| wc -l` counts only lines). */
  stdoutIsTty: boolean;
  /** True when stderr is an interactive terminal: progress (spinners) is drawn there, so a
   * redirected stderr gets none. */
  stderrIsTty: boolean;
  /** The terminal's width in columns, undefined when none is known (no terminal). */
  columns(): number | undefined;
  /** Calls `listener` when the terminal is resized (SIGWINCH); returns the function that stops. */
  onResize(listener: () => void): () => void;
}

/**
 * A write to stdout or stderr failed: a full disk, a closed pipe, an I/O error on a hung-up
 * terminal. The environment's fault: said in one line (`anchorfs: write error: ...`), not as a bug.
 */
export class WriteError extends Error {
  constructor(readonly stream: "stdout" | "stderr", cause: unknown) {
    // Deno's text ends with " (os error 28)": the line says it the way rg and coreutils do.
    super(String((cause as Error)?.message ?? cause).replace(/ \(os error \d+\)$/, ""), { cause });
  }
}

function writeAll(stream: { writeSync(p: Uint8Array): number }, text: string): void {
  let bytes = encoder.encode(text);
  while (bytes.length > 0) bytes = bytes.subarray(stream.writeSync(bytes));
}

function guardedWrite(
  name: "stdout" | "stderr",
  stream: { writeSync(p: Uint8Array): number },
): (text: string) => void {
  return (text) => {
    try {
      writeAll(stream, text);
    } catch (e) {
      throw new WriteError(name, e);
    }
  };
}

function consoleColumns(): number | undefined {
  try {
    const { columns } = Deno.consoleSize();
    return columns > 0 ? columns : undefined;
  } catch {
    return undefined; // no terminal on stdin, stdout or stderr
  }
}

function onWindowResize(listener: () => void): () => void {
  // Windows has no SIGWINCH: there the width is read again at every frame.
  if (Deno.build.os === "windows") return () => {};
  Deno.addSignalListener("SIGWINCH", listener);
  return () => Deno.removeSignalListener("SIGWINCH", listener);
}

export const realTerminal: Terminal = {
  out: guardedWrite("stdout", Deno.stdout),
  err: guardedWrite("stderr", Deno.stderr),
  stdoutIsTty: Deno.stdout.isTerminal(),
  stderrIsTty: Deno.stderr.isTerminal(),
  columns: consoleColumns,
  onResize: onWindowResize,
};

/**
 * Says a failed write in one line on stderr (when stderr still takes it) and returns the exit
 * code: `failedCode`, the command's code for an operation that failed (docs/errors.md).
 */
export function reportWriteError(
  error: WriteError,
  terminal: Terminal,
  failedCode: number,
): number {
  try {
    terminal.err(`anchorfs: write error: ${error.message}\n`);
  } catch {
    // stderr is what failed, or failed too: nothing else can tell.
  }
  return failedCode;
}

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
  /** The operation failed (missing file, stale line ids, unreachable host, a failed write, ...). */
  failed: 1,
  /** `view --content`: no line matched (as grep and rg; `anchorfs view . --content X && ...`). */
  noMatch: 1,
  /** `view --content`: the search failed, whatever the reason (1 there means no match). */
  searchFailed: 2,
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
  "SEARCH_TOO_LONG",
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
