// The `jobs` tool: list jobs, read a job's output tail, wait for a job (bounded, never kills),
// kill a job's whole process tree. For clients without notifications, `wait` is the way to
// follow a long command: one call per ~50 s instead of polling with sleep.

import * as z from "zod";
import { argError } from "../arg_errors.ts";
import { AnchorError } from "../../core/errors.ts";
import { type Guide, guide, joinGuide, step } from "../../core/next_step.ts";
import { durationMs, isTerminal, type JobRecord } from "../../core/jobs/job_state.ts";
import {
  formatJobList,
  formatJobReport,
  killText,
  latestLines,
  stillRunningText,
} from "../../ops/jobs/job_text.ts";
import type { JobManager } from "../../ops/jobs/job_manager.ts";
import { formatJobUri } from "../../core/jobs/job_uri.ts";
import { heartbeatText, waitForJob } from "../../ops/jobs/wait_for_job.ts";
import {
  DEFAULT_PASSING_LINES,
  endedBadly,
  readJobOutput,
  tailReadBytes,
} from "../../ops/jobs/job_output.ts";
import { modelText, runTool, type ToolResult } from "../render.ts";
import { argNotes, toolInput } from "../tool_input.ts";
import type { ToolEnv, ToolRegistrar } from "../tool_env.ts";
import { progressReporter } from "../progress.ts";
import type { ServerContext } from "@modelcontextprotocol/server";
import { noteEndReported, noteStillRunning, whileWaiting } from "../job_channel.ts";
import type { Session } from "../../ops/session.ts";

export const DEFAULT_WAIT_SECONDS = 50;
const MAX_READ_BYTES = 1024 * 1024;
const REPLY_COPIES = 4;
/** A reply never written (cancelled, dropped) gives its budget back after this long. */
const REPLY_HOLD_MAX_MS = 30_000;

/** Calls `release` once the reply is written, the call is cancelled, or at the latest later. */
function holdUntilSent(
  sent: Promise<void> | undefined,
  signal: AbortSignal,
  release: () => void,
): void {
  if (!sent) return release();
  const timer = setTimeout(release, REPLY_HOLD_MAX_MS);
  const done = () => {
    clearTimeout(timer);
    release();
  };
  sent.then(done);
  signal.addEventListener("abort", done, { once: true });
}

function needId(action: "read" | "wait" | "kill", id: string | undefined): string {
  if (id !== undefined && id.trim() !== "") return id.trim();
  throw new AnchorError({
    code: "MISSING_JOB_ID",
    message: `jobs action "${action}" needs the job id.`,
    hint: guide`Pass it, e.g. ${step("jobs", { action, id: "1234-1" })}; list the jobs with ${
      step("jobs", { action: "list" })
    }.`,
  });
}

/**
 * The jobs tool's arguments; the description of `bytes` states the server's defaults: the tail
 * (--tail-bytes) and the lines a passing run shows instead (--passing-tail-lines).
 */
function jobsInput({ tailBytes, passingLines = DEFAULT_PASSING_LINES }: ToolEnv["options"]) {
  return toolInput({
    action: z.enum(
      ["list", "read", "wait", "kill"],
      argError("action", '"list", "read", "wait" or "kill", e.g. "wait" with an id'),
    ).default("list").describe(
      '"list", "read", "wait" or "kill".',
    ),
    id: z.string(argError("id", 'a job id string, e.g. "4242-3"')).optional().describe(
      'Job id as shown by shell/list, e.g. "4242-3" (needed for read, wait, kill).',
    ),
    timeout_seconds: z.number(argError(
      "timeout_seconds",
      "a number of seconds above 0 and at most 3600, e.g. 50",
    ))
      .positive().max(3600).optional().describe(
        `For "wait": seconds to block at most (default ${DEFAULT_WAIT_SECONDS}).`,
      ),
    bytes: z.number(argError(
      "bytes",
      `a whole number of bytes from 1 to ${MAX_READ_BYTES}, e.g. 100000`,
    )).int().positive().max(
      MAX_READ_BYTES,
    ).optional().describe(
      `For "read"/"wait": tail bytes to show, as sent (default ${tailBytes}${
        passingLines > 0 ? `; a passing run: last ${passingLines} lines` : ""
      }).`,
    ),
  }, { aliases: { timeout: "timeout_seconds", job_id: "id" } });
}

/** A job's status and output tail; one that ended badly reads as an error, as its shell call did. */
async function jobReport(
  jobs: JobManager,
  jobId: string,
  tailBytes: number,
  passingLines: number,
  /** Called when the report shows the job's end (the model has it: no notification repeats it). */
  reported?: (jobId: string) => void,
): Promise<ToolResult> {
  const output = await readJobOutput(jobs, jobId, tailBytes, { passingLines });
  if (isTerminal(output.record.status)) reported?.(jobId);
  return {
    content: [{ type: "text", text: modelText(formatJobReport(output, Date.now(), tailBytes)) }],
    isError: endedBadly(output.record),
  };
}

/** The recent jobs, newest first, and how to read one. */
async function listText(jobs: JobManager): Promise<Guide> {
  const records = await jobs.list(30);
  const readOne = step("jobs", { action: "read", id: "ID" });
  return joinGuide(
    formatJobList(records, Date.now()),
    records.length > 0
      ? guide`\nRead one with ${readOne} or the resource ${formatJobUri("ID")}.`
      : "",
  );
}

