// What the job manager needs to run a job on another host (an ssh:// working directory): start
// it with the job's cookie, stream its output into the local log, learn its end, kill its tree.
// lib/backends/ssh implements it over the pooled connection; a Host that runs commands offers it
// as `jobs` (lib/ops/ports/host.ts), and another server's job is reached through Hosts.

import type { JobLog } from "./job_store.ts";

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
