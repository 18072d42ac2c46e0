// Where a job of this server runs: this machine (through the process runner and the reaper) or
// an ssh host (through its job host). The lifecycle starts, kills and ends every job through a
// JobRun the same way; what differs between the two places lives here, and only here.

import { commandKey } from "../../core/jobs/command_key.ts";
import type { ProcessInfo } from "../../core/jobs/job_processes.ts";
import type { JobRecord } from "../../core/jobs/job_state.ts";
import type { RemoteJobExit, RemoteJobHost } from "../ports/job_host.ts";
import type { JobLog, JobStore } from "../ports/job_store.ts";
import type { SpawnedJob } from "../ports/process_runner.ts";
import { type LocalReaping, remoteRow } from "./job_reaping.ts";
import { realDirectory } from "./job_registry.ts";

/** How a job's process ended, as its place saw it (a remote one also says what it swept). */
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

/** Where a job starts: its duplicate key there, and the start itself. */
export interface JobPlace {
  /** The key of the duplicate guard: the command and its directory as that place compares them. */
  key(command: string, cwd: string): Promise<string>;
  start(
    request: { command: string; cwd: string; id: string; cookie: string; log: JobLog },
  ): Promise<
    JobRun
  >;
}

/** This machine: the runner spawns, the reaper ends (by cookie, group, session and cgroup). */
export function localPlace(reaping: LocalReaping, store: JobStore): JobPlace {
  const runner = reaping.runner;
  return {
    key: async (command, cwd) =>
      commandKey(command, await realDirectory(runner, cwd), runner.caseInsensitivePaths),
    async start({ command, cwd, id, cookie, log }) {
      const files = store.localFiles(id);
      if (!files) {
        throw new Error(`the job store (${store.root}) keeps no log file on this machine`);
      }
      const spawned = await runner.spawn({
        command,
        cwd,
        logPath: files.log,
        log,
        scriptPath: files.script,
        cookie,
      });
      return {
        pid: spawned.pid,
        ...(spawned.startTicks !== undefined && { startTicks: spawned.startTicks }),
        ...(spawned.containment && { containment: spawned.containment }),
        exited: spawned.exited,
        ...(spawned.output && { output: spawned.output }),
        kill: (record) => reaping.kill(record),
        limitEvents: (record) => runner.cgroupLimitEvents?.(reaping.cgroupsOf(record)),
        sweepEnd: (record) => reaping.endProcesses(record),
        // A local job's end is always observed.
        stopLost: () => Promise.resolve([]),
        abort: async (record) => void await reaping.endProcesses(record),
        // The sweep of this server's cookies and cgroups ends it.
        shutdown: () => Promise.resolve(),
      };
    },
  };
}

/** An ssh host: its job host starts the job there, streams its output and ends its tree. */
export function remotePlace(host: RemoteJobHost, dir: string, graceMs: number): JobPlace {
  return {
    // The ssh:// directory as written: its real path is the host's to resolve.
    key: (command, cwd) => Promise.resolve(commandKey(command, cwd, false)),
    async start({ command, id, cookie, log }) {
      const job = await host.startJob({ command, dir, log, cookie, id, graceMs });
      const rows = remoteRow(job.pid);
      /** Ends the processes of the job; none when the host cannot be reached. */
      const kill = async () => {
        try {
          return (await job.kill(graceMs)).map(rows);
        } catch {
          return [];
        }
      };
      return {
        pid: job.pid,
        host: host.description,
        exited: job.exited,
        kill,
        limitEvents: () => undefined,
        // Its wrapper on the host swept what it left when it could; else it is done from here.
        sweepEnd: async (_record, end) => end.leftovers?.map(rows) ?? await kill(),
        stopLost: async () => (await job.kill(graceMs)).map(rows),
        abort: async () => void await job.kill(graceMs).catch(() => []),
        shutdown: kill,
      };
    },
  };
}

/** The record fields of a job's containment: its cgroups, and how it is held (and why less). */
export function containmentFields(
  c: { label: string; cgroups: string[]; note?: string } | undefined,
): Partial<JobRecord> {
  if (!c) return {};
  return {
    ...(c.cgroups.length > 0 && { cgroups: c.cgroups }),
    containment: c.note === undefined ? c.label : `${c.label} (${c.note})`,
  };
}
