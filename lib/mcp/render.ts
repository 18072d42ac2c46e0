// Renders op results and errors as MCP tool results, next steps written as tool calls in both.
// Errors become `isError` results whose text is message + detail + hint (the model reads it);
// stack traces go to stderr only.

import { type AnchorError, formatError, toAnchorError } from "../core/errors.ts";
import {
  type Guide,
  isCall,
  renderGuide,
  type StepSyntax,
  toolCallSyntax,
} from "../core/next_step.ts";
import { logError } from "./log.ts";
import { callEnded, callStarted } from "../core/call_activity.ts";

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

/**
 * Tool calls for a server without the shell and jobs tools (--no-shell): a step naming one of
 * them would be a call the model cannot make, so it is written as the command for the user to
 * run, and said to be that; every other step as a tool call.
 */
export const noShellSyntax: StepSyntax = (s) => {
  if (!isCall(s) || (s.tool !== "shell" && s.tool !== "jobs")) return toolCallSyntax(s);
  if (s.tool === "jobs") return "(no jobs here: this server was started with --no-shell)";
  const where = s.args.cwd === undefined ? "" : ` in ${s.args.cwd}`;
  return `\`${s.args.command}\`${where} (a shell command for the user to run: this server was ` +
    "started with --no-shell and has no shell tool)";
};

/** The syntax of the calls this server can take: with or without the shell and jobs tools. */
export function stepSyntaxFor(options: { shell: boolean }): StepSyntax {
  return options.shell ? toolCallSyntax : noShellSyntax;
}

/** A result as the model reads it: its suggested next steps written as tool calls. */
export function textResult(text: string | Guide, syntax = toolCallSyntax): ToolResult {
  return { content: [{ type: "text", text: renderGuide(text, syntax) }] };
}

/** An error as the model reads it: its suggested next steps written as tool calls. */
export function errorResult(error: AnchorError, syntax = toolCallSyntax): ToolResult {
  return { content: [{ type: "text", text: formatError(error, syntax) }], isError: true };
}

/** Runs a tool body and turns any failure into an `isError` result. */
export async function runTool(
  tool: string,
  body: () => Promise<ToolResult | string | Guide>,
  notes: readonly string[] = [],
  syntax: StepSyntax = toolCallSyntax,
): Promise<ToolResult> {
  callStarted();
  try {
    const out = await body();
    const result = typeof out === "string" || !("content" in out) ? textResult(out, syntax) : out;
    return withNotes(result, notes);
  } catch (e) {
    const error = toAnchorError(e);
    if (error.fault === "internal") logError(`tool ${tool} failed`, e);
    return withNotes(errorResult(error, syntax), notes);
  } finally {
    callEnded();
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
