// Runs job commands on this machine with the shell the platform layer chooses (lib/core/platform/platform.ts:
// `bash -c` in its own process group on Linux/macOS, `cmd.exe /d /s /c` on Windows, `--shell`),
// stdin closed. On Linux and macOS the output goes to a pipe the server writes into the log
// (./job_spawn.ts, ./log_pump.ts) and, on Linux, the job lives in cgroups of its own where the
// machine allows (./cgroup.ts); on Windows the child writes straight into the log file. Kills
// whole trees. Also the probes that prove a pid is ours: the process table with each process's
// job cookie (/proc here; `ps` on macOS, Win32_Process on Windows, see
// ../platform/foreign_process_table.ts), judged by lib/core/jobs/job_processes.ts.

import { spawn } from "node:child_process";
import fs from "node:fs";
import process from "node:process";
import type { ProcessRunner } from "../../ops/ports/process_runner.ts";
import { cookieValue, JOB_COOKIE_VAR, type ProcessInfo } from "../../core/jobs/job_processes.ts";
import {
  killPlan,
  maxInlineCommandBytes,
  type PlatformDescription,
  scriptExtension,
  type ShellChoice,
  shellInvocation,
} from "../../core/platform/platform.ts";
import { currentPlatform } from "../platform/current_platform.ts";
import type { JobLog } from "../../ops/ports/job_store.ts";
import { CONTAINMENT_VAR, type JobLimits } from "../../core/jobs/containment.ts";
import { splitJobCookie } from "../../core/jobs/cgroup_paths.ts";
import { CgroupHost, type CgroupHostOptions, type JobCgroupSetup } from "./cgroup.ts";
import { type PipedJob, spawnPiped } from "./job_spawn.ts";
import {
  killWindowsTree,
  readPsTable,
  readWindowsTable,
} from "../platform/foreign_process_table.ts";

/** Non-interactive defaults: nothing may wait for a keypress or a terminal. */
export const NON_INTERACTIVE_ENV: Readonly<Record<string, string>> = {
  PAGER: "cat",
  GIT_PAGER: "cat",
  MANPAGER: "cat",
  SYSTEMD_PAGER: "",
  GIT_TERMINAL_PROMPT: "0",
  GIT_EDITOR: "true",
  EDITOR: "true",
  VISUAL: "true",
  DEBIAN_FRONTEND: "noninteractive",
  CI: "1",
  TERM: "dumb",
  NO_COLOR: "1",
  PIP_NO_INPUT: "1",
  npm_config_yes: "true",
};

// Exported for tests.
export interface SpawnRequest {
  command: string;
  cwd: string;
  /**
   * Log file; on Windows the child writes into it (opened for append, so the cap enforcer may
   * truncate it under the running child).
   */
  logPath: string;
  /** The job's capped log, which the server writes the output pipe into (Linux, macOS). */
  log?: JobLog;
  /** Where to put the script when the command line is too long for argv. */
  scriptPath: string;
  /** The job's cookie, put in JOB_COOKIE_VAR after any value this server inherited. */
  cookie?: string;
}

// Exported for tests.
export interface ProcessExit {
  exitCode: number | null;
  signal: string | null;
}

// Exported for tests.
export interface RunningProcess {
  pid: number;
  /** Start time in clock ticks since boot (Linux), undefined elsewhere. */
  startTicks: number | undefined;
  exited: Promise<ProcessExit>;
  /** The output pipe the server reads (absent when the child writes into the log file). */
  output?: { settle(): Promise<boolean>; close(): void };
  /** How the job is contained: its label, its cgroups, and why it has less than asked. */
  containment?: { label: string; cgroups: string[]; note?: string };
}

let bashPath: string | undefined;

/** bash where it usually lives, else `/bin/sh` (POSIX); on Windows `bash` from PATH. */
function findBash(platform: PlatformDescription): ShellChoice {
  if (platform.os === "windows") return { kind: "bash", program: "bash" };
  if (bashPath) return { kind: "bash", program: bashPath };
  for (
    const candidate of [
      "/bin/bash",
      "/usr/bin/bash",
      "/usr/local/bin/bash",
      "/opt/homebrew/bin/bash",
    ]
  ) {
    try {
      if (Deno.statSync(candidate).isFile) return { kind: "bash", program: bashPath = candidate };
    } catch {
      // try the next one
    }
  }
  return { kind: "sh", program: "/bin/sh" };
}

function childEnv(cookie: string | undefined): Record<string, string> {
  const env = { ...Deno.env.toObject(), ...NON_INTERACTIVE_ENV };
  if (cookie !== undefined) env[JOB_COOKIE_VAR] = cookieValue(env[JOB_COOKIE_VAR], cookie);
  return env;
}

