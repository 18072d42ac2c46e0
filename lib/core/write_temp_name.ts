// Names of the temporary files an atomic write creates next to its target, and how to tell
// them apart from the user's files: listings hide them and the next write removes dead ones.

/** `.NAME.anchorfs-PID-N.tmp` (local) or `.NAME.anchorfs-PID-TIME-N.tmp` (remote). */
const TEMP_NAME = /^\.(.+)\.anchorfs-(\d+)(?:-\d+)+\.tmp$/;

/** The temp file name for writing `base` by process `pid`; `parts` make it unique. */
export function writeTempName(base: string, pid: number, ...parts: number[]): string {
  return `.${base}.anchorfs-${[pid, ...parts].join("-")}.tmp`;
}

/** Whether `name` (one path component) is a write's temporary file. */
export function isWriteTempName(name: string): boolean {
  return TEMP_NAME.test(name);
}

/** The pid in a temp file name, or null when `name` is not one. */
export function writeTempPid(name: string): number | null {
  const m = TEMP_NAME.exec(name);
  return m ? Number(m[2]) : null;
}

/**
 * A temp file this old is removed even when its pid runs (or cannot be checked, remotely): the
 * pid was reused by another process, or a writer has been stuck for an hour.
 */
export const TEMP_MAX_AGE_MS = 60 * 60 * 1000;
