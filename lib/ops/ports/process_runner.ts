// What the job manager and the reaper need from the local machine to run and end processes:
// spawn a job, read the process table, signal, and (where the machine has them) cgroups.
// lib/backends/local/process_runner.ts supplies it; interfaces only.

import type { ProcessInfo } from "../../core/jobs/job_processes.ts";
import type { JobLog } from "./job_store.ts";

/** The signals the reaper sends. */
export type JobSignal = "SIGTERM" | "SIGKILL" | "SIGCONT";

/** What the reaper needs from the machine (the local process runner supplies it). */
export interface ProcessControl {
  /** The process table; with `sinceTicks`, only processes started no earlier. */
  listProcesses(sinceTicks?: number): ProcessInfo[];
  /** Signals the process if it is still the one with this start time; false otherwise. */
  signalProcess(pid: number, startTicks: number, signal: JobSignal): boolean;
  /** Live processes in these cgroups and their sub-groups (where the machine has cgroups). */
  cgroupMembers?(cgroups: readonly string[]): ProcessInfo[];
  /**
   * SIGKILL to every process in these cgroups at once (v2 `cgroup.kill`; v1 frozen first), so
   * a fork loop cannot outrun the kill.
   */
  killCgroups?(cgroups: readonly string[]): void;
}

/** What the manager needs from the machine; lib/backends/local/process_runner.ts supplies it. */
export interface ProcessRunner extends ProcessControl {
  /** Starts the command with JOB_COOKIE_VAR carrying `cookie` (after any inherited value). */
  spawn(request: {
    command: string;
    cwd: string;
    logPath: string;
    /** The job's capped log, for a runner that writes the job's output pipe into it. */
    log: JobLog;
    scriptPath: string;
    cookie: string;
  }): Promise<{
    pid: number;
    startTicks: number | undefined;
    exited: Promise<{ exitCode: number | null; signal: string | null }>;
    /**
     * The output pipe the runner writes into the log: `settle` drains it until every writer is
     * gone (true) or it goes quiet (false: something outside the job holds it), `close` stops
     * reading so nothing more reaches the log.
     */
    output?: { settle(): Promise<boolean>; close(): void };
    /** How the job is contained (its cgroups, where it has them). */
    containment?: { label: string; cgroups: string[]; note?: string };
  }>;
  processIsSame(pid: number, startTicks: number | undefined): boolean;
  ownStartTicks(): number | undefined;
  /** The directory with every symlink resolved (rejects if it does not exist). */
  realDirectory(path: string): Promise<string>;
  /** Whether paths on this platform compare without case (the duplicate guard folds case). */
  caseInsensitivePaths: boolean;
  /** The cgroups of a record this machine may touch (the job's own, under a cgroup mount). */
  acceptedCgroups?(cgroups: readonly string[] | undefined, cookie: string | undefined): string[];
  /** Removes a finished job's cgroups (once empty; waits a moment for killed ones to empty). */
  removeCgroups?(cgroups: readonly string[]): Promise<void>;
  /** What the job's cgroup limits did (forks refused, processes killed for memory), if anything. */
  cgroupLimitEvents?(cgroups: readonly string[]): string | undefined;
  /** The containment new jobs get, as the start-up log says it. */
  containmentLine?(): Promise<string>;
}

/** A started job's process: its pid, start time (where the platform tells) and its end. */
export type SpawnedJob = Awaited<ReturnType<ProcessRunner["spawn"]>>;
