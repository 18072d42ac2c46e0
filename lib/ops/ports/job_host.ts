// Where a host's jobs run, as the job manager starts, kills and ends them (JobHost: this machine
// through the process runner and the reaper, lib/ops/jobs/job_places.ts; an ssh host through its
// connection, lib/backends/ssh/ssh_jobs.ts), and the wire an ssh host's jobs run over
// (RemoteJobHost). A Host that runs commands offers its JobHost as `jobs` (./host.ts).

import type { ProcessInfo } from "../../core/jobs/job_processes.ts";
import type { JobRecord } from "../../core/jobs/job_state.ts";
import type { JobLog } from "./job_store.ts";
import type { SpawnedJob } from "./process_runner.ts";

/** How a job's process ended, as its host saw it (a remote one also says what it swept). */
export type JobEnd =
  & { exitCode: number | null; signal: string | null }
  & Partial<
    Pick<RemoteJobExit, "lost" | "leftovers" | "heldOpen" | "containment">
  >;

/** A started job, wherever it runs: what the lifecycle asks of it. */
export interface JobRun {
  pid: number;
  /** Its start time where the platform tells (locally). */
  startTicks?: number;
  /** The host it runs on, for its record (`user@host:port`); undefined on this machine. */
  host?: string;
  /** How it is contained (its cgroups, where it has them). */
  containment?: SpawnedJob["containment"];
  exited: Promise<JobEnd>;
  /** The output pipe the runner writes into the log (a local job on Linux or macOS). */
  output?: SpawnedJob["output"];
  /** A kill's sweep while it runs: the processes signalled (none when its host is unreachable). */
  kill(record: JobRecord): Promise<ProcessInfo[]>;
  /** What its cgroup limits did, read at its end before the sweep removes them. */
  limitEvents(record: JobRecord): string | undefined;
  /** The end's sweep: what its shell left running, terminated. */
  sweepEnd(record: JobRecord, end: JobEnd): Promise<ProcessInfo[]>;
  /**
   * An end that was not observed (a dropped connection): stops what may still run there; throws
   * when the host cannot be reached.
   */
  stopLost(): Promise<ProcessInfo[]>;
  /** Stops a job whose record could not be written (an untracked job must not run). */
  abort(record: JobRecord): Promise<void>;
  /** At shutdown, besides the sweep of this server's cookies (which sees only this machine). */
  shutdown(): Promise<unknown>;
}

/** The directory of a job on its host: its path there, and how it is shown (the record's cwd). */
export interface JobHostDir {
  path: string;
  /** The plain path on this machine, the ssh:// URL on an ssh host. */
  url: string;
}

/** What a job start hands its host. */
export interface JobStart {
  command: string;
  dir: JobHostDir;
  id: string;
  cookie: string;
  log: JobLog;
  /** Grace between TERM and KILL for its processes (the manager's). */
  graceMs: number;
}

/** Where a host's jobs start: their duplicate key there, and the start itself. */
export interface JobHost {
  /** `user@host:port` of an ssh host (a remote record's `host`); undefined for this machine. */
  readonly description?: string;
  /** The key of the duplicate guard: the command and its directory as that host compares them. */
  key(command: string, dir: JobHostDir): Promise<string>;
  startJob(request: JobStart): Promise<JobRun>;
  /**
   * Ends another server's job there over this host's own connection (see RemoteJobHost); absent
   * for this machine, whose other jobs the job manager's reaper ends.
   */
  stopJob?(job: RemoteJobRef, graceMs: number): Promise<RemoteProcessInfo[]>;
}

/** One process signalled on the remote host (for "terminated N processes (…)"). */
export interface RemoteProcessInfo {
  pid: number;
  name: string;
}

export interface RemoteJobExit {
  exitCode: number | null;
  signal: string | null;
  /** Set when the end was not observed: the connection dropped (the reason, for the record). */
  lost?: string;
  /**
   * What the command left running, already terminated on the host when it ended (undefined
   * when that could not be done there: the manager then kills them itself).
   */
  leftovers?: RemoteProcessInfo[];
  /**
   * The job's shell ended, but its output stayed open on the host (a process the sweep could
   * not recognise as the job's holds it: see the documented limit); the job ended anyway and
   * that process was left running there.
   */
  heldOpen?: boolean;
  /** How its processes were held on the host (`cgroup v2 on the host (…)`, `process tree …`). */
  containment?: string;
}

export interface RemoteJobRequest {
  command: string;
  /** The directory on the remote host. */
  dir: string;
  /**
   * The job's log in the store: output is appended as it arrives (the cap cuts it like any
   * log); an append that throws means the job was removed (drop the bytes, keep running).
   */
  log: Pick<JobLog, "append">;
  /** The job's cookie, exported as ANCHORFS_JOB on the remote side. */
  cookie: string;
  /** Job id, for the remote pid file's name. */
  id: string;
  /** Grace between TERM and KILL for what the command leaves running (default 2 s). */
  graceMs?: number;
}

export interface RemoteJob {
  /** The remote process group (the job's shell leads its own session there). */
  pid: number;
  exited: Promise<RemoteJobExit>;
  /**
   * TERM to the remote group and every process with the cookie, KILL after `graceMs`; resolves
   * with what was signalled. Throws when the host cannot be reached.
   */
  kill(graceMs: number): Promise<RemoteProcessInfo[]>;
}

/** A job on the host as its record names it (for a server that did not start it). */
export interface RemoteJobRef {
  id: string;
  /** The remote group leader (the record's pid). */
  pid: number;
  cookie: string;
}

export interface RemoteJobHost {
  /** `user@host:port`, for messages (and to check a record names this host). */
  readonly description: string;
  startJob(request: RemoteJobRequest): Promise<RemoteJob>;
  /**
   * Ends a job started by another server (alive or dead) over this host's connection: TERM to
   * every process carrying its cookie, and to its group while the job's pid file still names
   * that group (a pid alone may have been reused); KILL after `graceMs`. Resolves with what was
   * signalled; throws when the host cannot be reached.
   */
  stopJob(job: RemoteJobRef, graceMs: number): Promise<RemoteProcessInfo[]>;
}
