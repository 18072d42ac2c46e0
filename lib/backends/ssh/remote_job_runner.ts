// Runs a job on an ssh host over the pooled connection: the command runs under `setsid` (its
// own session and process group there) with the job's cookie in ANCHORFS_JOB and a pid file,
// its output streams into the local job log, and a kill takes the remote group plus every
// process carrying the cookie (found through the remote /proc). Never restarts a job.

import type {
  RemoteJob,
  RemoteJobExit,
  RemoteJobHost,
  RemoteJobRequest,
  RemoteProcessInfo,
} from "../../ops/jobs/remote_job.ts";
import { JOB_COOKIE_VAR } from "../../core/jobs/job_processes.ts";
import { NON_INTERACTIVE_ENV } from "../local/process_runner.ts";
import type { SshLink } from "./ssh_link.ts";

/** `'…'` for sh. */
export function shQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

const PID_MARK = "anchorfs-job-pid ";
/** Stderr of the wrapper: a process the command left running (then terminated). */
const LEFT_MARK = "anchorfs-job-left ";
/** Stderr of the wrapper: the leftovers were reaped. */
const REAPED_MARK = "anchorfs-job-reaped";

/** Where the remote side keeps pid files (private to the user). */
const PID_DIR = '"${XDG_RUNTIME_DIR:-${TMPDIR:-/tmp}}/anchorfs-jobs-$(id -u)"';

/**
 * The wrapper the remote sh runs: cd, start the command with bash (else sh) under setsid in the
 * background with the cookie and non-interactive settings, write the pid file, report the pid on
 * stderr, wait, and exit with the command's status. Its output goes to the channel's stdout.
 */
export function remoteJobScript(request: RemoteJobRequest): string {
  const env = Object.entries(NON_INTERACTIVE_ENV).map(([k, v]) => `${k}=${shQuote(v)}`).join(" ");
  const lines = [
    `cd -- ${shQuote(request.dir)} 2>&1 || exit 126`,
    `piddir=${PID_DIR}; mkdir -p "$piddir" 2>/dev/null; chmod 700 "$piddir" 2>/dev/null`,
    `pidfile="$piddir/${request.id.replace(/[^0-9-]/g, "")}.pid"`,
    `cookie=${shQuote(request.cookie)}`,
    `job_env="${JOB_COOKIE_VAR}=\${${JOB_COOKIE_VAR}:+\$${JOB_COOKIE_VAR},}$cookie"`,
    "shell=bash; command -v bash >/dev/null 2>&1 || shell=sh",
    "leader=; command -v setsid >/dev/null 2>&1 && leader=setsid",
    `env "$job_env" ${env} $leader "$shell" -c ${shQuote(request.command)} </dev/null 2>&1 &`,
    "pid=$!",
    `echo "$pid" > "$pidfile" 2>/dev/null`,
    `echo "${PID_MARK}$pid" >&2`,
    'wait "$pid"; code=$?',
    'rm -f "$pidfile"',
    // What the command left running ends with it, reported on stderr (no second exec needed).
    "pg=$pid",
    ...reapFunctions(request.graceMs ?? 2000),
    `reap "${LEFT_MARK}" >&2; echo "${REAPED_MARK}" >&2`,
    'exit "$code"',
  ];
  return `sh -c ${shQuote(lines.join("\n"))}`;
}

/**
 * sh functions that end the job's processes on the remote host: its group (`$pg`, the
 * setsid'd shell's pid) and every process whose ANCHORFS_JOB names `$cookie`; `reap PREFIX`
 * prints `PREFIX pid (name)` for each one found, sends TERM (+CONT), then KILL after the grace.
 */
