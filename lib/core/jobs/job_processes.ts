// Which processes belong to a job, decided from one snapshot of the process table. Pure: the
// backend reads /proc, this module only judges. A process is ours only with proof: it carries
// the job's cookie, descends from one that does, or is in the job shell's own session/group.

import { plural } from "../plural.ts";

/**
 * The environment variable every job process inherits: `<server instance>/<job id>`, appended
 * (comma-separated) to the value the server itself inherited, so jobs of an anchorfs running
 * inside another job are still found by the outer one. Survives `setsid`, double forks, `nohup`.
 */
export const JOB_COOKIE_VAR = "ANCHORFS_JOB";

/** One row of the process table. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgrp: number;
  sid: number;
  /** Start time in clock ticks since boot: with the pid, it names one process (pids recycle). */
  startTicks: number;
  /** Kernel state letter (`R`, `S`, `Z` for a zombie, ...). */
  state: string;
  /** Short executable name (`comm`). */
  name: string;
  /** Value of JOB_COOKIE_VAR in its environment; undefined when absent or unreadable. */
  cookie?: string;
}

/**
 * A process signalled on a remote host as a table row (its group is the job's `pgid`; no start
 * time is known here). Pure, so the ssh backend and the registry both map with it.
 */
export function remoteRow(pgid: number): (p: { pid: number; name: string }) => ProcessInfo {
  return (p) => ({
    pid: p.pid,
    name: p.name,
    ppid: 0,
    pgrp: pgid,
    sid: pgid,
    startTicks: 0,
    state: "?",
  });
}

/** What to look for. At least one of cookie, cookiePrefix, leader. */
export interface JobProcessTarget {
  /** One job's cookie (`<instance>/<job id>`). */
  cookie?: string;
  /** Every job of one server: `<instance>/`. */
  cookiePrefix?: string;
  /**
   * The job's shell, which leads its own session and process group. Members that started no
   * earlier than it are its descendants: Linux does not reuse a pid while a group or session
   * still names it.
   */
  leader?: { pid: number; startTicks: number | undefined };
  /** Never selected (the process doing the selecting). */
  exclude?: readonly number[];
  /**
   * No process of the target started before this (the job's shell, or the server for all its
   * jobs): lets the process table skip older processes. A hint only; selection does not use it.
   */
  sinceTicks?: number;
}

export function jobCookie(instance: string, jobId: string): string {
  return `${instance}/${jobId}`;
}

/** The value a job's processes get: the inherited chain plus this job's cookie. */
export function cookieValue(inherited: string | undefined, cookie: string): string {
  return inherited ? `${inherited},${cookie}` : cookie;
}

// Exported for tests.
/** The cookies in a (possibly chained) JOB_COOKIE_VAR value. */
export function cookiesIn(value: string | undefined): string[] {
  return value ? value.split(",").filter((c) => c !== "") : [];
}

function isAlive(p: ProcessInfo): boolean {
  return p.state !== "Z" && p.state !== "X";
}

function carries(p: ProcessInfo, target: JobProcessTarget): boolean {
  const cookies = cookiesIn(p.cookie);
  if (target.cookie !== undefined && cookies.includes(target.cookie)) return true;
  const prefix = target.cookiePrefix;
  return prefix !== undefined && prefix !== "" && cookies.some((c) => c.startsWith(prefix));
}

function inLeaderTree(p: ProcessInfo, leader: JobProcessTarget["leader"]): boolean {
  // Without a start time (no /proc) membership proves nothing: the pid may be another's now.
  if (!leader || leader.startTicks === undefined) return false;
  if (p.pid === leader.pid) return p.startTicks === leader.startTicks;
  return (p.sid === leader.pid || p.pgrp === leader.pid) && p.startTicks >= leader.startTicks;
}

/**
 * Whether the session/group named by the leader's pid is still the job's: the leader itself
 * is alive, or a process with the job's cookie is in it. Once the leader and every member are
 * gone its pid may name a stranger's new session, whose members all started later. A record
 * without a cookie (written by an older server) has only the start-time proof.
 */
function leaderTreeAnchored(live: readonly ProcessInfo[], target: JobProcessTarget): boolean {
  const leader = target.leader;
  if (!leader || leader.startTicks === undefined) return false;
  if (target.cookie === undefined && target.cookiePrefix === undefined) return true;
  return live.some((p) =>
    (p.pid === leader.pid && p.startTicks === leader.startTicks) ||
    ((p.sid === leader.pid || p.pgrp === leader.pid) && carries(p, target))
  );
}

/**
 * The live processes of the job, parents before children where the table allows: those with
 * the cookie, the leader's session/group members, and every descendant of either (a child that
 * cleared its environment is still found through its parent).
 */
export function selectJobProcesses(
  table: readonly ProcessInfo[],
  target: JobProcessTarget,
): ProcessInfo[] {
  const excluded = new Set(target.exclude ?? []);
  const live = table.filter((p) => isAlive(p) && !excluded.has(p.pid) && p.pid > 1);
  const anchored = leaderTreeAnchored(live, target);
  const chosen = new Map<number, ProcessInfo>();
  for (const p of live) {
    if (carries(p, target) || (anchored && inLeaderTree(p, target.leader))) chosen.set(p.pid, p);
  }
  const children = new Map<number, ProcessInfo[]>();
  for (const p of live) {
    const list = children.get(p.ppid);
    if (list) list.push(p);
    else children.set(p.ppid, [p]);
  }
  // A live ppid names the live parent, so a child that started after it is its descendant.
  const queue = [...chosen.values()];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const child of children.get(parent.pid) ?? []) {
      if (chosen.has(child.pid) || child.startTicks < parent.startTicks) continue;
      chosen.set(child.pid, child);
      queue.push(child);
    }
  }
  return [...chosen.values()].sort((a, b) => a.startTicks - b.startTicks || a.pid - b.pid);
}

/** Every distinct cookie carried by a live process in the table. */
export function cookiesInTable(table: readonly ProcessInfo[]): Set<string> {
  const found = new Set<string>();
  for (const p of table) {
    if (isAlive(p)) { for (const c of cookiesIn(p.cookie)) found.add(c); }
  }
  return found;
}

/**
 * "3 processes (bash 1234, sleep 1240, sh 1250)"; past `max` names, "… and 4 more".
 *
 * @example
 * ```ts
 * describeProcesses([{ pid: 7, name: "sleep" }]); // "1 process (sleep 7)"
 * ```
 */
export function describeProcesses(
  processes: readonly Pick<ProcessInfo, "pid" | "name">[],
  max = 8,
): string {
  const names = processes.slice(0, max).map((p) => `${p.name} ${p.pid}`);
  if (processes.length > max) names.push(`… and ${processes.length - max} more`);
  const count = plural(processes.length, "process", "processes");
  return names.length === 0 ? count : `${count} (${names.join(", ")})`;
}
