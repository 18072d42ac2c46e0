// Every text the job manager shows the model, in one place so the messages can be reviewed
// together: refusals to start (shutting down, the cap, duplicates, an unwritable state dir), an
// unknown id, a start or a kill that failed, and the notes a job's log and record end with.
// Each says what happened, quotes the command or id, and names the next call.

import { AnchorError, type AnchorErrorInit } from "../../core/errors.ts";
import { type Guide, guide, joinGuide, step } from "../../core/next_step.ts";
import { describeProcesses, type ProcessInfo } from "../../core/jobs/job_processes.ts";
import type { JobRecord } from "../../core/jobs/job_state.ts";
import { formatJobUri, isJobId } from "../../core/jobs/job_uri.ts";
import { formatDuration, truncateText } from "../../core/jobs/progress_text.ts";

/**
 * A remote job whose shell ended while something on the host still held its output open: a
 * process carrying no proof of being the job's (see "The limit" in docs/shell-and-jobs.md).
 */
const HELD_OPEN_NOTE = "after its shell ended, its output was still held open on the host by " +
  "a process that carries no proof of being the job's (no cookie, not in its group or session, " +
  "its parent gone), so that process was left running there and what it writes now is not kept";

/**
 * A local job whose shell ended while something outside it still held its output pipe open (on
 * the process tree: a process with no proof of being the job's).
 */
const HELD_PIPE_NOTE = "after its shell ended, its output pipe was still held open by a process " +
  "that carries no proof of being the job's (no cookie, not in its cgroup, group or session, its " +
  "parent gone), so that process was left running; the server closed the pipe, so it gets " +
  "EPIPE or SIGPIPE when it writes, and nothing it writes reaches the log";

/** SERVER_SHUTTING_DOWN: a start after shutdown began. */
export function shuttingDown(command: string): AnchorError {
  return new AnchorError({
    code: "SERVER_SHUTTING_DOWN",
    message: `Not starting ${
      JSON.stringify(truncateText(command, 80))
    }: the server is shutting down.`,
    hint: "Retry after the client reconnects.",
    fault: "environment",
  });
}

/**
 * TOO_MANY_JOBS. Calls that arrived together count the jobs still starting (no id yet): the
 * refusal then names the running ones (`ids`), or, when none has an id yet, the list call.
 */
export function tooManyJobs(
  command: string,
  ids: readonly string[],
  startingCount: number,
  maxRunning: number,
): AnchorError {
  const busy = ids.length + startingCount;
  const starting = startingCount > 0 ? `, ${startingCount} of them still starting` : "";
  return new AnchorError({
    code: "TOO_MANY_JOBS",
    message: `Not starting ${JSON.stringify(truncateText(command, 80))}: ${busy} ${
      busy === 1 ? "job is" : "jobs are"
    } already running${starting}, and the limit is ${maxRunning}${
      ids.length > 0 ? ` (${ids.join(", ")})` : ""
    }.`,
    hint: ids.length > 0
      ? waitOrKill(ids[0]!)
      : guide`They are all still starting: retry in a moment, or see them with ${
        step("jobs", { action: "list" })
      }.`,
    fault: "environment",
  });
}

/** STATE_DIR_UNWRITABLE after the start: the record could not be written, the job was stopped. */
export function recordUnwritable(root: string, e: unknown): AnchorError {
  return new AnchorError({
    code: "STATE_DIR_UNWRITABLE",
    message: `Could not write the job record in ${JSON.stringify(root)}: ${
      (e as Error).message
    }; the command was stopped.`,
    hint: "Free disk space or make the state dir writable, or use another one with " +
      "--state-dir DIR (or ANCHORFS_STATE_DIR), then run the command again.",
    fault: "environment",
    cause: e,
  });
}

/** STATE_DIR_UNWRITABLE before the start: no record place could be made, nothing runs. */
export function recordUncreatable(root: string, e: unknown): AnchorError {
  return new AnchorError({
    code: "STATE_DIR_UNWRITABLE",
    message: `Could not create the job record in ${JSON.stringify(root)}: ${(e as Error).message}`,
    hint: "The command was not started. Make the state dir writable, or point anchorfs at " +
      "another one with --state-dir DIR (or ANCHORFS_STATE_DIR).",
    fault: "environment",
    cause: e,
  });
}