function reapFunctions(graceMs: number): string[] {
  const tenths = Math.max(1, Math.ceil(graceMs / 100));
  return [
    "members() {",
    '  { cat /proc/[0-9]*/stat 2>/dev/null | awk -v g="$pg" \'$5==g && $3!="Z" {print $1, $2}\'',
    // One grep over every environment (-z: NUL-separated entries), not a process per entry.
    `    for e in $(grep -lzs "^${JOB_COOKIE_VAR}=\\(.*,\\)\\{0,1\\}$cookie\\(,\\|$\\)" /proc/[0-9]*/environ); do`,
    '      p=${e#/proc/}; p=${p%/environ}; [ "$p" = "$$" ] && continue',
    "      s=$(cat /proc/$p/stat 2>/dev/null) || continue",
    '      case "$s" in *") Z "*) continue;; esac',
    '      echo "$p ($(cat /proc/$p/comm 2>/dev/null))"',
    "    done; } | sort -un -k1,1",
    "}",
    'signal() { echo "$1" | while read -r p n; do kill -"$2" "$p" 2>/dev/null; done; kill -"$2" -- -"$pg" 2>/dev/null; }',
    "reap() {",
    "  list=$(members)",
    '  [ -n "$list" ] || { kill -TERM -- -"$pg" 2>/dev/null; return 0; }',
    '  printf "%s\\n" "$list" | sed "s/^/$1/"',
    '  signal "$list" TERM; signal "$list" CONT',
    `  i=0; while [ $i -lt ${tenths} ]; do l=$(members); [ -z "$l" ] && return 0; signal "$l" TERM; sleep 0.1; i=$((i+1)); done`,
    '  for r in 1 2 3 4 5 6 7 8 9 10; do l=$(members); [ -z "$l" ] && return 0; signal "$l" KILL; sleep 0.1; done',
    "}",
  ];
}

/** Terminates the job's processes on the remote host (see reapFunctions); prints them. */
export function remoteKillScript(pgid: number, cookie: string, graceMs: number): string {
  const lines = [
    `pg=${Math.trunc(pgid)}; cookie=${shQuote(cookie)}`,
    ...reapFunctions(graceMs),
    'reap ""',
  ];
  return `sh -c ${shQuote(lines.join("\n"))}`;
}

/** `123 (sleep)` rows printed by remoteKillScript. */
export function parseKilled(text: string): RemoteProcessInfo[] {
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
    let pidResolve: (pid: number) => void = () => {};
    const pidKnown = new Promise<number>((resolve) => (pidResolve = resolve));
    let stderr = "";
    let code: number | null = null;
    let signal: string | null = null;
    let sawExit = false;
    channel.on("data", (chunk: Uint8Array) => {
      try {
        request.log.append(chunk);
      } catch {
        // the log is gone (job removed): drop the bytes, keep the job running
      }
    });
    channel.stderr.on("data", (chunk: Uint8Array) => {
      stderr += new TextDecoder().decode(chunk);
      const m = new RegExp(`${PID_MARK}(\\d+)`).exec(stderr);
      if (m) pidResolve(Number(m[1]));
    });
    channel.on("exit", (c: number | null, s?: string) => {
      sawExit = true;
      code = c;
      signal = s ?? null;
    });
    const exited = new Promise<RemoteJobExit>((resolve) => {
      let done = false;
      const end = (error?: Error) => {
        if (done) return;
        done = true;
        pidResolve(0);
        if (sawExit) {
          const reaped = stderr.includes(REAPED_MARK);
          const left = parseKilled(
            stderr.split("\n").filter((l) => l.startsWith(LEFT_MARK)).map((l) =>
              l.slice(LEFT_MARK.length)
            ).join("\n"),
          );
          return resolve({ exitCode: code, signal, ...(reaped && { leftovers: left }) });
        }
        const why = dropped()
          ? `the connection to ${this.description} dropped while the job ran`
          : `the channel to ${this.description} closed without an exit status`;
        resolve({
          exitCode: null,
          signal: null,
          lost: error ? `${why} (${error.message})` : why,
        });
      };
      channel.on("close", () => end());
      channel.on("error", (e: Error) => end(e));
    });
    const pid = await pidKnown;
    return {
      pid,
      exited,
      kill: async (graceMs: number) => {
        if (pid === 0) return [];
        const result = await this.link.exec(
          `stop job ${request.id}`,
          remoteKillScript(pid, request.cookie, graceMs),
          "",
        );
        return parseKilled(new TextDecoder().decode(result.stdout));
      },
    };
  }
}