/** The shell's program and words for the command (a script file when it is too long). */
async function invocationFor(
  request: SpawnRequest,
  platform: PlatformDescription,
  choice: ShellChoice | undefined,
) {
  const shell = choice ??
    (platform.defaultShell === "bash" ? findBash(platform) : { kind: platform.defaultShell });
  let scriptPath: string | undefined;
  if (new TextEncoder().encode(request.command).length > maxInlineCommandBytes(shell.kind)) {
    scriptPath = request.scriptPath.replace(/\.sh$/, "") + scriptExtension(shell.kind);
    await Deno.writeTextFile(scriptPath, request.command, { mode: 0o600 });
  }
  return shellInvocation(platform, shell, request.command, scriptPath);
}

// Exported for tests.
/**
 * Starts the command writing straight into the log file (Windows, or a caller without a log to
 * pump into); resolves once it has a pid (or throws if it could not start).
 */
export async function spawnShell(
  request: SpawnRequest,
  platform: PlatformDescription = currentPlatform(),
  choice?: ShellChoice,
): Promise<RunningProcess> {
  const how = await invocationFor(request, platform, choice);
  const fd = fs.openSync(request.logPath, "a");
  let child;
  try {
    child = spawn(how.program, how.args, {
      cwd: request.cwd,
      detached: how.detached,
      stdio: ["ignore", fd, fd],
      env: childEnv(request.cookie),
      windowsVerbatimArguments: how.verbatimArguments,
      windowsHide: true,
    });
  } finally {
    fs.closeSync(fd);
  }
  // Read the start time now: the child cannot have been reaped yet (reaping needs the event
  // loop), so its /proc entry exists even if it already exited (a zombie keeps its start time).
  const startTicks = child.pid === undefined ? undefined : startTimeOf(platform, child.pid, true);
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once("exit", (code, signal) => resolve({ exitCode: code, signal: signal ?? null }));
    child.once("error", () => resolve({ exitCode: 127, signal: null }));
  });
  // The job must not keep the server alive; shutdown kills it explicitly.
  child.unref();
  const pid = await new Promise<number | undefined>((resolve) => {
    if (child.pid !== undefined) resolve(child.pid);
    else child.once("error", () => resolve(undefined));
  });
  if (pid === undefined) throw new Error(`could not start ${how.program}`);
  return { pid, startTicks, exited };
}

// Exported for tests.
/**
 * Starts the command on Linux or macOS with its output on a pipe the server writes into the log,
 * in the job's cgroups where the host gives them (else the process tree, and the result says
 * why). Throws if it could not start.
 */
export async function spawnContained(
  request: SpawnRequest & { log: JobLog },
  platform: PlatformDescription,
  choice: ShellChoice | undefined,
  cgroups: CgroupHost,
): Promise<RunningProcess> {
  const how = await invocationFor(request, platform, choice);
  const job = request.cookie === undefined ? undefined : splitJobCookie(request.cookie);
  let setup: JobCgroupSetup = job && platform.os === "linux"
    ? await cgroups.prepare(job.instance, job.id)
    : { kind: "process-tree", label: "process tree", dirs: [], prefix: [] };
  const start = (s: JobCgroupSetup) =>
    spawnPiped({
      program: how.program,
      args: how.args,
      prefix: s.prefix,
      cwd: request.cwd,
      env: childEnv(request.cookie),
      cgroups: s.dirs,
      reportCgroup: s.kind === "cgroup-v2-delegated",
      log: request.log,
      startTimeOf: (pid) => startTimeOf(platform, pid, true),
    });
  let piped: PipedJob;
  try {
    piped = await start(setup);
    if (piped.noReport && setup.prefix.length > 0) {
      // systemd-run refused the scope (its words went to the control pipe): run it plainly.
      piped.output.close();
      setup = { ...setup, kind: "process-tree", label: "process tree", prefix: [] };
      setup.note = "systemd-run could not start its scope";
      piped = await start(setup);
    }
  } catch (e) {
    await cgroups.remove(setup.dirs);
    throw e;
  }
  const containment = await joinedContainment(setup, piped, cgroups);
  return {
    pid: piped.pid,
    startTicks: piped.startTicks,
    exited: piped.exited,
    output: piped.output,
    containment,
  };
}

/** What the job got: its cgroups as joined (a failed join is removed and named). */
async function joinedContainment(
  setup: JobCgroupSetup,
  piped: PipedJob,
  cgroups: CgroupHost,
): Promise<NonNullable<RunningProcess["containment"]>> {
  const notes = setup.note === undefined ? [] : [setup.note];
  let dirs = setup.dirs;
  if (setup.kind === "cgroup-v2-delegated") {
    const dir = piped.cgroup === undefined ? undefined : cgroups.scopeDirectory(piped.cgroup);
    dirs = dir === undefined ? [] : [dir];
    if (dir === undefined) notes.push("its systemd scope could not be found");
  }
  const failed = piped.failedJoins.map((i) => setup.dirs[i]!).filter((d) => d !== undefined);
  if (failed.length > 0) {
    await cgroups.remove(failed);
    notes.push(`it could not be moved into ${failed.join(", ")}`);
    // The ones it joined still hold it (a kill takes them), though not as its containment.
    dirs = dirs.filter((d) => !failed.includes(d));
  }
  const held = dirs.length > 0 && !piped.failedJoins.includes(0);
  const label = held ? setup.label : "process tree";
  return { label, cgroups: dirs, ...(notes.length > 0 && { note: notes.join("; ") }) };
}

