// The `shell` tool: runs a command line in the session's directory; a command still running at
// the foreground window becomes a background job (returned as a resource link) instead of being
// killed. Heartbeats go out as progress notifications while the call is open.

import * as z from "zod";
import { argError } from "../arg_errors.ts";
import { step, toolCallSyntax } from "../../core/next_step.ts";
import { formatJobUri as jobUri } from "../../core/jobs/job_uri.ts";
import { shortCommand } from "../../ops/jobs/job_text.ts";
import { resolveShellCwd, runShell } from "../../ops/shell.ts";
import { noteStillRunning } from "../job_channel.ts";
import { modelText, runTool, type ToolResult } from "../render.ts";
import { argNotes, toolInput } from "../tool_input.ts";
import type { ShellKind } from "../../core/platform/platform.ts";
import type { ToolEnv, ToolRegistrar } from "../tool_env.ts";
import { progressReporter } from "../progress.ts";
import type { ServerContext } from "@modelcontextprotocol/server";

/** Following a job (`wait`) and stopping one (`kill`), as the model writes the calls. */
const WAIT_FOR_JOB = toolCallSyntax(step("jobs", { action: "wait", id: "ID" }));
const KILL_JOB = toolCallSyntax(step("jobs", { action: "kill", id: "ID" }));

/** What the arguments agents send to other shells' tools meant, and how it is done here. */
function shellMeant(windowSeconds: number): Record<string, string> {
  const job = `a command still running after ${windowSeconds} s becomes a job by itself; follow ` +
    `it with ${WAIT_FOR_JOB}.`;
  return {
    background: `there is no background flag: ${job}`,
    run_in_background: `there is no background flag: ${job}`,
    timeout: `the shell has no timeout and never kills a command: ${job} Stop one with ` +
      `${KILL_JOB}.`,
    timeout_seconds: `the shell has no timeout and never kills a command: ${job}`,
    workdir: 'use "cwd".',
    dir: 'use "cwd".',
    directory: 'use "cwd".',
    description: "not needed; only command and cwd are read.",
  };
}

/** How the configured shell is named in the description (bash unless --shell says otherwise). */
function shellLabel(shell: ShellKind | undefined): string {
  return shell === "cmd"
    ? "cmd.exe"
    : shell === "pwsh" || shell === "powershell"
    ? "PowerShell"
    : shell ?? "bash";
}

/** What a command line is run as, and what its syntax allows (Windows PowerShell 5.1 has no &&). */
function shellForm(shell: ShellKind | undefined): string {
  return shell === "cmd"
    ? "cmd.exe /d /s /c; pipes, && and redirections work."
    : shell === "powershell"
    ? "powershell -Command (no &&)."
    : shell === "pwsh"
    ? "pwsh -Command; pipes, && and redirections work."
    : `${shell ?? "bash"} -c; pipes, && and redirections work.`;
}

/** The shell tool's description: the configured shell, the foreground window, confinement. */
function shellDescription(env: ToolEnv): string {
  return `Run a command line with ${shellLabel(env.services.shell)} in the working directory ` +
    "(stdin closed, pagers off); get " +
    "its exit code and cleaned output tail. No background flag: a command still running after " +
    `${env.options.foregroundWindowSeconds} s becomes a job and the call returns a link ` +
    `${jobUri("ID")}; a notification comes when it ends (on a 2026-07-28 connection only ` +
    `while a subscriptions/listen stream is open). Do NOT rerun it or sleep: ${WAIT_FOR_JOB}, or do ` +
    "other work. Processes left behind with & are stopped when it exits; start a server as " +
    "its own call. Use view/text_editor instead of cat/grep/sed.\n" +
    (env.options.confined
      ? "NOT CONFINED: --allow/--roots limit only the file tools; a command can reach any " +
        "path.\n"
      : "") +
    'Examples: {"command":"make test"} · {"command":"npm run build","cwd":"packages/web"}';
}

/** The shell tool's arguments, and what other shells' tools' arguments meant. */
function shellInput(env: ToolEnv) {
  return toolInput({
    command: z.string(argError("command", 'a command line string, e.g. "make test"', true))
      .describe(`Run as ${shellForm(env.services.shell)}`),
    cwd: z.string(argError("cwd", 'a directory path string, e.g. "packages/web"')).optional()
      .describe(
        "Directory to run in (default: the working directory); ssh://host/dir runs it there" +
          // Remote hosts always run bash: worth saying only when the local shell is another.
          (env.services.shell === undefined || env.services.shell === "bash" ? "." : " with bash."),
      ),
  }, { meant: shellMeant(env.options.foregroundWindowSeconds) });
}

export const registerShellTool: ToolRegistrar = (mcp, env) => {
  mcp.registerTool(
    "shell",
    {
      title: "Run a shell command",
      description: shellDescription(env),
      inputSchema: shellInput(env),
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    (args, ctx) => runTool("shell", () => shellCall(env, args, ctx), argNotes(args)),
  );
};

/** One shell call: runs the command in the foreground window, then as a job if still running. */
async function shellCall(
  env: ToolEnv,
  args: { command: string; cwd?: string | undefined },
  ctx: ServerContext,
): Promise<ToolResult> {
  const { command, cwd } = args;
  const { dir, location } = await resolveShellCwd(
    env.services.locations,
    env.session.cwd,
    cwd,
  );
  const progress = progressReporter(ctx);
  const outcome = await runShell(command, location, {
    jobs: env.services.jobs,
    // Remote hosts run bash; the policy reads the line as the shell that runs it.
    ...(location.remote
      ? { shell: "bash" as const }
      : env.services.shell !== undefined && { shell: env.services.shell }),
    files: {
      locations: env.services.locations,
      cwd: location,
      base: env.session.cwd,
      maxFileBytes: env.services.reads.maxFileBytes,
    },
    foregroundWindowMs: env.options.foregroundWindowSeconds * 1000,
    tailBytes: env.options.tailBytes,
    passingLines: env.options.passingLines,
    signal: ctx.mcpReq.signal,
    ...(progress.report && { onProgress: progress.report }),
  });
  await progress.settle();
  if (outcome.kind === "finished") {
    // A non-zero exit, signal, kill or capped output is an error result: clients and
    // models that look only at isError do not read a failed build as done.
    return { content: [{ type: "text", text: modelText(outcome.text) }], isError: outcome.failed };
  }
  const id = outcome.record.id;
  // The model was told it is still running: its end is worth a notification.
  noteStillRunning(env.session, id);
  return {
    content: [
      { type: "text", text: modelText(outcome.text) },
      {
        type: "resource_link",
        uri: jobUri(id),
        name: `${shortCommand(command, 100)} (job ${id})`,
        mimeType: "text/plain",
        description: `\`${shortCommand(command, 100)}\` … still running as job ${id} in ${dir}`,
      },
    ],
  };
}
