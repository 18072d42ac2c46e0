// The `jobs` tool: list jobs, read a job's output tail, wait for a job (bounded, never kills),
// kill a job's whole process tree. For clients without notifications, `wait` is the way to
// follow a long command: one call per ~50 s instead of polling with sleep.

import * as z from "zod";
import { argError } from "../arg_errors.ts";
import { AnchorError } from "../../core/errors.ts";
import { durationMs } from "../../core/jobs/job_state.ts";
import { describeProcesses } from "../../core/jobs/job_processes.ts";
import { formatDuration, formatProgress } from "../../core/jobs/progress_text.ts";
import {
  formatJobList,
  formatJobReport,
  latestLines,
  shortCommand,
  statusPhrase,
} from "../../ops/jobs/job_text.ts";
import { jobUri } from "../../ops/jobs/job_manager.ts";
import { endedBadly, readJobOutput, tailReadBytes } from "../../ops/jobs/job_output.ts";
import { runTool, type ToolResult } from "../render.ts";
import { argNotes, toolInput } from "../tool_input.ts";
import type { ToolRegistrar } from "../tool_env.ts";

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

function needId(action: string, id: string | undefined): string {
  if (id !== undefined && id.trim() !== "") return id.trim();
  throw new AnchorError({
    code: "MISSING_JOB_ID",
    message: `jobs action "${action}" needs the job id.`,
    hint: `Pass it, e.g. jobs {"action":"${action}","id":"1234-1"}; list the jobs with ` +
      'jobs {"action":"list"}.',
  });
}

export const registerJobsTool: ToolRegistrar = (mcp, env) => {
  mcp.registerTool(
    "jobs",
    {
      title: "Shell jobs",
      description:
        "Follow commands the shell tool moved to the background (resource anchorfs://jobs/ID). " +
        '"list": recent jobs, newest first. "read": status, exit code and the output tail. ' +
        `"wait": block until the job ends, at most timeout_seconds (default ${DEFAULT_WAIT_SECONDS}); on ` +
        "timeout it answers that the job is still running and how to continue; waiting NEVER " +
        'kills the job. "kill": stop the job and every process it started. A job that was cut ' +
        "off (killed, server shut down, output cap, lost) is reported as such, never as success.\n" +
        'Examples: {"action":"list"} · {"action":"wait","id":"4242-3"} · ' +
        '{"action":"read","id":"4242-3","bytes":100000} · {"action":"kill","id":"4242-3"}',
      inputSchema: toolInput({
        action: z.enum(["list", "read", "wait", "kill"]).default("list").describe(
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
          `For "read"/"wait": bytes of output tail to show, as sent (default ${env.options.tailBytes}).`,
        ),
      }, { aliases: { timeout: "timeout_seconds", job_id: "id" } }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    (args, ctx) =>
      runTool("jobs", async () => {
        const { action, id, timeout_seconds, bytes } = args;
        const jobs = env.services.jobs;
        const tailBytes = bytes ?? env.options.tailBytes;
        /** A job that ended badly reads as an error result, as its shell call did. */
        const report = async (jobId: string): Promise<ToolResult> => {
          const output = await readJobOutput(jobs, jobId, tailBytes);
          return {
            content: [{ type: "text", text: formatJobReport(output, Date.now(), tailBytes) }],
            isError: endedBadly(output.record),
          };
        };
        switch (action) {
          case "list": {
            const records = await jobs.list(30);
            return `${formatJobList(records, Date.now())}${
              records.length > 0
                ? '\nRead one with jobs {"action":"read","id":"ID"} or the resource anchorfs://jobs/ID.'
                : ""
            }`;
          }
          case "read": {
            // Within the process-wide read budget, held until the reply is written: pipelined
            // 1 MiB reads wait their turn instead of piling up as queued replies. A reply holds
            // its bytes about four times (buffer, text, JSON, the written frame); before that
            // the raw log window is held twice (its bytes, then the decoded text) while cleaned.
            const release = await env.services.reads.budget.take(
              tailBytes * REPLY_COPIES + 2 * tailReadBytes(tailBytes),
            );
            try {
              const result = await report(needId(action, id));
              holdUntilSent(env.options.replySent?.(ctx.mcpReq.id), ctx.mcpReq.signal, release);
              return result;
            } catch (e) {
              release();
              throw e;
            }
          }
          case "wait": {
            const jobId = needId(action, id);
            const timeoutMs = (timeout_seconds ?? DEFAULT_WAIT_SECONDS) * 1000;
            const token = ctx.mcpReq._meta?.progressToken;
            const t0 = Date.now();
            let progress = 0;
            let result = await jobs.wait(jobId, 0);
            while (!result.done && Date.now() - t0 < timeoutMs && !ctx.mcpReq.signal.aborted) {
              const left = timeoutMs - (Date.now() - t0);
              result = await jobs.wait(jobId, Math.min(left, 2000), ctx.mcpReq.signal);
              if (!result.done && token !== undefined && Date.now() - t0 < timeoutMs) {
                const { tail } = await jobs.readTail(jobId, 4096);
                ctx.mcpReq.notify({
                  method: "notifications/progress",
                  params: {
                    progressToken: token,
                    progress: ++progress,
                    message: formatProgress(durationMs(result.record, Date.now()), tail.text),
                  },
                }).catch(() => {});
              }
            }
            if (progress > 0) await new Promise((r) => setTimeout(r, 0));
            if (result.done) return await report(jobId);
            const { record, tail } = await jobs.readTail(jobId, 2048);
            return `Job ${record.id} (\`${
              shortCommand(record.command)
            }\`) is still running after ` +
              `waiting ${formatDuration(Date.now() - t0)} (running for ${
                formatDuration(durationMs(record, Date.now()))
              }). Waiting did not stop it. Continue with jobs {"action":"wait","id":"${record.id}"} ` +
              `or carry on with other work: a notification for ${
                jobUri(record.id)
              } arrives when it ends.\n--- latest output ---\n${latestLines(tail) || "(none yet)"}`;
          }
          case "kill": {
            const jobId = needId(action, id);
            const { record, wasRunning, killed } = await jobs.kill(jobId);
            const { tail } = await jobs.readTail(jobId, 2048);
            const head = wasRunning
              ? `Killed job ${record.id} (\`${shortCommand(record.command)}\`): ${
                killed.length > 0
                  ? `terminated ${describeProcesses(killed)}`
                  : "no process of it was left to terminate"
              }; ${statusPhrase(record)}.`
              : `Job ${record.id} had already ended: ${statusPhrase(record)}. ${
                killed.length > 0
                  ? `Terminated ${describeProcesses(killed)} it had left running.`
                  : "No process of it is left; nothing to kill."
              }`;
            return `${head}\n--- latest output ---\n${latestLines(tail) || "(none)"}`;
          }
        }
      }, argNotes(args)),
  );
};