/** What proves this pid on the platform (see ProcessProof); zombies only when asked. */
function startTimeOf(
  platform: PlatformDescription,
  pid: number,
  zombieToo = false,
): number | undefined {
  let row: { startTicks: number; state: string } | undefined;
  if (platform.processTable === "proc") row = readProcStat(pid);
  else if (platform.processTable === "ps") row = readPsTable([pid]).find((p) => p.pid === pid);
  else row = readWindowsTable(pid).find((p) => p.pid === pid);
  if (!row || (!zombieToo && row.state === "Z")) return undefined;
  return row.startTicks;
}

interface ProcStat {
  name: string;
  state: string;
  ppid: number;
  pgrp: number;
  sid: number;
  startTicks: number;
}

function readProcStat(pid: number | string): ProcStat | undefined {
  try {
    const text = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // `pid (comm) state ppid pgrp session ...`; comm may hold spaces and parentheses.
    const close = text.lastIndexOf(")");
    const rest = text.slice(close + 2).split(" ");
    return {
      name: text.slice(text.indexOf("(") + 1, close),
      state: rest[0]!,
      ppid: Number(rest[1]),
      pgrp: Number(rest[2]),
      sid: Number(rest[3]),
      startTicks: Number(rest[19]),
    };
  } catch {
    return undefined;
  }
}

const COOKIE_ENTRY = `${JOB_COOKIE_VAR}=`;
const latin1 = new TextDecoder("latin1");

/** The job cookie in a process's initial environment (readable for our own uid or root). */
function readCookie(pid: string): string | undefined {
  let text: string;
  try {
    // One native decode and search: per-byte loops in JS doubled the cost of a table read.
    text = latin1.decode(Deno.readFileSync(`/proc/${pid}/environ`));
  } catch {
    return undefined;
  }
  let at = text.startsWith(COOKIE_ENTRY) ? 0 : text.indexOf(`\0${COOKIE_ENTRY}`) + 1;
  if (at === 0 && !text.startsWith(COOKIE_ENTRY)) return undefined;
  at += COOKIE_ENTRY.length;
  const end = text.indexOf("\0", at);
  return text.slice(at, end === -1 ? text.length : end);
}

// Exported for tests.
/**
 * Every process visible in /proc with its parent, group, session, start time, name and job
 * cookie; with `sinceTicks`, only those started no earlier (a job's processes all start after
 * its shell; skipping the rest saves most environ reads). Empty without /proc (then nothing can
 * be proven ours, and nothing is killed by it).
 */
export function listProcesses(sinceTicks = 0): ProcessInfo[] {
  const table: ProcessInfo[] = [];
  let entries: Iterable<Deno.DirEntry>;
  try {
    entries = Deno.readDirSync("/proc");
  } catch {
    return table;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry.name)) continue;
    const stat = readProcStat(entry.name);
    if (!stat || stat.startTicks < sinceTicks) continue; // gone meanwhile, or older
    const info: ProcessInfo = { pid: Number(entry.name), ...stat };
    if (stat.state !== "Z") {
      const cookie = readCookie(entry.name);
      if (cookie !== undefined) info.cookie = cookie;
    }
    table.push(info);
  }
  return table;
}

/** The process table on any platform (see ProcessTableSource). */
function listProcessesOn(platform: PlatformDescription, sinceTicks = 0): ProcessInfo[] {
  if (platform.processTable === "proc") return listProcesses(sinceTicks);
  const rows = platform.processTable === "ps" ? readPsTable() : readWindowsTable();
  return rows.filter((p) => p.startTicks >= sinceTicks);
}

// Exported for tests.
/**
 * Signals one process if it is still the one seen (same start time): a pid freed and reused
 * since the table was read is left alone. False if it is gone or changed.
 */
export function signalProcess(pid: number, startTicks: number, signal: Deno.Signal): boolean {
  return signalProcessOn(currentPlatform(), pid, startTicks, signal);
}

