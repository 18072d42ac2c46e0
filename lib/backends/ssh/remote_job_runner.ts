// Runs a job on an ssh host over the pooled connection: the command runs under `setsid` (its
// own session and process group there) with the job's cookie in ANCHORFS_JOB and a pid file,
// its output streams into the local job log, and a kill takes the remote group plus every
// process carrying the cookie (found through the remote /proc), from this server or from
// another one (stopJob). The job ends when its connection does. Never restarts a job.

import type {
  RemoteJob,
  RemoteJobExit,
  RemoteJobHost,
  RemoteJobRef,
  RemoteJobRequest,
  RemoteProcessInfo,
} from "../../ops/ports/job_host.ts";
import { JOB_COOKIE_VAR } from "../../core/jobs/job_processes.ts";
import { NON_INTERACTIVE_ENV } from "../local/process_runner.ts";
import type { SshLink } from "./ssh_link.ts";
import {
  CGROUP_MARK,
  cgroupFunctions,
  findCgroupLines,
  makeCgroupLines,
  startJobFunction,
} from "./remote_cgroup.ts";
import type { ClientChannel } from "./ssh2_types.d.ts";

/** `'…'` for sh. */
function shQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

const PID_MARK = "anchorfs-job-pid ";
/** Stderr of the wrapper: a process the command left running (then terminated). */
const LEFT_MARK = "anchorfs-job-left ";
/** Stderr of the wrapper: the leftovers were reaped. */
const REAPED_MARK = "anchorfs-job-reaped";

// Exported for tests.
/** The log's first line on a host without bash. */
export const NO_BASH_NOTE =
  "[anchorfs: this host has no bash on its PATH; the command runs with sh instead]";

/** Where the remote side keeps pid files (private to the user). */
const PID_DIR = '"${XDG_RUNTIME_DIR:-${TMPDIR:-/tmp}}/anchorfs-jobs-$(id -u)"';

/**
 * The pid file's name: from the cookie (`<server instance>/<job id>`), so jobs of two machines
 * that happen to share a job id never share a file on one host.
 */
function pidFileName(cookie: string): string {
  return `${cookie.replace(/[^0-9A-Za-z-]/g, "-")}.pid`;
}

/** sh lines setting `$pidfile` (creating its private directory when `create`). */
function pidFileLines(cookie: string, create: boolean): string[] {
  return [
    `piddir=${PID_DIR}`,
    ...(create ? ['mkdir -p "$piddir" 2>/dev/null; chmod 700 "$piddir" 2>/dev/null'] : []),
    `pidfile="$piddir/${pidFileName(cookie)}"`,
  ];
}

/**
 * The wrapper the remote sh runs: cd, start the command with bash (else sh) under setsid in the
 * background with the cookie and non-interactive settings, write the pid file, report the pid on
 * stderr, wait, and exit with the command's status. Its output goes to the channel's stdout.
 *
 * The channel's stdin stays open for as long as the connection (and the anchorfs server that
 * opened it) lives: a watcher reads it, and at EOF ends the job's processes. A job whose server
 * died (kill -9) or whose connection dropped has nowhere to write and nobody to report its end
 * to; the next anchorfs that reads its record records it `lost` (see JobManager.reconcile).
 */
function remoteJobScript(request: RemoteJobRequest): string {
  const env = Object.entries(NON_INTERACTIVE_ENV).map(([k, v]) => `${k}=${shQuote(v)}`).join(" ");
  const lines = [
    `cd -- ${shQuote(request.dir)} 2>&1 || exit 126`,
    // fd 3: the channel's stdin, kept for the watcher (a background list's stdin is /dev/null).
    "exec 3<&0",
    // fd 4: the channel's stderr, where the job's subshell reports the cgroup it joined.
    "exec 4>&2",
    ...pidFileLines(request.cookie, true),
    ...makeCgroupLines(request.cookie),
    `cookie=${shQuote(request.cookie)}`,
    `job_env="${JOB_COOKIE_VAR}=\${${JOB_COOKIE_VAR}:+\$${JOB_COOKIE_VAR},}$cookie"`,
    "shell=bash; command -v bash >/dev/null 2>&1 || shell=sh",
    // Said in the log, so a bash-only construct's failure (`[[: not found`) explains itself.
    `[ "$shell" = sh ] && echo "${NO_BASH_NOTE}"`,
    "leader=; command -v setsid >/dev/null 2>&1 && leader=setsid",
    ...startJobFunction(`env "$job_env" ${env} $leader "$shell" -c ${shQuote(request.command)}`),
    "start_job </dev/null 3<&- 2>&1 &",
    "pid=$!",
    `echo "$pid" > "$pidfile" 2>/dev/null`,
    `echo "${PID_MARK}$pid" >&2`,
    "pg=$pid",
    ...reapFunctions(request.graceMs ?? 2000),
    // The watcher: EOF on the channel's stdin means the connection is gone. From then on it
    // ignores TERM: the wrapper's `kill` below (once the job's shell is gone) must not cut the
    // sweep of what left the group short.
    "( while read -r _line; do :; done <&3; trap '' TERM; reap ''; rm -f \"$pidfile\"; cgdone ) " +
    "</dev/null >/dev/null 2>&1 4>&- &",
    "watcher=$!",
    'wait "$pid"; code=$?',
    'kill "$watcher" 2>/dev/null',
    'rm -f "$pidfile"',
    // What the command left running ends with it, reported on stderr (no second exec needed).
    `reap "${LEFT_MARK}" >&2; cgdone; echo "${REAPED_MARK}" >&2`,
    'exit "$code"',
  ];
  return `sh -c ${shQuote(lines.join("\n"))}`;
}

