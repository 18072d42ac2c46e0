// The one place the human CLI writes to the terminal. Errors are rendered as `error:` and
// `hint:` lines on stderr; results go to stdout.

import type { AnchorError } from "../core/errors.ts";

const encoder = new TextEncoder();

export interface Terminal {
  out(text: string): void;
  err(text: string): void;
  /** True when stdout is an interactive terminal (spinners, colours). */
  isTty: boolean;
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
  isTty: Deno.stdout.isTerminal(),
};

/** Renders an error for a person: message and detail, then the next step. */
export function renderErrorForTerminal(error: AnchorError): string {
  const lines = [`error: ${error.message}`];
  if (error.detail) lines.push("", error.detail);
  if (error.hint) lines.push("", `hint: ${error.hint}`);
  return `${lines.join("\n")}\n`;
}

/** Exit codes: 1 for failures of the operation, 2 for bad usage, 3 for our own bugs. */
export function exitCodeFor(error: AnchorError): number {
  return error.fault === "internal" ? 3 : 1;
}
