// Ends every process of a job, found by its cookie, its session/group and its descendants
// (lib/core/jobs/job_processes.ts decides), including the ones that fork while being killed. Needs
// only a process table and a signal sender; it never signals a process it cannot prove is ours.

import {
  type JobProcessTarget,
  type ProcessInfo,
  selectJobProcesses,
} from "../../core/jobs/job_processes.ts";

/** The signals the reaper sends. */
export type JobSignal = "SIGTERM" | "SIGKILL" | "SIGCONT";

/** What the reaper needs from the machine (the local process runner supplies it). */
export interface ProcessControl {
  /** The process table; with `sinceTicks`, only processes started no earlier. */
  listProcesses(sinceTicks?: number): ProcessInfo[];
  /** Signals the process if it is still the one with this start time; false otherwise. */
  signalProcess(pid: number, startTicks: number, signal: JobSignal): boolean;
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
  target: JobProcessTarget,
  graceMs: number,
): Promise<ProcessInfo[]> {
  const signalled = new Map<number, ProcessInfo>();
  const find = () => selectJobProcesses(control.listProcesses(target.sinceTicks), target);
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
  target: JobProcessTarget,
): ProcessInfo[] {
  const signalled = new Map<number, ProcessInfo>();
  for (let round = 0; round < 10; round++) {
    const fresh = selectJobProcesses(control.listProcesses(target.sinceTicks), target)
      .filter((p) => !signalled.has(p.pid));
    if (fresh.length === 0) break;
    for (const p of fresh) {
      if (control.signalProcess(p.pid, p.startTicks, "SIGKILL")) signalled.set(p.pid, p);
    }
  }
  return ordered(signalled);
}

function ordered(signalled: Map<number, ProcessInfo>): ProcessInfo[] {
  return [...signalled.values()].sort((a, b) => a.startTicks - b.startTicks || a.pid - b.pid);
}
