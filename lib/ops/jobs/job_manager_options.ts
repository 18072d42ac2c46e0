// The job manager's API shapes: its options, where a remote job runs, what a kill reports, and
// the events it emits (and their listeners). Kept apart from the lifecycle and the facade
// (job_lifecycle.ts, job_manager.ts) so the registry and the callers read them alone.

import type { ProcessInfo } from "../../core/jobs/job_processes.ts";
import type { JobRecord } from "../../core/jobs/job_state.ts";
import type { Hosts } from "../ports/host.ts";
import type { JobStore } from "../ports/job_store.ts";
import type { RecordWriteOptions } from "./record_writes.ts";

export const DEFAULT_LOG_CAP_BYTES = 1024 ** 3;
export const DEFAULT_MAX_RUNNING = 16;

/**
 * The directory a job runs in: its path on the job's host, and how it is shown (the record's
 * cwd: the plain path locally, the ssh:// URL on an ssh host). A Location fits; a plain string
 * is a path shown as itself.
 */
export type JobDir = string | { path: string; url: string };

export interface JobManagerOptions {
  /** Where records and logs live (lib/backends/local/disk_job_store.ts on a real server). */
  store: JobStore;
  /** This server's pid: job ids start with it, and it is never signalled as a job's process. */
  pid: number;
  /** On-disk log cap per job (default 1 GiB). */
  logCapBytes?: number;
  /** Jobs allowed to run at once (default 16). */
  maxRunning?: number;
  /** Grace between TERM and KILL (default 2 s). */
  killGraceMs?: number;
  /** Finished records kept (default 100) and for how long (default 7 days). */
  keepFinished?: number;
  keepFinishedMs?: number;
  /** Total log bytes of finished jobs kept (default 4 GiB); older logs go first. */
  keepFinishedBytes?: number;
  /** How record writes after the start's are retried before a record counts as unsaved. */
  recordWrites?: RecordWriteOptions;
  /**
   * How long shutdown waits, after its kill sweep, for the jobs' ends and every record write
   * still on its way, all together (default 5 s).
   */
  shutdownWaitMs?: number;
  /** How often a running job's log is checked against the cap (default 100 ms). */
  pollMs?: number;
  /** How long `list` waits for the host of a dead server's remote job (default 3 s). */
  hostProbeMs?: number;
  /**
   * Where the hosts of other servers' remote jobs are found (Locations, over this process's
   * pool); without it such a job cannot be stopped from here.
   */
  hosts?: Hosts;
  /** Clock, for tests. */
  now?: () => number;
}

/** What a kill did: the record now, whether the job was running, the processes signalled. */
export interface KillResult {
  record: JobRecord;
  wasRunning: boolean;
  killed: ProcessInfo[];
}

export type JobEvent = { kind: "start" | "end"; record: JobRecord };
export type JobListener = (event: JobEvent) => void;

/** The listeners of job starts and ends; a broken listener does not stop the others. */
export class JobEvents {
  private readonly listeners = new Set<JobListener>();

  subscribe(listener: JobListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: JobEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch {
        // a broken listener must not stop the others
      }
    }
  }
}
