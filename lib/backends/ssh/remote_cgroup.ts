// The sh lines that give a remote job a cgroup v2 of its own on its host where the account may
// make one (root, or a delegated subtree): `anchorfs-<instance>/job-<id>` under the session's
// own cgroup, joined by the job's shell before it runs anything, so the sweeps of
// remote_job_runner.ts also find and `cgroup.kill` whatever left the job's group, session and
// cookie. Where none can be had (no cgroup2 mount, no permission, ANCHORFS_NO_CGROUP set) `$cg`
// stays empty and the sweeps are what they were. The path is kept beside the pid file, so a kill
// from another server finds it; it is used only when it names this job's cgroup.

import { splitJobCookie } from "../../core/jobs/cgroup_paths.ts";

// Exported for tests.
/**
 * Set in the remote session's environment (e.g. sshd's `SetEnv`) to act as a host without
 * usable cgroups: for such hosts, and for the tests, whose sshd runs as root here.
 */
export const NO_CGROUP_VAR = "ANCHORFS_NO_CGROUP";

/** Stderr of the wrapper: the cgroup the job's shell joined. */
export const CGROUP_MARK = "anchorfs-job-cgroup ";

/** The file beside the pid file that names the job's cgroup (`$pidfile` must be set). */
const CGROUP_FILE_LINE = 'cgfile="${pidfile%.pid}.cgroup"';

/** The job's cgroup directory name tail, as a sh `case` pattern (only safe characters). */
function cgroupTail(cookie: string): string | undefined {
  const job = splitJobCookie(cookie);
  return job ? `anchorfs-${job.instance}/job-${job.id}` : undefined;
}

/**
 * Wrapper lines (after the pid file lines): make the job's cgroup and set `$cg`, or leave it
 * empty. Uses the first cgroup2 mount whose root is `/` and the session's own cgroup there.
 */
export function makeCgroupLines(cookie: string): string[] {
  const tail = cgroupTail(cookie);
  if (tail === undefined) return ["cg=", CGROUP_FILE_LINE];
  const awk = 'awk \'{ for (i = 7; i <= NF; i++) if ($i == "-") { ' +
    'if ($(i + 1) == "cgroup2" && $4 == "/") { print $5; exit } break } }\' /proc/self/mountinfo';
  return [
    "cg=",
    CGROUP_FILE_LINE,
    `if [ -z "\${${NO_CGROUP_VAR}:-}" ] && [ -r /proc/self/mountinfo ]; then`,
    `  cgmnt=$(${awk} 2>/dev/null); cgown=$(sed -n 's/^0:://p' /proc/self/cgroup 2>/dev/null)`,
    `  d="$cgmnt\${cgown%/}/${tail}"`,
    '  if [ -n "$cgmnt" ] && [ -n "$cgown" ] && mkdir -p "$d" 2>/dev/null; then',
    '    if [ -w "$d/cgroup.kill" ]; then cg=$d; echo "$cg" > "$cgfile" 2>/dev/null;',
    '    else rmdir "$d" "${d%/*}" 2>/dev/null; fi',
    "  fi",
    "fi",
  ];
}

/**
 * Kill-script lines (after the pid file lines): `$cg` from the file beside the pid file, kept
 * only when it names this job's cgroup and is still a cgroup with `cgroup.kill`.
 */
export function findCgroupLines(cookie: string): string[] {
  const tail = cgroupTail(cookie);
  if (tail === undefined) return ["cg=", CGROUP_FILE_LINE];
  return [
    CGROUP_FILE_LINE,
    'cg=$(cat "$cgfile" 2>/dev/null)',
    `case "$cg" in /*/${tail}) [ -w "$cg/cgroup.kill" ] || cg=;; *) cg=;; esac`,
  ];
}

/**
 * sh functions over `$cg`: `cgpids` lists its processes (and its sub-groups'), `cgkill` KILLs
 * them all at once, `cgdone` removes the emptied cgroup (and its server's, once empty) and the
 * file that names it. Each does nothing when `$cg` is empty.
 */
export function cgroupFunctions(): string[] {
  return [
    'cgpids() { [ -n "$cg" ] && cat "$cg/cgroup.procs" "$cg"/*/cgroup.procs 2>/dev/null | tr "\\n" " "; }',
    'cgkill() { [ -n "$cg" ] && echo 1 > "$cg/cgroup.kill" 2>/dev/null; }',
    "cgdone() {",
    '  [ -n "$cg" ] || return 0',
    '  i=0; while [ -d "$cg" ] && ! rmdir "$cg" 2>/dev/null && [ $i -lt 20 ]; do sleep 0.05; i=$((i+1)); done',
    '  rmdir "${cg%/*}" 2>/dev/null; rm -f "$cgfile"; return 0',
    "}",
  ];
}

/**
 * The wrapper's function that starts the job: its subshell joins `$cg` (moving itself, before
 * anything of the command runs), reports that on fd 4 (the channel's stderr), then execs
 * `launch…`. A failed move leaves `$cg` unreported and the job on the other sweeps.
 */
export function startJobFunction(launch: string): string[] {
  return [
    "start_job() {",
    '  if [ -n "$cg" ] && { echo 0 > "$cg/cgroup.procs"; } 2>/dev/null; then',
    `    echo "${CGROUP_MARK}$cg" >&4`,
    "  fi",
    `  exec ${launch} 4>&-`,
    "}",
  ];
}
