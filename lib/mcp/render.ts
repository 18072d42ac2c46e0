// Renders op results and errors as MCP tool results, next steps written as tool calls in both.
// Errors become `isError` results whose text is message + detail + hint (the model reads it);
// stack traces go to stderr only.

import { type AnchorError, formatError, toAnchorError } from "../core/errors.ts";
import { type Guide, renderGuide, toolCallSyntax } from "../core/next_step.ts";
import { logError } from "./log.ts";

export type Content =
  | { type: "text"; text: string }
  | { type: "resource_link"; uri: string; name: string; mimeType?: string; description?: string };

export interface ToolResult {
  [key: string]: unknown;
  content: Content[];
  isError?: boolean;
}

/** A text as the model reads it: its suggested next steps written as tool calls. */
export function modelText(text: string | Guide): string {
  return renderGuide(text, toolCallSyntax);
}

/** A result as the model reads it: its suggested next steps written as tool calls. */
export function textResult(text: string | Guide): ToolResult {
  return { content: [{ type: "text", text: modelText(text) }] };
}

/** An error as the model reads it: its suggested next steps written as tool calls. */
export function errorResult(error: AnchorError): ToolResult {
  return { content: [{ type: "text", text: formatError(error, toolCallSyntax) }], isError: true };
}

/** Runs a tool body and turns any failure into an `isError` result. */
export async function runTool(
  tool: string,
  body: () => Promise<ToolResult | string | Guide>,
  notes: readonly string[] = [],
): Promise<ToolResult> {
  try {
    const out = await body();
    return withNotes(typeof out === "string" || !("content" in out) ? textResult(out) : out, notes);
  } catch (e) {
    const error = toAnchorError(e);
    if (error.fault === "internal") logError(`tool ${tool} failed`, e);
    return withNotes(errorResult(error), notes);
  }
}

/** `result` with one line of notes (e.g. on ignored arguments) after its first text. */
function withNotes(result: ToolResult, notes: readonly string[]): ToolResult {
  if (notes.length === 0) return result;
  const content = [...result.content];
  const i = content.findIndex((c) => c.type === "text");
  const line = notes.join(" ");
  if (i < 0) content.unshift({ type: "text", text: line });
  else {
    const first = content[i] as { type: "text"; text: string };
    content[i] = { type: "text", text: `${first.text}\n${line}` };
  }
  return { ...result, content };
}
