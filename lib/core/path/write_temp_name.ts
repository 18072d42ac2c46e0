// Names of the temporary files an atomic write creates next to its target, and how to tell
// them apart from the user's files: listings hide them and the next write removes dead ones.

/** `.NAME.anchorfs-PID-N.tmp` (local) or `.NAME.anchorfs-PID-TIME-N.tmp` (over SFTP). */
const TEMP_NAME = /^\.(.+)\.anchorfs-(\d+)((?:-\d+)+)\.tmp$/;

/** The temp file name for writing `base` by process `pid`; `parts` make it unique. */
export function writeTempName(base: string, pid: number, ...parts: number[]): string {
  return `.${base}.anchorfs-${[pid, ...parts].join("-")}.tmp`;
}

/** Whether `name` (one path component) is a write's temporary file. */
export function isWriteTempName(name: string): boolean {
  return TEMP_NAME.test(name);
}

/**
 * The pid of a local write's temp file name, or null when `name` is not one. A name written over
 * SFTP carries the pid of a process on another machine: "remote", only its age can tell.
 */
export function writeTempPid(name: string): number | "remote" | null {
  const m = TEMP_NAME.exec(name);
  if (!m) return null;
  return m[3]!.split("-").length === 2 ? Number(m[2]) : "remote";
}

/**
 * A temp file this old is removed even when its pid runs (or cannot be checked, remotely): the
 * pid was reused by another process, or a writer has been stuck for an hour.
 */
export const TEMP_MAX_AGE_MS = 60 * 60 * 1000;

/**
 * `.NAME.anchorfs-PID-N-iINODE.orig`: the content a hard-linked file had before it is written in
 * place, kept beside it until the write is verified. The inode number ties it to the file under
 * any of its names. Not a temp name: the sweep of dead writers' temp files leaves it, since after
 * a crash it may be the only whole copy of the file.
 */
const RECOVERY_NAME = /^\.(.+)\.anchorfs-(\d+)-(\d+)-i(\d+)\.orig$/;

/** The recovery copy's name for writing `base` (inode `ino`) in place by process `pid`. */
export function recoveryCopyName(base: string, pid: number, n: number, ino: number): string {
  return `.${base}.anchorfs-${pid}-${n}-i${ino}.orig`;
}

/** The file a recovery copy belongs to and the pid that made it, or null for any other name. */
export function recoveryCopyOf(name: string): { base: string; pid: number; ino: number } | null {
  const m = RECOVERY_NAME.exec(name);
  return m ? { base: m[1]!, pid: Number(m[2]), ino: Number(m[4]) } : null;
}
