// The `workdir` tool: get, set or reset the session's working directory.

import * as z from "zod";
import { argError } from "../arg_errors.ts";
import { runWorkdir } from "../../ops/workdir.ts";
import { runTool } from "../render.ts";
import type { ToolRegistrar } from "../tool_env.ts";

export const registerWorkdirTool: ToolRegistrar = (mcp, env) => {
  mcp.registerTool(
    "workdir",
    {
      title: "Working directory",
      description:
        "Get, set or reset the session's working directory. Relative paths in every tool (view, " +
        "text_editor, batch_edit, extract_lines, shell) resolve against it. It may be remote: " +
        'after {"action":"set","path":"ssh://box/srv/app"} relative paths, absolute paths and ~ ' +
        'resolve on that host (local files need {"action":"reset"} first).\n' +
        'Examples: {"action":"get"} · {"action":"set","path":"packages/api"} · {"action":"reset"} ' +
        "(back to the directory the server started in).",
      inputSchema: z.object({
        action: z.enum(["get", "set", "reset"]).optional().describe(
          '"get" shows the current directory, "set" changes it (needs path), "reset" returns to ' +
            'the start directory. Omitted: "set" when path is given, else "get".',
        ),
        path: z.string(argError("path", 'a directory path string, e.g. "packages/api"')).optional()
          .describe(
            'For "set": a directory, relative to the current one, absolute, "~/x", or "ssh://host/abs/path".',
          ),
      }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    ({ action, path }) =>
      runTool("workdir", () =>
        // A path without an action can only mean "go there"; ignoring it would look like success.
        runWorkdir(env.session, env.services.locations, action ?? (path ? "set" : "get"), path)),
  );
};
