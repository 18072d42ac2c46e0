// Errors as values: every failure that can reach a model or a person is an AnchorError with a
// stable code, a message (what failed, values quoted), a hint (the exact next call) and whose
// fault it is. Rendering happens at the edge (lib/mcp/render.ts, lib/cli/output.ts), never here.

import type { ErrorCode } from "./error_code.ts";

export type { ErrorCode } from "./error_code.ts";

/** Whose fault a failure is decides what the reader should do next. */
export type Fault =
  /** The arguments were wrong: the hint gives the corrected call. */
  | "caller"
  /** The arguments were fine but the world was not (disk, network, host): retry or ask the user. */
  | "environment"
  /** A bug in anchorfs: retrying with other arguments will not help. */
  | "internal";

export interface AnchorErrorInit {
  code: ErrorCode;
  message: string;
  hint?: string;
  fault?: Fault;
  /** Extra text shown after the message (reports, listings); already formatted for a reader. */
  detail?: string;
  cause?: unknown;
}

/** A failure that carries everything its reader needs to decide the next step. */
export class AnchorError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly fault: Fault;
  readonly detail: string | undefined;

  constructor(init: AnchorErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "AnchorError";
    this.code = init.code;
    this.hint = init.hint;
    this.fault = init.fault ?? "caller";
    this.detail = init.detail;
  }
}

export function isAnchorError(value: unknown): value is AnchorError {
  return value instanceof AnchorError;
}

/** Wraps anything thrown into an AnchorError; unknown throwables are our fault. */
export function toAnchorError(value: unknown): AnchorError {
  if (value instanceof AnchorError) return value;
  const message = value instanceof Error ? value.message : String(value);
  return new AnchorError({
    code: "INTERNAL",
    message: `anchorfs hit an unexpected error: ${message}`,
    hint: "This is a bug in anchorfs, not in your arguments; retrying with other arguments will " +
      "not help. Report it with the call that caused it.",
    fault: "internal",
    cause: value,
  });
}

/** The whole text a model or person reads for an error: message, detail, then the hint. */
export function formatError(error: AnchorError): string {
  const parts = [error.message];
  if (error.detail) parts.push(error.detail);
  if (error.hint) parts.push(`Next: ${error.hint}`);
  return parts.join("\n\n");
}
