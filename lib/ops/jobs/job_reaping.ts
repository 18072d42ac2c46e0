// Ending a job's processes on this machine: which processes a record names (its cookie, its
// shell's group and session, their descendants, its own cgroups) and the sweep that ends them and
// removes its cgroups. Shared by the lifecycle of this server's jobs and the registry of others'.

import type { ProcessInfo } from "../../core/jobs/job_processes.ts";
import type { JobRecord } from "../../core/jobs/job_state.ts";
import type { ProcessRunner } from "../ports/process_runner.ts";
import { killJobProcesses, type ReapTarget } from "./process_reaper.ts";

export class LocalReaping {
  /** `pid`: this server's, never signalled; `graceMs` between TERM and KILL. */
  constructor(
    readonly runner: ProcessRunner,
    private readonly pid: number,
    private readonly graceMs: number,
  ) {}

  /**
   * The processes of a job: its cookie, its shell's session/group, their descendants, and every
   * process in its cgroups (those of the record that name this job's own).
   */
  targetOf(record: JobRecord): ReapTarget {
    return {
      cgroups: this.cgroupsOf(record),
      ...(record.cookie !== undefined && { cookie: record.cookie }),
      leader: { pid: record.pid, startTicks: record.pidStartTicks },
      exclude: [this.pid],
      ...(record.pidStartTicks !== undefined && { sinceTicks: record.pidStartTicks }),
    };
  }

  /** The record's cgroups this machine may touch (none for a remote job: they are on its host). */
  cgroupsOf(record: JobRecord): string[] {
    if (record.host !== undefined || !record.cgroups) return [];
    return this.runner.acceptedCgroups?.(record.cgroups, record.cookie) ?? [];
  }

  /** TERM, then KILL after the grace, to every process of the job (its cgroups stay). */
  kill(record: JobRecord): Promise<ProcessInfo[]> {
    return killJobProcesses(this.runner, this.targetOf(record), this.graceMs);
  }

  /**
   * Every process of every job server instance `instance` started (their cookies carry it),
   * and the cgroups of its running jobs (`running`): what its shutdown ends.
   */
  serverTarget(instance: string, running: readonly JobRecord[]): ReapTarget {
    const since = this.runner.ownStartTicks();
    return {
      cgroups: running.flatMap((r) => this.cgroupsOf(r)),
      cookiePrefix: `${instance}/`,
      exclude: [this.pid],
      ...(since !== undefined && { sinceTicks: since }),
    };
  }

  /** Ends every process of a local job (see targetOf), then removes its cgroups. */
  async endProcesses(record: JobRecord): Promise<ProcessInfo[]> {
    const killed = await this.kill(record);
    const cgroups = this.cgroupsOf(record);
    if (cgroups.length > 0) await this.runner.removeCgroups?.(cgroups);
    return killed;
  }
}

/** Both lists without repeats, in start order. */
export function mergeProcesses(a: ProcessInfo[], b: ProcessInfo[]): ProcessInfo[] {
  const all = new Map<string, ProcessInfo>();
  for (const p of [...a, ...b]) all.set(`${p.pid}:${p.startTicks}`, p);
  return [...all.values()].sort((x, y) => x.startTicks - y.startTicks || x.pid - y.pid);
}