// Exported for tests.
/**
 * The environment variable that makes the remote side act as on a host without /proc (the ps
 * path below), for hosts whose /proc is unusable and for the tests, which have only Linux hosts.
 */
export const NO_PROC_VAR = "ANCHORFS_NO_PROC";

/**
 * sh functions that end the job's processes on the remote host: its group (`$pg`, the
 * setsid'd shell's pid, when set) and every process whose ANCHORFS_JOB names `$cookie`;
 * `reap PREFIX` prints `PREFIX pid (name)` for each one found, sends TERM (+CONT), then KILL
 * after the grace. They are found through /proc where the host has it, else through `ps` (a
 * BSD or macOS host; see membersByPs).
 */
function reapFunctions(graceMs: number): string[] {
  const tenths = Math.max(1, Math.ceil(graceMs / 100));
  return [
    `procfs=; [ -z "\${${NO_PROC_VAR}:-}" ] && [ -r /proc/self/environ ] && procfs=1`,
    'members() { if [ -n "$procfs" ]; then members_proc; else members_ps; fi | sort -un -k1,1; }',
    ...membersByProc(),
    ...membersByPs(),
    'group() { [ -n "$pg" ] && kill -"$1" -- -"$pg" 2>/dev/null; }',
    'signal() { echo "$1" | while read -r p n; do kill -"$2" "$p" 2>/dev/null; done; group "$2"; }',
    ...cgroupFunctions(),
    "reap() {",
    "  list=$(members)",
    '  [ -n "$list" ] || { group TERM; return 0; }',
    '  printf "%s\\n" "$list" | sed "s/^/$1/"',
    '  signal "$list" TERM; signal "$list" CONT',
    `  i=0; while [ $i -lt ${tenths} ]; do l=$(members); [ -z "$l" ] && return 0; signal "$l" TERM; sleep 0.1; i=$((i+1)); done`,
    '  for r in 1 2 3 4 5 6 7 8 9 10; do l=$(members); [ -z "$l" ] && return 0; cgkill; signal "$l" KILL; sleep 0.1; done',
    "}",
  ];
}

/**
 * awk over a process table (`pid ppid pgrp session state name` per row after `rows`): prints
 * `pid (name)` for the live members of group/session `g`, the pids listed in `c` (` 12 34 `:
 * they carry the cookie), and every descendant of those (a child that cleared its environment
 * and left the group is still found through its parent, as locally). `self` is the sweeping
 * shell. A live process's parent pid names its live parent, so the walk needs no start times.
 */
function treeAwk(rows: string): string {
  return `awk -v g="\${pg:-0}" -v c=" $c " -v self="$$" '${rows}
    pid == self || st ~ /^Z/ { next }
    { up[pid] = pp; nm[pid] = name
      if ((g > 0 && (gr == g || se == g)) || index(c, " " pid " ")) on[pid] = 1 }
    END {
      do { grew = 0; for (p in up) if (!(p in on) && (up[p] in on)) { on[p] = 1; grew = 1 } } while (grew)
      for (p in on) print p, "(" nm[p] ")"
    }'`;
}

/**
 * `members_proc`: from /proc (Linux): the cookie by one grep over every environment (-z:
 * NUL-separated entries, not a process per entry), then one read of every stat line.
 */