/** JOB_NOT_FOUND, naming the most recent ids (`recent`, newest first). */
export function jobNotFound(id: string, recent: readonly string[]): AnchorError {
  return new AnchorError({
    code: "JOB_NOT_FOUND",
    message: `No job with id ${JSON.stringify(id)}${
      isJobId(id) ? "" : " (job ids look like 1234-5: the server pid, a dash, a number)"
    }.`,
    // With none recorded, a listing would show nothing: say where ids come from instead.
    hint: recent.length > 0
      ? guide`Recent jobs: ${recent.join(", ")}. List them with ${
        step("jobs", { action: "list" })
      }.`
      : "No jobs recorded yet: every shell call records one, and its result names the id.",
  });
}

/**
 * What a job's end adds: the notes appended to its log (each on a line of its own) and the note
 * of its record. `leftovers`: what an exit (not a kill) left running, ended; `heldOpen`: its
 * output stayed open on the host; `drained`: its local pipe emptied; `limits`: what its cgroup
 * limits did.
 */
export function endNotes(end: {
  leftovers: ProcessInfo[];
  heldOpen: boolean;
  drained: boolean;
  limits: string | undefined;
}): { log: string[]; record?: string } {
  const note = end.leftovers.length > 0 ? leftoversNote(end.leftovers) : undefined;
  const held = end.heldOpen ? HELD_OPEN_NOTE : end.drained ? undefined : HELD_PIPE_NOTE;
  const limits = end.limits;
  const limitNote = limits && `[anchorfs: its limits were reached: ${limits}.]`;
  const log = [note, held && `[anchorfs: ${held}.]`, limitNote].filter((n) => n !== undefined);
  if ((held ?? limits) === undefined) return { log };
  return {
    log,
    record: [held, limits && `its limits were reached: ${limits}`].filter(Boolean).join("; "),
  };
}

/** The log's note when the command exited and left processes running (they were ended). */
function leftoversNote(leftovers: ProcessInfo[]): string {
  return `[anchorfs: the command exited and left ${
    describeProcesses(leftovers)
  } running; they were terminated, because every process of a job ends with it. Run a ` +
    "long-lived server as a shell call of its own (it becomes a job), not with a trailing &.]";
}

/**
 * Why a remote job whose end was not observed is `lost`: the dropped connection (`why`), what of
 * it was stopped there, or why the host could not be reached to stop it (`unreached`).
 */
export function lostReason(why: string, killed: ProcessInfo[], unreached?: string): string {
  return `${why}; its end was not observed, so its exit code is unknown and it was ` +
    "not started again" +
    (killed.length > 0
      ? ` (${describeProcesses(killed)} of it were still running there and have been terminated)`
      : "") +
    // Its processes there end when the host sees the connection close (the job's watcher);
    // a host that never saw it keeps them until a kill reaches it.
    (unreached !== undefined
      ? ` (the host could not be reached to stop what may still run of it there: ${unreached}; ` +
        "killing this job stops that once the host can be reached)"
      : "");
}

/**
 * A start on a host that runs no commands (it only serves files: memory, or a local host the
 * embedder did not hand the job manager's jobs). Nothing was run.
 */
export function runsNoCommands(hostId: string, command: string, cwd: string): AnchorError {
  return new AnchorError({
    code: "SHELL_REMOTE_CWD",
    message: `Cannot run ${JSON.stringify(truncateText(command, 80))} in ${
      JSON.stringify(cwd)
    }: its host (${hostId}) only serves files; nothing was run.`,
    hint: "Pass a directory on this machine, or on an ssh host, as cwd.",
    fault: "caller",
  });
}

/** A command that could not be started (nothing runs). */
export function spawnFailed(command: string, cwd: string, e: unknown): AnchorError {
  return new AnchorError({
    code: "SPAWN_FAILED",
    message: `Could not start ${JSON.stringify(truncateText(command, 80))} in ${
      JSON.stringify(cwd)
    }: ${(e as Error).message}`,
    // A remote host's refusal says itself what to do (an SFTP-only account, its limit).
    hint: e instanceof AnchorError && e.hintText !== undefined
      ? e.hintText
      : "Check that the directory exists and is accessible; the command itself was fine.",
    fault: "environment",
    cause: e,
  });
}

/** A kill of another live server's remote job that could not reach the host. */
export function remoteStopError(record: JobRecord, why: string): AnchorError {
  return new AnchorError({
    code: "REMOTE_KILL_FAILED",
    message:
      `Could not stop job ${record.id} (${
        JSON.stringify(truncateText(record.command, 80))
      }) on ${record.host}: ${why}. It is still running there, started by another anchorfs ` +
      `server (pid ${record.serverPid}); the kill request is recorded, so that server records ` +
      "it as killed when it ends.",
    hint: guide`Retry ${
      step("jobs", { action: "kill", id: record.id })
    } once the host is reachable, or stop it from the session that started it.`,
    fault: "environment",
  });
}

