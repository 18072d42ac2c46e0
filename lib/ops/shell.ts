// The shell use case: judge the command (policy), start it as a job, keep the call in the
// foreground for the window with heartbeats, then either return the exit code and output tail
// or hand back the still-running job. Never kills on a timeout, never starts a command twice.

import { AnchorError } from "../core/errors.ts";
import type { JobRecord } from "../core/jobs/job_state.ts";
import { maskedStatusNote } from "../core/shell/pipeline_note.ts";
import { formatDuration } from "../core/jobs/progress_text.ts";
import type { ShellKind } from "../core/platform/platform.ts";
import { type Guide, guide, joinGuide, joinGuides, step } from "../core/next_step.ts";
import type { Location, Locations } from "./location.ts";
import { judgeShellCommand, type ShellFiles } from "./shell_files.ts";
import { type JobManager } from "./jobs/job_manager.ts";
import { formatJobUri } from "../core/jobs/job_uri.ts";
import { DEFAULT_PASSING_LINES, endedBadly, readJobOutput } from "./jobs/job_output.ts";
import { heartbeatText, waitForJob } from "./jobs/wait_for_job.ts";
import { unsavedRecordText } from "./jobs/job_messages.ts";
import {
  DEFAULT_TAIL_BYTES,
  formatTail,
  latestLines,
  shortCommand,
  statusPhrase,
} from "./jobs/job_text.ts";

interface ShellDeps {
  jobs: JobManager;
  /** How long the call waits before the command becomes a background job. */
  foregroundWindowMs: number;
  /** Heartbeat sink (text ≤ 200 chars); called at most every `heartbeatMs`. */
  onProgress?: (message: string, elapsedMs: number) => void;
  /** Default 2 s: well inside the "at least every 5 s" liveness promise. */
  heartbeatMs?: number;
  tailBytes?: number;
  /** Lines a passing run shows (default DEFAULT_PASSING_LINES; 0: the whole tail). */
  passingLines?: number;
  signal?: AbortSignal;
  /** The shell the command runs with; the policy reads the line as that shell does. */
  shell?: ShellKind;
  /**
   * Where the command's files are looked up when the policy refuses reading them: a file
   * anchorfs cannot read itself (too big, not a regular file) is the shell's to read.
   */
  files?: ShellFiles;
}

/** How a shell call ended; `text` keeps the calls it suggests as steps. */
type ShellOutcome =
  /** `failed`: it ended with anything but exit 0 (the result is an error the model reads). */
  | { kind: "finished"; record: JobRecord; text: Guide; failed: boolean }
  | { kind: "promoted"; record: JobRecord; text: Guide };

/**
 * Where a command runs: a local directory, or a directory on an ssh host (then the command runs
 * there, over the pooled connection, as a job like any other). `base` is the session's working
 * directory; `dir` is how it is shown (the ssh:// URL for a remote directory) and `location`
 * is what runShell takes.
 */
export async function resolveShellCwd(
  locations: Locations,
  base: Location,
  given: string | undefined,
): Promise<{ dir: string; location: Location }> {
  // Models send "" for "not set": that is the working directory, not an empty path.
  const raw = given?.trim() === "" ? undefined : given;
  const location = raw === undefined ? base : await locations.locate(raw, base);
  const info = await location.backend.stat(location.path);
  if (info?.type !== "dir") {
    throw new AnchorError({
      code: "NOT_A_DIRECTORY",
      message: `shell cannot run in ${JSON.stringify(location.url)}: ${
        info ? "it is not a directory" : "no such directory"
      }.`,
      hint: `Pass an existing directory as cwd, or leave cwd out to use the working directory ` +
        `(${JSON.stringify(base.url)}).`,
    });
  }
  if (!location.remote) return { dir: location.path, location };
  const host = location.host.jobs;
  if (!host) {
    throw new AnchorError({
      code: "SHELL_REMOTE_CWD",
      message: `shell cannot run commands in ${JSON.stringify(location.url)}: that host only ` +
        "serves files.",
      hint: guide`Pass a local directory as cwd, e.g. ${
        step("shell", { command: "...", cwd: "/path/on/this/machine" })
      }.`,
    });
  }
  return { dir: location.url, location };
}