function signalProcessOn(
  platform: PlatformDescription,
  pid: number,
  startTicks: number,
  signal: Deno.Signal,
): boolean {
  if (startTimeOf(platform, pid) !== startTicks) return false;
  const plan = killPlan(platform, pid);
  if (plan.method === "command") {
    // Windows has no TERM/CONT to send: the first signal ends the tree (taskkill /T /F).
    return signal === "SIGCONT" ? true : killWindowsTree(pid);
  }
  try {
    Deno.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

// Exported for tests.
/** Start time of a live process in clock ticks since boot, or undefined (gone, or not Linux). */
export function processStartTicks(pid: number): number | undefined {
  return startTimeOf(currentPlatform(), pid);
}

// Exported for tests.
/** Whether the process with this pid is alive and is the same process (same start time). */
export function processIsSame(pid: number, startTicks: number | undefined): boolean {
  const now = processStartTicks(pid);
  if (now === undefined) return false;
  return startTicks === undefined || now === startTicks;
}

// Exported for tests.
/** Live (non-zombie) members of a process group that started no earlier than `sinceTicks`. */
export function groupMembers(pgid: number, sinceTicks = 0): number[] {
  const members: number[] = [];
  try {
    for (const entry of Deno.readDirSync("/proc")) {
      if (!/^\d+$/.test(entry.name)) continue;
      const stat = readProcStat(entry.name);
      if (stat && stat.pgrp === pgid && stat.state !== "Z" && stat.startTicks >= sinceTicks) {
        members.push(Number(entry.name));
      }
    }
  } catch {
    // no /proc: cannot prove anything
  }
  return members;
}

// Exported for tests.
/** Whether any non-zombie process is left in the group. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  try {
    Deno.statSync("/proc/self/stat");
  } catch {
    return true; // no /proc to look at zombies; the group exists
  }
  return groupMembers(pgid).length > 0;
}

// Exported for tests.
/** This server's own start time, recorded so a later start-up can tell if it still runs. */
export function ownStartTicks(): number | undefined {
  return processStartTicks(Deno.pid);
}

// Exported for tests.
export interface LocalRunnerOptions {
  /** Default: this machine's. */
  platform?: PlatformDescription;
  /** `--shell`; default: the platform's (bash, else sh; cmd.exe on Windows). */
  shell?: ShellChoice;
  /** `--job-memory`, `--job-pids`: limits per job, where a cgroup can carry them. */
  limits?: JobLimits;
  /** The containment rung to start from; default ANCHORFS_CONTAINMENT, else `auto`. */
  containment?: string;
}

/** The live processes of a job's cgroups as table rows (zombies left out). */
function cgroupRows(cgroups: CgroupHost, dirs: readonly string[]): ProcessInfo[] {
  const rows: ProcessInfo[] = [];
  for (const pid of cgroups.members(dirs)) {
    const stat = readProcStat(pid);
    if (stat && stat.state !== "Z") rows.push({ pid, ...stat });
  }
  return rows;
}

/** The JobManager's process runner for a platform and shell (compose.ts wires it). */
export function createLocalProcessRunner(options: LocalRunnerOptions = {}): ProcessRunner {
  const platform = options.platform ?? currentPlatform();
  const same = (pid: number, startTicks: number | undefined) => {
    const now = startTimeOf(platform, pid);
    if (now === undefined) return false;
    return startTicks === undefined || now === startTicks;
  };
  const hostOptions: CgroupHostOptions = {
    ...(options.limits && { limits: options.limits }),
  };
  const requested = options.containment ?? Deno.env.get(CONTAINMENT_VAR);
  if (requested !== undefined) hostOptions.requested = requested;
  const cgroups = new CgroupHost(hostOptions);
  return {
    spawn: (request) =>
      platform.os !== "windows" && request.log !== undefined
        ? spawnContained({ ...request, log: request.log }, platform, options.shell, cgroups)
        : spawnShell(request, platform, options.shell),
    listProcesses: (since) => listProcessesOn(platform, since),
    signalProcess: (pid, startTicks, signal) => signalProcessOn(platform, pid, startTicks, signal),
    processIsSame: same,
    ownStartTicks: () => startTimeOf(platform, Deno.pid),
    realDirectory: (path) => Deno.realPath(path),
    // Default file systems of macOS and Windows ignore case; Linux ones respect it.
    caseInsensitivePaths: platform.caseInsensitive,
    cgroupMembers: (dirs) => cgroupRows(cgroups, dirs),
    killCgroups: (dirs) => cgroups.kill(dirs),
    acceptedCgroups: (dirs, cookie) => cgroups.accepted(dirs, cookie),
    removeCgroups: (dirs) => cgroups.remove(dirs),
    cgroupLimitEvents: (dirs) => cgroups.limitEvents(dirs),
    containmentLine: async () => (await cgroups.containment()).line,
  };
}

// Exported for tests.
/** This module as the JobManager's process runner: the one wiring that services, tests and
 * benchmarks share. */
export const localProcessRunner: ProcessRunner = createLocalProcessRunner();
