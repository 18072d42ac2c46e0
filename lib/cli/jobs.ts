// `anchorfs jobs`: list, tail, wait for and kill the shell jobs an MCP server started. Reads the
// durable state dir, so it works from another terminal while the server runs.

import { cliExitCodeFor, durationMs, isTerminal, type JobRecord } from "../core/jobs/job_state.ts";
import { formatDuration } from "../core/jobs/progress_text.ts";
import type { JobManager } from "../ops/jobs/job_manager.ts";
import {
  formatJobList,
  killText,
  PERSON_TAIL_BYTES,
  shortCommand,
  statusPhrase,
} from "../ops/jobs/job_text.ts";
import { waitForJob } from "../ops/jobs/wait_for_job.ts";
import { followJob } from "../ops/jobs/follow_job.ts";
import { type CliCommand, parseCommandArgs, UsageError } from "./command.ts";
import { AnchorError, isAnchorError } from "../core/errors.ts";
import { EXIT, renderResultForTerminal, type Terminal } from "./output.ts";
import { plural } from "../core/plural.ts";
import { guide, step, type StepSyntax } from "../core/next_step.ts";
import { cliStepSyntax, cliSyntax } from "./step_command.ts";
import { ProgressLine } from "./progress_line.ts";

/** `jobs wait` exit code when the job is still running at the timeout (like timeout(1)). */
const WAIT_TIMEOUT_EXIT_CODE = EXIT.waitTimeout;

const USAGE = `Usage:
  anchorfs jobs [list]                       List recent jobs, newest first
  anchorfs jobs tail ID [-f] [--bytes N]     Print the end of a job's output (-f: follow)
  anchorfs jobs wait ID [--timeout S]        Wait for the job to end, print its output tail,
                                             exit with its exit code (${WAIT_TIMEOUT_EXIT_CODE} if still running)
  anchorfs jobs kill ID                      Kill the job and every process it started

Jobs are the commands the MCP shell tool ran; their records and full logs live in the state
dir, so this works from another terminal while the server runs.

Options:
  --state-dir DIR   State dir (default: $ANCHORFS_STATE_DIR, else $XDG_STATE_HOME/anchorfs,
                    else ~/.local/state/anchorfs)
  --bytes N         How much of the output tail to print (default ${PERSON_TAIL_BYTES})
  --timeout S       For wait: give up after S seconds (default: wait until it ends)
  -f, --follow      For tail: keep printing new output until the job ends

Exit codes: wait and tail -f exit with the job's exit code (128+N when signal N ended it),
${WAIT_TIMEOUT_EXIT_CODE} when wait's --timeout passed, ${EXIT.noSuchJob} when no job has that id, 2 for bad usage.`;

// Exported for tests.
/** The options of `anchorfs jobs` (next steps are rendered against them: step_command.ts). */
export const JOBS_OPTIONS = {
  "state-dir": { type: "string" },
  bytes: { type: "string" },
  timeout: { type: "string" },
  follow: { type: "boolean", short: "f" },
} as const;

function parsePositive(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    throw new UsageError(`${flag} takes a positive number, got ${JSON.stringify(raw)}`);
  }
  return value;
}

const JOB_ACTIONS = ["list", "ls", "tail", "wait", "kill"];

/** Options, action, id and numbers checked; nothing read yet. */
function parseJobsArgs(args: string[]) {
  const { values, positionals } = parseCommandArgs(args, JOBS_OPTIONS);
  const [action = "list", id, ...extra] = positionals;
  if (extra.length > 0) {
    const words = extra.map((w) => JSON.stringify(w)).join(" ");
    throw new UsageError(`unexpected argument${extra.length > 1 ? "s" : ""} ${words}`);
  }
  if (!JOB_ACTIONS.includes(action)) {
    throw new UsageError(`unknown jobs action ${JSON.stringify(action)}`);
  }
  if (id === undefined && action !== "list" && action !== "ls") {
    throw new UsageError(`jobs ${action} needs a job ID`);
  }
  const bytes = parsePositive("--bytes", values.bytes) ?? PERSON_TAIL_BYTES;
  const timeout = action === "wait" ? parsePositive("--timeout", values.timeout) : undefined;
  return { values, action, id, bytes, timeout };
}

/**
 * The commands suggested after `anchorfs jobs --state-dir DIR ...` read the same state dir: a
 * plain `anchorfs jobs` would list another one.
 */
function jobsStepSyntax(args: string[]): StepSyntax {
  let stateDir: string | undefined;
  try {
    stateDir = parseCommandArgs(args, JOBS_OPTIONS).values["state-dir"];
  } catch {
    // Bad usage is reported without next steps of this kind.
  }
  return stateDir === undefined ? cliStepSyntax : cliSyntax({ stateDir });
}