function membersByProc(): string[] {
  // A stat line is `pid (comm) state ppid pgrp session …`; comm may hold spaces and parens.
  const rows = '{ pid = $1 + 0; r = $0; sub(/^[0-9]+ \\(.*\\) /, "", r); split(r, f, " ")\n' +
    "  st = f[1]; pp = f[2]; gr = f[3]; se = f[4]\n" +
    '  name = $0; sub(/^[0-9]+ \\(/, "", name); sub(/\\) [^)]*$/, "", name) }';
  return [
    "members_proc() {",
    `  c=$(grep -lzs "^${JOB_COOKIE_VAR}=\\(.*,\\)\\{0,1\\}$cookie\\(,\\|$\\)" /proc/[0-9]*/environ |`,
    "    sed 's|^/proc/||; s|/environ$||' | tr '\\n' ' ')",
    '  c="$c $(cgpids)"',
    `  cat /proc/[0-9]*/stat 2>/dev/null | ${treeAwk(rows)}`,
    "}",
  ];
}

/**
 * `members_ps`: the same from `ps` where there is no /proc. The cookie from the environment ps
 * prints after each command line (`-e` on BSD-style ps and procps, `-E` on newer macOS; both
 * are asked, a ps without -E refuses it); the table from pid/ppid/pgid columns (ps has no
 * portable session column: the group and parentage serve). A name is the command's first word
 * without the directory.
 */
function membersByPs(): string[] {
  const rows = "{ pid = $1 + 0; pp = $2; gr = $3; se = -1; st = $4; name = $5\n" +
    '  for (i = 6; i <= NF; i++) name = name " " $i; sub(/.*\\//, "", name) }';
  return [
    "members_ps() {",
    "  c=$({ ps -axeww -o pid=,stat=,command= 2>/dev/null; ps -axEww -o pid=,stat=,command= 2>/dev/null; } |",
    `    awk -v c="$cookie" -v var="${JOB_COOKIE_VAR}=" '$2 !~ /^Z/ {`,
    "      for (i = 3; i <= NF; i++) if (index($i, var) == 1) {",
    '        n = split(substr($i, length(var) + 1), a, ",")',
    "        for (j = 1; j <= n; j++) if (a[j] == c) { print $1; next }",
    "      }",
    "    }' | tr '\\n' ' ')",
    '  c="$c $(cgpids)"',
    `  ps -axww -o pid=,ppid=,pgid=,stat=,comm= 2>/dev/null | ${treeAwk(rows)}`,
    "}",
  ];
}

/**
 * Terminates the job's processes on the remote host (see reapFunctions); prints them. With
 * `checkGroup`, the group is signalled only while the job's pid file still names it: the caller
 * did not see the job's wrapper alive, and a bare pid may belong to someone else by now.
 */
function remoteKillScript(
  job: { pid: number; cookie: string },
  graceMs: number,
  checkGroup = false,
): string {
  const pid = Math.trunc(job.pid);
  const lines = [
    `cookie=${shQuote(job.cookie)}`,
    ...(checkGroup
      ? [
        ...pidFileLines(job.cookie, false),
        `pg=; [ "$(cat "$pidfile" 2>/dev/null)" = "${pid}" ] && pg=${pid}`,
      ]
      : [`pg=${pid}`]),
    ...(checkGroup ? [] : pidFileLines(job.cookie, false)),
    ...findCgroupLines(job.cookie),
    ...reapFunctions(graceMs),
    'reap ""',
    ...(checkGroup ? ['[ -n "$pg" ] && rm -f "$pidfile"', "cgdone"] : []),
    "exit 0",
  ];
  return `sh -c ${shQuote(lines.join("\n"))}`;
}

/** `123 (sleep)` rows printed by remoteKillScript. */
function parseKilled(text: string): RemoteProcessInfo[] {
  const out: RemoteProcessInfo[] = [];
  for (const line of text.split("\n")) {
    const m = /^(\d+) \((.*)\)$/.exec(line.trim());
    if (m) out.push({ pid: Number(m[1]), name: m[2]! || "?" });
  }
  return out;
}

/** Jobs on the host behind one pooled connection. */
export class SshJobHost implements RemoteJobHost {
  constructor(private readonly link: SshLink) {}

  get description(): string {
    return this.link.description;
  }

  async startJob(request: RemoteJobRequest): Promise<RemoteJob> {
    const { channel, dropped } = await this.link.openExec(
      `start ${JSON.stringify(request.command)}`,
      remoteJobScript(request),
    );
    const { pidKnown, exited } = followJobChannel(
      channel,
      request.log,
      () =>
        dropped()
          ? `the connection to ${this.description} dropped while the job ran`
          : `the channel to ${this.description} closed without an exit status`,
    );
    const pid = await pidKnown;
    return {
      pid,
      exited,
      kill: async (graceMs: number) => {
        if (pid === 0) return [];
        return await this.kill(
          request.id,
          remoteKillScript({ pid, cookie: request.cookie }, graceMs),
        );
      },
    };
  }

