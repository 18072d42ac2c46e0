// Job records and their state transitions: running → one terminal state, exactly once. Pure: the
// caller passes the clock and persists the result. A job that was cut off (killed, server shut
// down, output capped, lost) never reads as a success.

import { plural } from "../plural.ts";

type JobStatus =
  | "running"
  /** Exited 0 with all output captured. */
  | "succeeded"
  /** Exited non-zero, or died of a signal nobody here sent. */
  | "failed"
  /** Killed on request (`jobs kill`, `anchorfs jobs kill`). */
  | "killed"
  /** Terminated because the server that ran it shut down. */
  | "interrupted"
  /** Exited 0 but its output passed the log cap, so part of it was dropped. */
  | "output_capped"
  /** Its server died without recording an end; found at a later start-up. */
  | "lost";

export interface JobRecord {
  version: 1;
  /** `<server pid>-<n>`. */
  id: string;
  command: string;
  cwd: string;
  /**
   * `<server instance>/<id>`, in the ANCHORFS_JOB environment variable of every process the job
   * starts: how its processes are found after they leave its process group or session. Absent
   * in records written before cookies existed.
   */
  cookie?: string;
  /** Pid of the shell, which leads the job's own process group (pgid = pid). */
  pid: number;
  /**
   * For a job on an ssh host (`cwd` is then an ssh:// URL): `user@host:port`. `pid` is the
   * remote group's leader.
   */
  host?: string;
  /** The shell's start time in clock ticks since boot (Linux), to prove a pid is still ours. */
  pidStartTicks?: number;
  /**
   * The job's cgroups on its machine (absolute directories), where it has them: every process
   * in them is the job's, whatever it did to its environment, session or parentage.
   */
  cgroups?: string[];
  /**
   * How its processes are held (`cgroup v2 (writable subtree)`, `process tree`, …), and why it
   * got less than its server's containment when it did (`process tree (…)`).
   */
  containment?: string;
  serverPid: number;
  serverStartTicks?: number;
  /** Epoch milliseconds. */
  startedAt: number;
  status: JobStatus;
  exitCode?: number;
  signal?: string;
  endedAt?: number;
  /** Bytes the command wrote in total (kept + dropped). */
  outputBytes?: number;
  /** Bytes dropped from the log because it passed the cap. */
  droppedBytes: number;
  logCapBytes: number;
  /** One sentence on why it ended, for a reader. */
  endReason?: string;
  /**
   * Never on disk: set only in the memory of the server that runs (or ran) the job, while the
   * record could not be written (after retries), so record.json still holds an older state.
   * Cleared once a write lands.
   */
  unsaved?: RecordUnsaved;
}

/** Why a job's record is not on disk: where it was to go and what the write hit. */
export interface RecordUnsaved {
  /** Where the record was to be written (its record.json, or the store's root). */
  path: string;
  /** The errno name (EACCES, ENOSPC, EROFS, ...), or the error's name when it has none. */
  code: string;
  /** The error's own message. */
  message: string;
  /** Writes tried so far. */
  attempts: number;
  /** When the first of them failed (epoch milliseconds). */
  since: number;
}

/** What is known when a job starts: the record's identity fields, before any outcome. */
type JobStart = Pick<
  JobRecord,
  | "id"
  | "command"
  | "cwd"
  | "cookie"
  | "pid"
  | "host"
  | "pidStartTicks"
  | "cgroups"
  | "containment"
  | "serverPid"
  | "serverStartTicks"
  | "startedAt"
  | "logCapBytes"
>;

/** What ended the process, as observed by the server that ran it. */
export interface JobExit {
  exitCode: number | null;
  signal: string | null;
  /** Why it ended: on its own, a kill request, or the server shutting down. */
  cause: "exit" | "killed" | "shutdown";
  outputBytes: number;
  droppedBytes: number;
  endedAt: number;
  /** After a normal exit: the processes it left running, which were terminated (described). */
  leftovers?: string;
  /** More about the end, appended to the end reason (e.g. a remote job's output held open). */
  note?: string;
}

