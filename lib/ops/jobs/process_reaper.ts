// Ends every process of a job, found by its cookie, its session/group and its descendants
// (lib/core/jobs/job_processes.ts decides) and, where the job has cgroups, every process in them
// (no process can leave one), including the ones that fork while being killed. Needs only a
// process table, a signal sender and the cgroup operations; it never signals a process it cannot
// prove is ours.

import {
  type JobProcessTarget,
  type ProcessInfo,
  selectJobProcesses,
} from "../../core/jobs/job_processes.ts";
import type { JobSignal, ProcessControl } from "../ports/process_runner.ts";

/** What to end: the job's processes as the table proves them, and its cgroups. */
export type ReapTarget = JobProcessTarget & {
  /** The job's cgroups (already checked to be the job's): every process in them is its. */
  cgroups?: readonly string[];
};

/** The target's live processes: proven by the table, and every member of its cgroups. */
function findTargets(control: ProcessControl, target: ReapTarget): ProcessInfo[] {
  const found = selectJobProcesses(control.listProcesses(target.sinceTicks), target);
  const cgroups = target.cgroups ?? [];
  if (cgroups.length === 0 || !control.cgroupMembers) return found;
  const excluded = new Set(target.exclude ?? []);
  const seen = new Set(found.map((p) => p.pid));
  for (const p of control.cgroupMembers(cgroups)) {
    if (!seen.has(p.pid) && !excluded.has(p.pid) && p.pid > 1) found.push(p);
  }
  return found;
}

/** The KILL of a round: the cgroups at once, then each process found (those outside too). */
function killRound(control: ProcessControl, target: ReapTarget): void {
  if (target.cgroups && target.cgroups.length > 0) control.killCgroups?.(target.cgroups);
}

/** KILL rounds after the grace: each catches children forked since the previous round. */
const KILL_ROUNDS = 40;

/**
 * TERM (and CONT, so stopped ones see it) to every process of the target, TERM to newcomers
 * while waiting up to `graceMs` for them to go, then KILL rounds until none is left. Returns the
 * processes it signalled, in start order. Resolves at once when nothing matches.
 */
export async function killJobProcesses(
  control: ProcessControl,
  target: ReapTarget,
  graceMs: number,
): Promise<ProcessInfo[]> {
  const signalled = new Map<number, ProcessInfo>();
  const find = () => findTargets(control, target);
  const send = (processes: ProcessInfo[], signal: JobSignal) => {
    for (const p of processes) {
      if (control.signalProcess(p.pid, p.startTicks, signal) && !signalled.has(p.pid)) {
        signalled.set(p.pid, p);
      }
      if (signal === "SIGTERM") control.signalProcess(p.pid, p.startTicks, "SIGCONT");
    }
  };
  let found = find();
  if (found.length === 0) return [];
  send(found, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, Math.min(50, Math.max(1, deadline - Date.now()))));
    found = find();
    if (found.length === 0) return ordered(signalled);
    send(found.filter((p) => !signalled.has(p.pid)), "SIGTERM");
  }
  for (let round = 0; round < KILL_ROUNDS && found.length > 0; round++) {
    send(found, "SIGKILL");
    killRound(control, target);
    await new Promise((r) => setTimeout(r, round < 5 ? 10 : 50));
    found = find();
  }
  return ordered(signalled);
}

/**
 * Synchronous KILL rounds for exit paths that cannot wait (no grace): stops when a round finds
 * no process it has not signalled already.
 */
export function killJobProcessesNow(
  control: ProcessControl,
  target: ReapTarget,
): ProcessInfo[] {
  const signalled = new Map<number, ProcessInfo>();
  for (let round = 0; round < 10; round++) {
    const fresh = findTargets(control, target).filter((p) => !signalled.has(p.pid));
    if (fresh.length === 0) break;
    killRound(control, target);
    for (const p of fresh) {
      if (control.signalProcess(p.pid, p.startTicks, "SIGKILL")) signalled.set(p.pid, p);
    }
  }
  return ordered(signalled);
}

function ordered(signalled: Map<number, ProcessInfo>): ProcessInfo[] {
  return [...signalled.values()].sort((a, b) => a.startTicks - b.startTicks || a.pid - b.pid);
}