export function duplicateStartingError(command: string, cwd: string): AnchorError {
  return new AnchorError({
    code: "DUPLICATE_JOB",
    message: `${JSON.stringify(truncateText(command, 120))} is being started in ${
      JSON.stringify(cwd)
    } by another call right now; starting it twice would run the same work twice.`,
    hint: guide`Wait for that call's result (it names the job), or list jobs with ${
      step("jobs", { action: "list" })
    }. Independent (different) commands may run concurrently.`,
  });
}

/** DUPLICATE_JOB for a command already running: carries that job, so a caller may reword it. */
export class DuplicateJobError extends AnchorError {
  /** `serverPid`: the pid of the server refusing (its own jobs notify; another's do not). */
  constructor(readonly record: JobRecord, now: number, serverPid: number) {
    super(duplicateErrorText(record, now, serverPid));
  }
}

function duplicateErrorText(record: JobRecord, now: number, serverPid: number): AnchorErrorInit {
  return {
    code: "DUPLICATE_JOB",
    message:
      `${JSON.stringify(truncateText(record.command, 120))} is already running in ${
        JSON.stringify(record.cwd)
      } as job ${record.id} (${formatJobUri(record.id)}), started ${
        formatDuration(now - record.startedAt)
      } ago. Starting it again would run the same work twice (two runs fighting over the same ` +
      "files give wrong results).",
    hint: joinGuide(
      record.serverPid === serverPid
        ? "Wait for its notification instead of starting a duplicate, or call "
        : `It was started by another anchorfs server (pid ${record.serverPid}, e.g. another ` +
          "agent session), so no notification comes here: call ",
      step("jobs", { action: "wait", id: record.id }),
      "; read its output so far with ",
      step("jobs", { action: "read", id: record.id }),
      ". Independent (different) commands may run concurrently.",
    ),
  };
}

/** The next step when the job cap is reached: wait for one of the running jobs, or kill it. */
export function waitOrKill(id: string): Guide {
  return joinGuide(
    "Wait for one to end (you get a notification), e.g. ",
    step("jobs", { action: "wait", id }),
    ", or stop one you no longer need with ",
    step("jobs", { action: "kill", id }),
    ".",
  );
}

/**
 * What every answer about a job says while its record could not be written (`record.unsaved`):
 * where, the error, what this means for other readers of the state dir, the fix for that errno,
 * and that the next jobs call writes it once the disk allows.
 */
export function unsavedRecordText(record: JobRecord): Guide | undefined {
  const u = record.unsaved;
  if (!u) return undefined;
  const stale = record.status === "running"
    ? "record.json holds an older state of it"
    : "record.json still says it is running, so other anchorfs processes on this state dir do " +
      "not see its end (and once this server exits they will report it lost)";
  const tries = u.attempts === 1 ? "once" : `${u.attempts} times`;
  const since = new Date(u.since).toISOString().slice(11, 19);
  return guide`RECORD NOT SAVED: writing job ${record.id}'s record to ${
    JSON.stringify(u.path)
  } failed ${tries} since ${since} UTC (${u.code}: ${u.message}); ${stale}. ${
    fixFor(u.code)
  }; every jobs call tries the write again, e.g. ${
    step("jobs", { action: "read", id: record.id })
  }.`;
}

/** The fix for a write that failed with `code` (an errno name). */
function fixFor(code: string): string {
  switch (code) {
    case "ENOSPC":
    case "EDQUOT":
      return "Free space on that disk (or raise the quota)";
    case "EACCES":
    case "EPERM":
      return "Make that directory writable for this server's user (fix its permissions, or " +
        "clear an immutable attribute: chattr -i)";
    case "EROFS":
      return "Its file system is mounted read-only: remount it read-write";
    case "STATE_DIR_NOT_ANSWERING":
      return "Its disk did not answer (a hung network mount, a failing device): fix the mount, " +
        "or restart anchorfs with a local --state-dir DIR";
    case "ENOTDIR":
    case "ENOENT":
      return "The job's directory is gone or was replaced by a file: put the directory back";
    default:
      return "Fix what the error names (the disk, the directory's permissions)";
  }
}