export function isTerminal(status: JobStatus): boolean {
  return status !== "running";
}

export function startRecord(start: JobStart): JobRecord {
  return { version: 1, ...start, status: "running", droppedBytes: 0 };
}

// Exported for tests.
/** The status an exit maps to; a cut-off job is never "succeeded". */
export function statusForExit(exit: Omit<JobExit, "endedAt" | "outputBytes">): JobStatus {
  if (exit.cause === "killed") return "killed";
  if (exit.cause === "shutdown") return "interrupted";
  if (exit.exitCode !== 0 || exit.signal !== null) return "failed";
  return exit.droppedBytes > 0 ? "output_capped" : "succeeded";
}

type Transition = { changed: true; record: JobRecord } | {
  changed: false;
  record: JobRecord;
};

/** Records the end of a running job. A job that already ended keeps its first terminal record. */
export function finishRecord(record: JobRecord, exit: JobExit): Transition {
  if (isTerminal(record.status)) return { changed: false, record };
  const status = statusForExit(exit);
  const next: JobRecord = {
    ...record,
    status,
    endedAt: exit.endedAt,
    outputBytes: exit.outputBytes,
    droppedBytes: exit.droppedBytes,
  };
  if (exit.exitCode !== null) next.exitCode = exit.exitCode;
  if (exit.signal !== null) next.signal = exit.signal;
  next.endReason = endReasonFor(status, exit) +
    (exit.leftovers ? `; it left ${exit.leftovers} running, which were terminated` : "") +
    (exit.note ? `; ${exit.note}` : "");
  return { changed: true, record: next };
}

/** Marks a running record whose server died as lost. */
export function loseRecord(record: JobRecord, now: number, why: string): Transition {
  if (isTerminal(record.status)) return { changed: false, record };
  return {
    changed: true,
    record: { ...record, status: "lost", endedAt: now, endReason: why },
  };
}

/**
 * Whether a finished record's endReason says more than its status does: not when it is only the
 * exit code or signal the status line already shows ("exited with code 0"); yes for what the
 * command left running, a lost job's why, and the like.
 */
export function endReasonAddsToStatus(record: JobRecord): boolean {
  if (record.endReason === undefined) return false;
  const plain = endReasonFor(record.status, {
    exitCode: record.exitCode ?? null,
    signal: record.signal ?? null,
    droppedBytes: record.droppedBytes,
  });
  return record.endReason !== plain;
}

function endReasonFor(
  status: JobStatus,
  exit: Pick<JobExit, "exitCode" | "signal" | "droppedBytes">,
): string {
  const how = exit.signal !== null ? `signal ${exit.signal}` : `exit code ${exit.exitCode}`;
  switch (status) {
    case "succeeded":
      return "exited with code 0";
    case "failed":
      return `failed with ${how}`;
    case "killed":
      return `killed on request (${how})`;
    case "interrupted":
      return `terminated because the anchorfs server shut down (${how})`;
    case "output_capped":
      return `exited with code 0, but its output passed the log cap (${
        plural(exit.droppedBytes, "byte")
      } dropped), so the output is incomplete`;
    default:
      return how;
  }
}

/** Milliseconds from start to end (or to `now` while running). */
export function durationMs(record: JobRecord, now: number): number {
  return Math.max(0, (record.endedAt ?? now) - record.startedAt);
}

/**
 * Exit code a CLI `wait` reports: the job's own, 128+n for signals (killed and interrupted jobs
 * too, like a shell), 1 for capped (exit 0 but incomplete) and lost (unknown) jobs.
 */
export function cliExitCodeFor(record: JobRecord): number {
  if (record.status === "succeeded") return 0;
  if (record.exitCode !== undefined && record.exitCode !== 0) return record.exitCode;
  if (record.signal !== undefined) return 128 + (SIGNAL_NUMBERS[record.signal] ?? 0);
  return 1;
}

const SIGNAL_NUMBERS: Record<string, number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGABRT: 6,
  SIGKILL: 9,
  SIGSEGV: 11,
  SIGPIPE: 13,
  SIGALRM: 14,
  SIGTERM: 15,
};