/**
 * Runs `command` in `cwd` on its host (a Location, as resolveShellCwd gives: an ssh host's
 * directory runs there over the pooled connection).
 */
export async function runShell(
  command: string,
  cwd: Pick<Location, "host" | "path" | "url">,
  deps: ShellDeps,
): Promise<ShellOutcome> {
  if (command.trim() === "") {
    throw new AnchorError({
      code: "EMPTY_COMMAND",
      message: "The command is empty.",
      hint: guide`Pass a shell command line, e.g. ${step("shell", { command: "make test" })}.`,
    });
  }
  const nul = command.indexOf("\0");
  if (nul >= 0) {
    // The spawn would fail and blame the directory; bash could not run it anyway.
    throw new AnchorError({
      code: "INVALID_ARGUMENT",
      message: `The command contains a NUL byte (character ${
        nul + 1
      }), which no command line can hold; nothing was run.`,
      hint: guide`Remove it; to write a NUL byte, let the command make one, e.g. ${
        step("shell", { command: "printf 'a\\0b' > file.bin" })
      }.`,
    });
  }
  const verdict = await judgeShellCommand(command, deps.shell, deps.files);
  if (!verdict.allowed) {
    throw new AnchorError({ code: "SHELL_POLICY", message: verdict.message, fault: "caller" });
  }
  const { jobs } = deps;
  const started = await jobs.start(cwd.host, cwd, command);
  const { onProgress } = deps;
  const { record, done, elapsedMs } = await waitForJob(jobs, started.id, {
    timeoutMs: deps.foregroundWindowMs,
    ...(deps.heartbeatMs !== undefined && { heartbeatMs: deps.heartbeatMs }),
    ...(deps.signal && { signal: deps.signal }),
    ...(onProgress && {
      onHeartbeat: async (_record: JobRecord, elapsed: number) =>
        onProgress(await heartbeatText(jobs, started.id, elapsed), elapsed),
    }),
  });
  const tailBytes = deps.tailBytes ?? DEFAULT_TAIL_BYTES;
  if (done) {
    const output = await readJobOutput(jobs, started.id, tailBytes, {
      passingLines: deps.passingLines ?? DEFAULT_PASSING_LINES,
    });
    const final = output.record;
    const head = `\`${shortCommand(command)}\` ${statusPhrase(final)} in ${
      formatDuration((final.endedAt ?? Date.now()) - final.startedAt)
    } · job ${final.id}`;
    const note = maskedStatusNote(command, final.exitCode ?? undefined);
    const unsaved = unsavedRecordText(final);
    return {
      kind: "finished",
      record: final,
      failed: endedBadly(final),
      text: joinGuide(
        `${head}\n${note ? `${note}\n` : ""}`,
        ...(unsaved ? [unsaved, "\n"] : []),
        formatTail(output, tailBytes),
      ),
    };
  }
  const { tail } = await jobs.readTail(started.id, 1024);
  return {
    kind: "promoted",
    record,
    text: promotedText(record, latestLines(tail), elapsedMs),
  };
}

/** The answer for a command that outlived the foreground window and runs on as a job. */
function promotedText(record: JobRecord, lastOutput: string, elapsedMs: number): Guide {
  const id = record.id;
  const lines: (string | Guide)[] = [
    `\`${shortCommand(record.command)}\` … still running as job ${id} (${formatJobUri(id)}) after ${
      formatDuration(elapsedMs)
    }; you will get a notification ` +
    `(notifications/resources/updated for ${
      formatJobUri(id)
    }) when it ends, if your client listens ` +
    "for resource updates (otherwise jobs wait below tells you). It keeps running and its " +
    "output is captured in full; do not start it again.",
    joinGuide(
      "Meanwhile: read its output with ",
      step("jobs", { action: "read", id }),
      "; block until it ends with ",
      step("jobs", { action: "wait", id }),
      " (at most 50 s per call, never kills); stop it with ",
      step("jobs", { action: "kill", id }),
      ". Other, independent commands can run now.",
    ),
  ];
  const last = lastOutput.trimEnd();
  if (last !== "") lines.push("--- latest output ---", last);
  return joinGuides(lines, "\n");
}