  async stopJob(job: RemoteJobRef, graceMs: number): Promise<RemoteProcessInfo[]> {
    return await this.kill(job.id, remoteKillScript(job, graceMs, true));
  }

  private async kill(id: string, script: string): Promise<RemoteProcessInfo[]> {
    const result = await this.link.exec(`stop job ${id}`, script, "");
    return parseKilled(new TextDecoder().decode(result.stdout));
  }
}

/**
 * How long the channel may stay open after the job's exit status arrived while no output comes
 * (sshd closes it once every writer of its stdout is gone: at once, unless a process the sweep
 * could not recognise still holds it), and how long at most while output keeps coming.
 */
const DRAIN_QUIET_MS = 1000;
const DRAIN_MAX_MS = 10_000;

/**
 * Follows a job's channel: output into the log, the pid from the wrapper's stderr, and the end:
 * the exit status (with what the wrapper reaped) once the channel closes, or once it has been
 * quiet for DRAIN_QUIET_MS after the exit status (then it is closed from here: the job's shell
 * has ended, so the job has); `lost` when it closed without one.
 */
function followJobChannel(
  channel: ClientChannel,
  log: RemoteJobRequest["log"],
  lostWhy: () => string,
): { pidKnown: Promise<number>; exited: Promise<RemoteJobExit> } {
  let pidResolve: (pid: number) => void = () => {};
  const pidKnown = new Promise<number>((resolve) => (pidResolve = resolve));
  let stderr = "";
  let exit: { code: number | null; signal: string | null } | undefined;
  let done = false;
  const drain = drainTimer(() => end(undefined, true));
  channel.on("data", (chunk: Uint8Array) => {
    drain.touch();
    // After the end nothing reaches the log (the job has its terminal status).
    if (done) return;
    try {
      log.append(chunk);
    } catch {
      // the log is gone (job removed) or closed (ended): drop the bytes, keep the job running
    }
  });
  channel.stderr.on("data", (chunk: Uint8Array) => {
    stderr += new TextDecoder().decode(chunk);
    const m = new RegExp(`${PID_MARK}(\\d+)`).exec(stderr);
    if (m) pidResolve(Number(m[1]));
  });
  channel.on("exit", (c: number | null, s?: string) => {
    exit = { code: c, signal: s ?? null };
    drain.start();
  });
  let resolveExit: (exit: RemoteJobExit) => void = () => {};
  const exited = new Promise<RemoteJobExit>((resolve) => (resolveExit = resolve));
  const end = (error?: Error, held = false) => {
    if (done) return;
    done = true;
    drain.stop();
    pidResolve(0);
    if (held) channel.close();
    if (exit) {
      const reaped = stderr.includes(REAPED_MARK);
      const left = parseKilled(
        stderr.split("\n").filter((l) => l.startsWith(LEFT_MARK)).map((l) =>
          l.slice(LEFT_MARK.length)
        ).join("\n"),
      );
      return resolveExit({
        exitCode: exit.code,
        signal: exit.signal,
        containment: containmentOnHost(stderr),
        ...(reaped && { leftovers: left }),
        ...(held && { heldOpen: true }),
      });
    }
    const why = lostWhy();
    resolveExit({ exitCode: null, signal: null, lost: error ? `${why} (${error.message})` : why });
  };
  channel.on("close", () => end());
  channel.on("error", (e: Error) => end(e));
  return { pidKnown, exited };
}

/** How the job was held on its host, from the wrapper's stderr (its cgroup, when it joined one). */
function containmentOnHost(stderr: string): string {
  const line = stderr.split("\n").find((l) => l.startsWith(CGROUP_MARK));
  return line === undefined
    ? "process tree on the host (no cgroup could be made there)"
    : `cgroup v2 on the host (${line.slice(CGROUP_MARK.length).trim()})`;
}

/**
 * Calls `fire` once DRAIN_QUIET_MS pass without `touch` after `start` (at most DRAIN_MAX_MS
 * after it). A timer that fires late (this process was busy) waits once more, so the channel
 * events queued meanwhile are read first.
 */
function drainTimer(fire: () => void) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let deadline = 0;
  const arm = () => {
    if (timer !== undefined) clearTimeout(timer);
    const armedAt = Date.now();
    const wait = Math.max(0, Math.min(DRAIN_QUIET_MS, deadline - armedAt));
    timer = setTimeout(() => {
      timer = undefined;
      if (Date.now() - armedAt > wait + 250 && Date.now() < deadline) arm();
      else fire();
    }, wait);
  };
  return {
    start() {
      deadline = Date.now() + DRAIN_MAX_MS;
      arm();
    },
    touch() {
      if (timer !== undefined) arm();
    },
    stop() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