export const jobsCommand: CliCommand = {
  name: "jobs",
  summary: "List, tail, wait for or kill the shell jobs started by the MCP server",
  usage: USAGE,
  parse: parseJobsArgs,
  stepSyntax: jobsStepSyntax,
  async run(args, { terminal, services }) {
    const parsed = parseJobsArgs(args);
    const stateDir = parsed.values["state-dir"];
    const jobs = services(stateDir !== undefined ? { stateDir } : {}).jobs;
    try {
      return await runJobs(jobs, parsed, { terminal, syntax: jobsStepSyntax(args) });
    } catch (e) {
      // The shared hint names the recent jobs of the server's own state dir; from a terminal,
      // name the state dir read (another terminal's server may use a different one).
      if (isAnchorError(e) && e.code === "JOB_NOT_FOUND") {
        throw new AnchorError({
          code: e.code,
          message: `${e.message.replace(/\.$/, "")} in the state dir ${jobs.store.stateDir}.`,
          hint: guide`List the jobs with ${
            step("jobs", { action: "list" })
          }; pass the server's --state-dir if it uses another one.`,
        });
      }
      throw e;
    }
  },
};

/** Where `anchorfs jobs` writes, and how its suggested commands are written. */
interface JobsOutput {
  terminal: Terminal;
  syntax: StepSyntax;
}

async function runJobs(
  jobs: JobManager,
  { values, action, id, bytes, timeout }: ReturnType<typeof parseJobsArgs>,
  output: JobsOutput,
): Promise<number> {
  const { terminal, syntax } = output;
  const needId = () => {
    if (id === undefined) throw new UsageError(`jobs ${action} needs a job ID`);
    return id;
  };
  switch (action) {
    case "list":
    case "ls": {
      const records = await jobs.list(50);
      // From another terminal the likely cause of an empty list is another state dir: name it.
      terminal.out(
        records.length > 0
          ? renderResultForTerminal(formatJobList(records, Date.now()), syntax)
          : `No jobs recorded in ${jobs.store.stateDir}. A server started with another ` +
            "--state-dir or ANCHORFS_STATE_DIR keeps its jobs there: pass the same one here.\n",
      );
      return 0;
    }
    case "tail":
      return values.follow
        ? await follow(jobs, needId(), bytes, terminal)
        : await printTail(jobs, needId(), bytes, terminal);
    case "wait":
      return await wait(jobs, needId(), timeout, bytes, output);
    case "kill":
      terminal.out(`${killText(await jobs.kill(needId()))}\n`);
      return 0;
    default:
      throw new UsageError(`unknown jobs action ${JSON.stringify(action)}`);
  }
}

async function printTail(
  jobs: JobManager,
  id: string,
  bytes: number,
  terminal: Terminal,
): Promise<number> {
  const { record, tail } = await jobs.readTail(id, bytes);
  if (tail.omittedBytes > 0) {
    terminal.err(
      `[${plural(tail.omittedBytes, "earlier byte")} omitted; more with --bytes N]\n`,
    );
  }
  terminal.out(tail.text);
  if (tail.text !== "" && !tail.text.endsWith("\n")) terminal.out("\n");
  // An empty stdout alone reads as a failed read: say the job printed nothing.
  const silent = tail.text === "" && tail.omittedBytes === 0
    ? isTerminal(record.status) ? "; it printed no output" : "; no output yet"
    : "";
  terminal.err(`[job ${record.id}: ${statusPhrase(record)}${silent}]\n`);
  return 0;
}

/** Prints the tail, then new output as it arrives, until the job ends. */
async function follow(
  jobs: JobManager,
  id: string,
  bytes: number,
  terminal: Terminal,
): Promise<number> {
  let last = "";
  const record = await followJob(jobs, id, {
    tailBytes: bytes,
    onText: (text) => {
      terminal.out(text);
      if (text !== "") last = text;
    },
    onCut: () =>
      terminal.err("[the log passed its cap and was cut; continuing with the newest output]\n"),
  });
  // The status on a line of its own; a job that printed nothing says so (not a blank line).
  const end = last === "" ? "; it printed no output" : "";
  const newline = last === "" || last.endsWith("\n") ? "" : "\n";
  terminal.err(`${newline}[job ${record.id}: ${statusPhrase(record)}${end}]\n`);
  // Like `wait`: the job's own result, so `anchorfs jobs tail -f ID && next` works.
  return cliExitCodeFor(record);
}

async function wait(
  jobs: JobManager,
  id: string,
  timeoutSeconds: number | undefined,
  bytes: number,
  { terminal, syntax }: JobsOutput,
): Promise<number> {
  const frames = "|/-\\";
  let frame = 0;
  // A spinner on a terminal only: piped stderr gets no redraws.
  const progress = terminal.stderrIsTty ? new ProgressLine(terminal) : undefined;
  let result;
  try {
    result = await waitForJob(jobs, id, {
      timeoutMs: timeoutSeconds === undefined ? Infinity : timeoutSeconds * 1000,
      heartbeatMs: progress ? 250 : 1000,
      ...(progress && {
        onHeartbeat: (record: JobRecord) =>
          progress.show(
            `${frames[frame++ % frames.length]} job ${id} running ${
              formatDuration(durationMs(record, Date.now()))
            } · ${shortCommand(record.command, 50)}`,
          ),
      }),
    });
  } finally {
    progress?.clear();
  }
  if (!result.done) {
    terminal.err(renderResultForTerminal(
      guide`job ${id} is still running after ${
        formatDuration(result.elapsedMs)
      } (waiting did not stop it); wait again with ${step("jobs", { action: "wait", id })}`,
      syntax,
    ));
    return WAIT_TIMEOUT_EXIT_CODE;
  }
  await printTail(jobs, id, bytes, terminal);
  return cliExitCodeFor(result.record);
}