/** Kills a job's whole process tree; says what was killed and shows its latest output. */
async function killReport(jobs: JobManager, jobId: string): Promise<string> {
  const result = await jobs.kill(jobId);
  const { tail } = await jobs.readTail(jobId, 2048);
  return `${killText(result)}\n--- latest output ---\n${latestLines(tail) || "(none)"}`;
}

/** The jobs tool's description (the default wait is in it). */
const JOBS_DESCRIPTION =
  `Follow commands the shell tool moved to the background (resource ${formatJobUri("ID")}). ` +
  '"list": recent jobs, newest first. "read": status, exit code and the output tail. ' +
  `"wait": block until the job ends, at most timeout_seconds (default ${DEFAULT_WAIT_SECONDS}); on ` +
  "timeout it answers that the job is still running and how to continue; waiting NEVER " +
  'kills the job. "kill": stop the job and every process it started. A job that was cut ' +
  "off (killed, server shut down, output cap, lost) is reported as such, never as success.\n" +
  'Examples: {"action":"list"} · {"action":"wait","id":"4242-3"} · ' +
  '{"action":"read","id":"4242-3","bytes":100000} · {"action":"kill","id":"4242-3"}';

export const registerJobsTool: ToolRegistrar = (mcp, env) => {
  mcp.registerTool(
    "jobs",
    {
      title: "Shell jobs",
      description: JOBS_DESCRIPTION,
      inputSchema: jobsInput(env.options),
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    (args, ctx) => runTool("jobs", () => jobsCall(env, args, ctx), argNotes(args)),
  );
};

/** The jobs tool's arguments after validation. */
interface JobsArgs {
  action: "list" | "read" | "wait" | "kill";
  id?: string | undefined;
  timeout_seconds?: number | undefined;
  bytes?: number | undefined;
}

/** One jobs call: the action's text or report. */
async function jobsCall(
  env: ToolEnv,
  args: JobsArgs,
  ctx: ServerContext,
): Promise<ToolResult | string | Guide> {
  const { action, id, bytes } = args;
  const jobs = env.services.jobs;
  const tailBytes = bytes ?? env.options.tailBytes;
  // An explicit `bytes` asks for that much tail, even of a passing run.
  const passingLines = bytes === undefined ? env.options.passingLines ?? DEFAULT_PASSING_LINES : 0;
  const report = (jobId: string) =>
    jobReport(jobs, jobId, tailBytes, passingLines, (ended) => noteEndReported(env.session, ended));
  switch (action) {
    case "list":
      return await listText(jobs);
    case "read":
      return await readWithinBudget(env, ctx, tailBytes, () => report(needId(action, id)));
    case "wait": {
      const jobId = needId(action, id);
      const seconds = args.timeout_seconds ?? DEFAULT_WAIT_SECONDS;
      return await whileWaiting(
        env.session,
        jobId,
        () => waitReport(jobs, jobId, seconds * 1000, ctx, report, env.session),
      );
    }
    case "kill": {
      const jobId = needId(action, id);
      // The kill's answer says how it ended: no notification repeats it.
      noteEndReported(env.session, jobId);
      return await killReport(jobs, jobId);
    }
  }
}

/**
 * A read within the process-wide read budget, held until the reply is written: pipelined 1 MiB
 * reads wait their turn instead of piling up as queued replies. A reply holds its bytes about
 * four times (buffer, text, JSON, the written frame); before that the raw log window is held
 * twice (its bytes, then the decoded text) while cleaned.
 */
async function readWithinBudget(
  env: ToolEnv,
  ctx: ServerContext,
  tailBytes: number,
  read: () => Promise<ToolResult>,
): Promise<ToolResult> {
  const release = await env.services.reads.budget.take(
    tailBytes * REPLY_COPIES + 2 * tailReadBytes(tailBytes),
  );
  try {
    const result = await read();
    holdUntilSent(env.options.replySent?.(ctx.mcpReq.id), ctx.mcpReq.signal, release);
    return result;
  } catch (e) {
    release();
    throw e;
  }
}

/**
 * Waits for a job at most `timeoutMs` (never kills it), with heartbeats as progress: its report
 * once it ends, else that it is still running and how to go on.
 */
async function waitReport(
  jobs: JobManager,
  jobId: string,
  timeoutMs: number,
  ctx: ServerContext,
  report: (jobId: string) => Promise<ToolResult>,
  session: Session,
): Promise<ToolResult | Guide> {
  const progress = progressReporter(ctx);
  const notify = progress.report;
  const waited = await waitForJob(jobs, jobId, {
    timeoutMs,
    signal: ctx.mcpReq.signal,
    ...(notify && {
      onHeartbeat: async (record: JobRecord) => {
        notify(await heartbeatText(jobs, jobId, durationMs(record, Date.now())));
      },
    }),
  });
  await progress.settle();
  if (waited.done) return await report(jobId);
  const { record, tail } = await jobs.readTail(jobId, 2048);
  noteStillRunning(session, jobId);
  return stillRunningText(record, waited.elapsedMs, tail, Date.now());
}
