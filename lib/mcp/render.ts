// Renders op results and errors as MCP tool results. Errors become `isError` results whose text
// is message + detail + hint (the model reads it); stack traces go to stderr only.

import { type AnchorError, formatError, toAnchorError } from "../core/errors.ts";
import { logError } from "./log.ts";

export type Content =
  | { type: "text"; text: string }
  | { type: "resource_link"; uri: string; name: string; mimeType?: string; description?: string };

export interface ToolResult {
  [key: string]: unknown;
  content: Content[];
  isError?: boolean;
}

export function textResult(text: string): ToolResult {
  return { content: [{ type: "text", text }] };
}

export function errorResult(error: AnchorError): ToolResult {
  return { content: [{ type: "text", text: formatError(error) }], isError: true };
}

/** Runs a tool body and turns any failure into an `isError` result. */
export async function runTool(
  tool: string,
  body: () => Promise<ToolResult | string>,
): Promise<ToolResult> {
  try {
    const out = await body();
    return typeof out === "string" ? textResult(out) : out;
  } catch (e) {
    const error = toAnchorError(e);
    if (error.fault === "internal") logError(`tool ${tool} failed`, e);
    return errorResult(error);
  }
}
