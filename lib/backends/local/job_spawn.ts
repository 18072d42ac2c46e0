// Starts a local job's shell on Linux and macOS: in its own session, stdin closed, stdout and
// stderr on one pipe the server reads into the log (lib/backends/local/log_pump.ts), and, where
// the job has cgroups, inside them before any of its command runs. A tiny sh preamble does it:
// it moves itself into each cgroup (`echo 0 > cgroup.procs` moves the writer), reports on the
// control pipe (stderr until then) which moves failed and, for a systemd scope, where it landed,
// points stderr at the output pipe, and execs the shell (same pid, so the job's pid and start
// time are the preamble's). No process of the job can exist outside its cgroup.

import { LogPump, type PumpSink } from "./log_pump.ts";

/** The preamble's report line on the control pipe. */
const JOINED_MARK = "anchorfs-joined";

/**
 * `sh -c PREAMBLE anchorfs-job N PROCS… REPORT PROGRAM ARGS…`: N cgroup.procs files to join,
 * REPORT 1 to print its v2 cgroup (read with the `read` builtin: a fork here would be a process
 * outside the report), then the shell to exec.
 */
const PREAMBLE = [
  "n=$1; shift; i=0; failed=",
  'while [ "$i" -lt "$n" ]; do { echo 0 > "$1"; } 2>/dev/null || failed="$failed $i"; ' +
  "shift; i=$((i+1)); done",
  "report=$1; shift; cg=",
  'if [ "$report" = 1 ]; then while IFS= read -r line; do case $line in 0::*) cg=${line#0::};; ' +
  "esac; done < /proc/self/cgroup; fi",
  `echo "${JOINED_MARK} failed:$failed cgroup:$cg" >&2`,
  "exec 2>&1",
  'exec "$@"',
].join("\n");

interface PipedSpawnRequest {
  /** The job's shell and its arguments (after `prefix`, e.g. systemd-run's). */
  program: string;
  args: string[];
  prefix: string[];
  cwd: string;
  env: Record<string, string>;
  /** cgroup directories to join before the shell starts. */
  cgroups: string[];
  /** Ask the preamble where it landed in the v2 hierarchy (a systemd scope's path). */
  reportCgroup: boolean;
  log: PumpSink;
  /** Reads a pid's start time; called right after the fork, before the job can be reaped. */
  startTimeOf(pid: number): number | undefined;
}

export interface PipedJob {
  pid: number;
  startTicks: number | undefined;
  exited: Promise<{ exitCode: number | null; signal: string | null }>;
  output: LogPump;
  /** Indexes into `cgroups` of the ones it could not join. */
  failedJoins: number[];
  /** Its v2 cgroup path, when asked for (`reportCgroup`). */
  cgroup?: string;
  /** The preamble died before it reported (the job's shell never ran). */
  noReport: boolean;
}

/** Reads the control pipe up to the report line (the preamble writes nothing else there). */
async function readReport(stream: ReadableStream<Uint8Array>): Promise<string | undefined> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    while (!text.includes("\n") && text.length < 65536) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // closed: no report
  } finally {
    reader.cancel().catch(() => {});
  }
  const line = text.split("\n").find((l) => l.startsWith(JOINED_MARK));
  return line;
}

/**
 * Starts the job; resolves once it is in its cgroups (or has said it could not be) with its pid
 * and its output flowing into the log. Throws if it cannot start (a missing directory).
 */
export async function spawnPiped(request: PipedSpawnRequest): Promise<PipedJob> {
  const words = [
    ...request.prefix,
    "/bin/sh",
    "-c",
    PREAMBLE,
    "anchorfs-job",
    String(request.cgroups.length),
    ...request.cgroups.map((d) => `${d}/cgroup.procs`),
    request.reportCgroup ? "1" : "0",
    request.program,
    ...request.args,
  ];
  const child = new Deno.Command(words[0]!, {
    args: words.slice(1),
    cwd: request.cwd,
    env: request.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    // Its own session and process group, like `setsid`.
    detached: true,
  }).spawn();
  const startTicks = request.startTimeOf(child.pid);
  const output = new LogPump(child.stdout, request.log);
  const exited = child.status.then((s) =>
    s.signal !== null ? { exitCode: null, signal: s.signal } : { exitCode: s.code, signal: null }
  );
  const report = await readReport(child.stderr);
  // From now on the job must not keep the server alive (pipes included): shutdown kills it
  // explicitly, and the manager's watch timer keeps the loop alive while it runs. Not before:
  // the report is all this start waits for.
  child.unref();
  const m = report === undefined ? null : /failed:([\d ]*) cgroup:(.*)$/.exec(report);
  const failedJoins = m
    ? m[1]!.trim().split(/\s+/).filter((x) => x !== "").map(Number)
    : request.cgroups.map((_, i) => i);
  const cgroup = m?.[2]?.trim();
  return {
    pid: child.pid,
    startTicks,
    exited,
    output,
    failedJoins,
    ...(cgroup && { cgroup }),
    noReport: m === null,
  };
}
