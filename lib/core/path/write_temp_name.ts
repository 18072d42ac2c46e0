// Names of the temporary files an atomic write creates next to its target, and how to tell
// them apart from the user's files: listings hide them and the next write removes dead ones.

/** `.NAME.anchorfs-PID-N.tmp` (local) or `.NAME.anchorfs-PID-TIME-N.tmp` (over SFTP). */
const TEMP_NAME = /^\.(.+)\.anchorfs-(\d+)((?:-\d+)+)\.tmp$/;

/**
 * Most UTF-8 bytes of the target's name a temp or recovery name carries: names are limited to
 * 255 bytes, and a target whose own name is near that must still get a temp file beside it (the
 * name there is only for people reading a listing; nothing parses it back).
 */
const BASE_MAX_BYTES = 120;

function shortBase(base: string): string {
  const encoder = new TextEncoder();
  if (encoder.encode(base).length <= BASE_MAX_BYTES) return base;
  let out = "";
  let bytes = 0;
  for (const ch of base) {
    bytes += encoder.encode(ch).length;
    if (bytes > BASE_MAX_BYTES) break;
    out += ch;
  }
  return out;
}

/** The temp file name for writing `base` by process `pid`; `parts` make it unique. */
export function writeTempName(base: string, pid: number, ...parts: number[]): string {
  return `.${shortBase(base)}.anchorfs-${[pid, ...parts].join("-")}.tmp`;
}

/** `.NAME.anchorfs-lock`: a write's lock file beside its target, where folders cannot be locked. */
const LOCK_NAME = /^\.(.+)\.anchorfs-lock$/;

/** The lock file name beside `base` (one name per target, the same for every process). */
export function writeLockName(base: string): string {
  return `.${shortBase(base)}.anchorfs-lock`;
}

/**
 * `NAME.anchorfs-kept-PID-N`: a file a write kept beside its target instead of removing it (an
 * outside program's version that lost the race of an instant; see checked_swap.ts). Not hidden
 * and never swept: the user decides what becomes of it.
 */
export function keptCopyName(base: string, pid: number, n: number): string {
  return `${shortBase(base)}.anchorfs-kept-${pid}-${n}`;
}

/** Whether `name` (one path component) is a write's temporary file (or its lock file). */
export function isWriteTempName(name: string): boolean {
  return TEMP_NAME.test(name) || LOCK_NAME.test(name);
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
 * `.NAME.anchorfs-PID-N-iINODE-wSIZE-FNV.orig`: the content a hard-linked file had before it is
 * written in place, kept beside it until the write is verified. The inode number ties it to the
 * file under any of its names; SIZE and FNV (FNV-1a, 8 hex digits) are those of the content being
 * written, so a copy found beside a file that holds exactly that content shows a write that
 * finished. Not a temp name: the sweep of dead writers' temp files leaves it, since after a
 * crash it may be the only whole copy of the file.
 */
const RECOVERY_NAME = /^\.(.+)\.anchorfs-(\d+)-(\d+)-i(\d+)-w(\d+)-([0-9a-f]{8})\.orig$/;

/** What a recovery copy's name records (see RECOVERY_NAME). */
interface RecoveryCopy {
  /** The process that made it. */
  pid: number;
  /** The inode of the file it belongs to. */
  ino: number;
  /** Size and FNV-1a of the content that write was putting in the file. */
  written: { size: number; fingerprint: number };
}

/** The recovery copy's name for process `pid` writing `base` in place (`n` makes it unique). */
export function recoveryCopyName(base: string, n: number, copy: RecoveryCopy): string {
  const { size, fingerprint } = copy.written;
  return `.${shortBase(base)}.anchorfs-${copy.pid}-${n}-i${copy.ino}-w${size}-${
    (fingerprint >>> 0).toString(16).padStart(8, "0")
  }.orig`;
}

/** What a recovery copy's name records, or null for any other name. */
export function recoveryCopyOf(name: string): RecoveryCopy | null {
  const m = RECOVERY_NAME.exec(name);
  if (!m) return null;
  return {
    pid: Number(m[2]),
    ino: Number(m[4]),
    written: { size: Number(m[5]), fingerprint: parseInt(m[6]!, 16) },
  };
}
