// The `workdir` tool: get, set or reset the session's working directory.

import * as z from "zod";
import { argError } from "../arg_errors.ts";
import { runWorkdir } from "../../ops/workdir.ts";
import { runTool, stepSyntaxFor } from "../render.ts";
import { argNotes, toolInput } from "../tool_input.ts";
import type { ToolRegistrar } from "../tool_env.ts";

export const registerWorkdirTool: ToolRegistrar = (mcp, env) => {
  mcp.registerTool(
    "workdir",
    {
      title: "Working directory",
      description:
        "Get, set or reset the working directory that relative paths of every tool resolve " +
        'against. It may be remote (ssh://host/abs/path); {"action":"reset"} returns to the start ' +
        "directory.\n" +
        'Examples: {"action":"get"} · {"action":"set","path":"packages/api"} · {"action":"reset"}',
      inputSchema: toolInput({
        action: z.enum(
          ["get", "set", "reset"],
          argError("action", '"get", "set" (with a path) or "reset"'),
        ).optional().describe(
          'Omitted: "set" when path is given, else "get".',
        ),
        path: z.string(argError("path", 'a directory path string, e.g. "packages/api"')).optional()
          .describe('For "set": the directory.'),
      }, { reads: ["reset"], rewrite: resetFlag }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    (args) =>
      runTool(
        "workdir",
        () =>
          // A path without an action can only mean "go there"; ignoring it would look like success.
          runWorkdir(
            env.session,
            env.services.locations,
            args.action ?? (args.path ? "set" : "get"),
            args.path,
          ),
        argNotes(args),
        stepSyntaxFor(env.options),
      ),
  );
};

/** Octofs's {"reset": true}: the action "reset". */
function resetFlag(args: Record<string, unknown>): void {
  if (!("reset" in args)) return;
  if ((args.reset === true || args.reset === "true") && args.action === undefined) {
    args.action = "reset";
  }
  if (args.reset !== true && args.reset !== "true" || args.action === "reset") delete args.reset;
}
