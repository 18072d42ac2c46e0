// The shell policy with the facts it cannot gather itself: when it refuses a read, search,
// listing or edit of files, those files are looked up (through the backend of the command's
// directory, local or ssh://) and the command is let through when anchorfs cannot read any of
// them itself (larger than --max-file-bytes, or not a regular file). The policy stays pure.

import type { JudgeOptions, PolicyVerdict } from "../core/shell/policy/mod.ts";
import type { ShellKind } from "../core/platform/platform.ts";
import type { Location, Locations } from "./location.ts";
import { onFirstUse } from "../core/first_use.ts";

// The policy tables load on the first shell call, not at server start (start-up time); one that
// fails to load (no descriptor free) is that call's error, and the next call loads again.
const loadJudgeCommand = onFirstUse(
  "shell policy",
  () => import("../core/shell/policy/mod.ts").then(({ judgeCommand }) => judgeCommand),
);

/** Where a command's relative paths start, and what anchorfs can read there. */
export interface ShellFiles {
  locations: Locations;
  /** The directory the command runs in. */
  cwd: Location;
  /**
   * The session's working directory, which the file tools resolve relative paths against: when
   * the command runs elsewhere, the calls a refusal offers are written from here.
   */
  base?: Location;
  /** view, search and the edit tools refuse regular files larger than this (--max-file-bytes). */
  maxFileBytes: number;
}

/**
 * judgeCommand, then for each refusal that names its files: when every one of them is a file
 * anchorfs cannot read itself, judge again with them allowed (a line may name several).
 */
export async function judgeShellCommand(
  command: string,
  shell: ShellKind | undefined,
  files: ShellFiles | undefined,
): Promise<PolicyVerdict> {
  const judgeCommand = await loadJudgeCommand();
  const outside = new Set<string>();
  for (;;) {
    // Paths join as the machine the command runs on writes them (Windows: `cd C:\src`).
    const options: JudgeOptions = {
      outside,
      ...(files && { paths: files.cwd.backend.paths }),
      ...runsOn(files),
      ...startsIn(files),
    };
    const verdict = judgeCommand(command, shell, options);
    if (verdict.allowed || !files || !verdict.files) return verdict;
    const fresh = verdict.files.filter((f) => !outside.has(f));
    // Each round adds at least one file, so this ends.
    if (fresh.length === 0 || !(await everyOutsideTools(fresh, files))) return verdict;
    for (const f of fresh) outside.add(f);
  }
}

/** For a command in an ssh:// directory: the host (the URL's authority) and the directory there. */
function runsOn(files: ShellFiles | undefined): Pick<JudgeOptions, "runsOn"> {
  if (!files?.cwd.remote) return {};
  const host = /^[a-z]+:\/\/([^/]+)/.exec(files.cwd.url)?.[1];
  return host === undefined ? {} : { runsOn: { host, dir: files.cwd.path } };
}

/**
 * For a local command run in another directory than the session's: that directory as the file
 * tools name it (relative to the session's, or absolute), so suggested paths resolve to the
 * files the command meant.
 */
function startsIn(files: ShellFiles | undefined): Pick<JudgeOptions, "startDir"> {
  const base = files?.base;
  if (!files || !base || files.cwd.remote || base.remote) return {};
  const paths = files.cwd.backend.paths;
  if (paths.key(files.cwd.path) === paths.key(base.path)) return {};
  return { startDir: paths.relativeTo(base.path, files.cwd.path) };
}

async function everyOutsideTools(paths: readonly string[], files: ShellFiles): Promise<boolean> {
  for (const path of paths) {
    if (!(await outsideTools(path, files))) return false;
  }
  return true;
}

/** True for a file that exists and that view and the edit tools refuse to open. */
async function outsideTools(path: string, files: ShellFiles): Promise<boolean> {
  try {
    // The shell is not confined (--allow limits the file tools only): locate, not resolve.
    // Named as the refusal names them: from the session's directory when startsIn moved them.
    const from = startsIn(files).startDir === undefined ? files.cwd : files.base!;
    const location = await files.locations.locate(path, from);
    const info = await location.backend.stat(location.path);
    if (!info) return false;
    if (info.type === "other" || info.special !== undefined) return true;
    return info.type === "file" && info.size > files.maxFileBytes;
  } catch {
    return false; // unreadable, a bad path, a host that cannot be reached: the refusal stands
  }
}
