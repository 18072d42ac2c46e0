// The `shell` tool: runs a command line in the session's directory; a command still running at
// the foreground window becomes a background job (returned as a resource link) instead of being
// killed. Heartbeats go out as progress notifications while the call is open.

import * as z from "zod";
import { argError } from "../arg_errors.ts";
import { AnchorError } from "../../core/errors.ts";
import { jobUri } from "../../ops/jobs/job_manager.ts";
import { shortCommand } from "../../ops/jobs/job_text.ts";
import { runShell } from "../../ops/shell.ts";
import { runTool, type ToolResult } from "../render.ts";
import type { ToolEnv, ToolRegistrar } from "../tool_env.ts";

/** The local directory a command runs in; a remote session needs a local `cwd` (see docs). */
async function resolveShellCwd(env: ToolEnv, given: string | undefined): Promise<string> {
  // Models send "" for "not set": that is the working directory, not an empty path.
  const raw = given?.trim() === "" ? undefined : given;
  const { locations } = env.services;
  const base = env.session.cwd;
  if (base.remote && (raw === undefined || !raw.startsWith("/"))) {
    throw new AnchorError({
      code: "SHELL_REMOTE_CWD",
      message: `shell runs commands on the machine running anchorfs, but the working directory ` +
        `is remote (${JSON.stringify(base.url)}).`,
      hint:
        `Pass a local absolute directory, e.g. shell {"command":"...","cwd":"/path/on/this/machine"}, ` +
        `or return to the start directory with workdir {"action":"reset"}; to run a command on ` +
        `the remote host, use ssh in the command itself: shell {"command":"ssh host 'cd /srv && make'"}.`,
    });
  }
  const location = raw === undefined
    ? base
    : await locations.locate(raw, base.remote ? locations.localAt("/") : base);
  if (location.remote) {
    throw new AnchorError({
      code: "SHELL_REMOTE_CWD",
      message: `shell cannot run in a remote directory (${JSON.stringify(location.url)}).`,
      hint: 'Pass a local directory as cwd, or run ssh inside the command: shell {"command":"ssh ' +
        "host 'cd /srv && make'\"}.",
    });
  }
  const info = await location.backend.stat(location.path);
  if (info?.type !== "dir") {
    throw new AnchorError({
      code: "NOT_A_DIRECTORY",
      message: `shell cannot run in ${JSON.stringify(location.path)}: ${
        info ? "it is not a directory" : "no such directory"
      }.`,
      hint: `Pass an existing directory as cwd, or leave cwd out to use the working directory ` +
        `(${JSON.stringify(base.url)}).`,
    });
  }
  return location.path;
}

export const registerShellTool: ToolRegistrar = (mcp, env) => {
  mcp.registerTool(
    "shell",
    {
      title: "Run a shell command",
      description:
        "Run a command line with bash in the working directory (stdin closed, pagers off) and get " +
        "its exit code and the TAIL of its output (last 30 KB; errors and test summaries are at " +
        `the end). There is no background flag: if the command is still running after ${env.options.foregroundWindowSeconds} s ` +
        "it keeps running as a job and the call returns at once with a resource link " +
        "anchorfs://jobs/ID; you get a notification when it ends. Every process it starts ends " +
        "with it: what it leaves behind with & is stopped when it exits, so start a server as a " +
        "call of its own. Do NOT run it again and do not " +
        'sleep: use jobs {"action":"wait","id":"ID"} or just continue with other work. The same ' +
        "command in the same directory is refused while it runs; different commands run side by " +
        "side. Use view/text_editor instead of cat/grep/sed for files.\n" +
        (env.options.confined
          ? "NOT CONFINED: the directories this server allows (--allow/--roots) limit only the " +
            "file tools; a command runs as the user and can reach any path.\n"
          : "") +
        'Examples: {"command":"make test"} · {"command":"git status --short"} · ' +
        '{"command":"npm run build","cwd":"packages/web"}',
      inputSchema: z.object({
        command: z.string(argError("command", 'a command line string, e.g. "make test"', true))
          .describe(
            'The command line, run as bash -c "<command>". Pipes, &&, redirections work.',
          ),
        cwd: z.string(argError("cwd", 'a directory path string, e.g. "packages/web"')).optional()
          .describe(
            "Directory to run in, relative to the working directory or absolute. Default: the " +
              "working directory (see workdir). Must be on this machine.",
          ),
      }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    ({ command, cwd }, ctx) =>
      runTool("shell", async (): Promise<ToolResult | string> => {
        const dir = await resolveShellCwd(env, cwd);
        const token = ctx.mcpReq._meta?.progressToken;
        let progress = 0;
        const outcome = await runShell(command, dir, {
          jobs: env.services.jobs,
          foregroundWindowMs: env.options.foregroundWindowSeconds * 1000,
          signal: ctx.mcpReq.signal,
          ...(token !== undefined && {
            onProgress: (message: string) => {
              ctx.mcpReq.notify({
                method: "notifications/progress",
                params: { progressToken: token, progress: ++progress, message },
              }).catch(() => {});
            },
          }),
        });
        // Clients may drop a progress notification that shares a chunk with the result.
        if (progress > 0) await new Promise((r) => setTimeout(r, 0));
        if (outcome.kind === "finished") return outcome.text;
        const id = outcome.record.id;
        return {
          content: [
            { type: "text", text: outcome.text },
            {
              type: "resource_link",
              uri: jobUri(id),
              name: `${shortCommand(command, 100)} (job ${id})`,
              mimeType: "text/plain",
              description: `\`${
                shortCommand(command, 100)
              }\` … still running as job ${id} in ${dir}`,
            },
          ],
        };
      }),
  );
};
