// Errors as values: every failure that can reach a model or a person is an AnchorError with a
// stable code, a message (what failed, values quoted), a hint (the exact next call, kept as a
// step: lib/core/next_step.ts) and whose fault it is. Rendering happens at the edge
// (lib/mcp/render.ts, lib/cli/output.ts), never here.

import type { ErrorCode } from "./error_code.ts";
import {
  type Guide,
  type NextStep,
  renderGuide,
  stepsOf,
  type StepSyntax,
  toolCallSyntax,
} from "./next_step.ts";

export type { ErrorCode } from "./error_code.ts";

/** Whose fault a failure is decides what the reader should do next. */
export type Fault =
  /** The arguments were wrong: the hint gives the corrected call. */
  | "caller"
  /** The arguments were fine but the world was not (disk, network, host): retry or ask the user. */
  | "environment"
  /** A bug in anchorfs: retrying with other arguments will not help. */
  | "internal";

/** What an {@linkcode AnchorError} is built from. */
export interface AnchorErrorInit {
  /** Stable machine-readable code, e.g. "STALE_LINE_ID" (the codes are listed in ErrorCode). */
  code: ErrorCode;
  /** What failed, with the values involved quoted. */
  message: string;
  /** The next step: prose, or a guide whose calls each interface writes in its own syntax. */
  hint?: string | Guide;
  /** Whose fault it is (default "caller"). */
  fault?: Fault;
  /** Extra text shown after the message (reports, listings); may name calls like the hint. */
  detail?: string | Guide;
  /** The underlying error, kept as the standard `Error.cause`. */
  cause?: unknown;
}

/**
 * A failure that carries everything its reader needs to decide the next step.
 *
 * @example
 * ```ts
 * import { AnchorError, formatError, isAnchorError, parseLineId } from "@anchorfs/anchorfs";
 *
 * try {
 *   parseLineId("12");
 * } catch (e) {
 *   if (!isAnchorError(e)) throw e;
 *   e.code; // "INVALID_LINE_ID"
 *   formatError(e); // message, then "Next: " and the hint
 * }
 * new AnchorError({ code: "NOT_FOUND", message: 'No file "a.txt".' }).fault; // "caller"
 * ```
 */
export class AnchorError extends Error {
  /** Stable machine-readable code, e.g. "STALE_LINE_ID". */
  readonly code: ErrorCode;
  /** The hint as data: its calls are steps, written by each interface in its own syntax. */
  readonly hintText: string | Guide | undefined;
  /** Whose fault it is: decides whether retrying with other arguments can help. */
  readonly fault: Fault;
  /** The detail as data (reports, listings), its calls written like the hint's. */
  readonly detailText: string | Guide | undefined;

  /** Builds the error; `fault` defaults to "caller". */
  constructor(init: AnchorErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "AnchorError";
    this.code = init.code;
    this.hintText = init.hint;
    this.fault = init.fault ?? "caller";
    this.detailText = init.detail;
  }

  /** The calls the hint and detail suggest, in the order they are shown. */
  get next(): readonly NextStep[] {
    return [...stepsOf(this.hintText), ...stepsOf(this.detailText)];
  }

  /** The hint as a model reads it (calls written as tool calls). */
  get hint(): string | undefined {
    return this.hintText === undefined ? undefined : renderGuide(this.hintText, toolCallSyntax);
  }

  /** The detail as a model reads it (calls written as tool calls). */
  get detail(): string | undefined {
    return this.detailText === undefined ? undefined : renderGuide(this.detailText, toolCallSyntax);
  }
}

/** True when `value` is an {@linkcode AnchorError}. */
export function isAnchorError(value: unknown): value is AnchorError {
  return value instanceof AnchorError;
}

/**
 * Wraps anything thrown into an AnchorError; unknown throwables are our fault, except a process
 * out of file descriptors, which is the environment's wherever it struck (a lock file, a pipe).
 */
export function toAnchorError(value: unknown): AnchorError {
  if (value instanceof AnchorError) return value;
  const message = value instanceof Error ? value.message : String(value);
  const code = (value as { code?: unknown } | null)?.code;
  if (code === "EMFILE" || code === "ENFILE") {
    return outOfFileHandles(code, `The call failed (${message.slice(0, 200)})`);
  }
  return new AnchorError({
    code: "INTERNAL",
    message: `anchorfs hit an unexpected error: ${message}`,
    hint: "This is a bug in anchorfs, not in your arguments; retrying with other arguments will " +
      "not help. Report it with the call that caused it.",
    fault: "internal",
    cause: value,
  });
}

/**
 * The process (EMFILE: `ulimit -n`) or the whole system (ENFILE) has no file descriptor left.
 * The call was fine, and others running at once may be holding them, so it can work in a moment;
 * a limit set too low for the server (started under `ulimit -n 128`) stays. `failed` says what
 * could not be done, e.g. `Cannot read "a.txt"`.
 */
export function outOfFileHandles(code: "EMFILE" | "ENFILE", failed: string): AnchorError {
  const who = code === "EMFILE"
    ? "this server has reached its limit of open files (EMFILE; the limit is the soft " +
      "`ulimit -n` of the process that started it)"
    : "the system has run out of open files (ENFILE: every process together)";
  return new AnchorError({
    code: "TOO_MANY_OPEN_FILES",
    message: `${failed}: ${who}. Nothing was read or changed.`,
    hint: "The arguments are fine: retry the same call in a moment (other calls or jobs may be " +
      "holding files). If it keeps failing, ask the user to restart anchorfs with a higher " +
      "limit: `ulimit -n 4096` in the shell that starts it, or LimitNOFILE=4096 for a service" +
      (code === "ENFILE" ? ", and to look for the process that holds so many files." : "."),
    fault: "environment",
  });
}

/**
 * The whole text a model or person reads for an error: message, detail, then the hint, with
 * suggested calls written in `syntax` (tool calls by default).
 */
export function formatError(error: AnchorError, syntax: StepSyntax = toolCallSyntax): string {
  const parts = [error.message];
  const detail = error.detailText === undefined ? "" : renderGuide(error.detailText, syntax);
  const hint = error.hintText === undefined ? "" : renderGuide(error.hintText, syntax);
  if (detail) parts.push(detail);
  if (hint) parts.push(`Next: ${hint}`);
  return parts.join("\n\n");
}
