// Shell policy: judges a command line before anything runs and refuses shell misuse (cat, grep,
// find, sed, bare sleep, never-ending commands) with the exact replacement call. Pure. This entry
// renders the verdict; the other files of this folder judge (script.ts walks, rules.ts decides).

import { formatRefusal } from "./policy_messages.ts";
import type { Refusal } from "./invocation.ts";
import { judgeScript } from "./script.ts";
import { judgeWindowsScript } from "./windows.ts";
import type { ShellKind } from "../../platform/platform.ts";
import type { PathRules } from "../../path/path_rules.ts";
import type { PolicyRule } from "./policy_messages.ts";

export type { PolicyRule } from "./policy_messages.ts";

/** The shell policy's verdict on a command line: allowed, or refused with the message to show. */
export type PolicyVerdict =
  | { allowed: true }
  | {
    allowed: false;
    /** Stable rule id, e.g. "read_file", "search_text", "parse_error". */
    rule: PolicyRule;
    /** The whole message for the model: rule + replacement tool, worked examples, what is allowed. */
    message: string;
    /** The simple command that triggered the rule, as written. */
    offending: string;
    /**
     * The literal files the refused command reads, for a caller that can look them up: when
     * every one is a file anchorfs cannot read itself, pass them in `outside` and judge again.
     */
    files?: string[];
  };

/** What the caller knows about the files a command names (the policy itself does no I/O). */
export interface JudgeOptions {
  /**
   * Files found to be ones anchorfs cannot read itself (larger than --max-file-bytes, or not a
   * regular file: a FIFO, a device), named as a refusal's `files` names them. A command that
   * reads, searches, lists or edits only such files is allowed: no tool can do it instead.
   */
  outside?: ReadonlySet<string>;
  /**
   * How the machine the command runs on writes paths (the rules its file backend carries):
   * the files a refusal names and the view calls it offers join a `cd` the way that machine
   * does (`cd C:\src && type a.txt` → `C:\src\a.txt`). POSIX when absent.
   */
  paths?: PathRules;
  /** The line runs on an ssh host, in `dir` there: suggested paths name that host's files. */
  runsOn?: { host: string; dir: string };
  /**
   * The local directory the line starts in, as the file tools name it from the session's
   * directory (`packages/web`, or absolute when outside it), when the two differ (shell with a
   * `cwd`): the files a refusal names and the view calls it offers are joined to it, so
   * `cat a.txt` run in `packages/web` offers `view packages/web/a.txt`, not the session's a.txt.
   */
  startDir?: string;
}

/**
 * Judges a whole command line as the given shell reads it (default bash; cmd.exe and
 * PowerShell lines get the Windows equivalents of each rule); refuses with the first
 * offending simple command in it.
 *
 * @example
 * ```ts
 * import { judgeCommand } from "@anchorfs/anchorfs";
 *
 * judgeCommand("deno task test").allowed; // true
 * const verdict = judgeCommand("cat src/main.ts");
 * if (!verdict.allowed) verdict.rule; // "read_file": the message names the view call to use
 * ```
 */
export function judgeCommand(
  command: string,
  shell: ShellKind = "bash",
  options: JudgeOptions = {},
): PolicyVerdict {
  let refusal: Refusal | undefined;
  const known = {
    ...(options.outside && { outside: options.outside }),
    ...(options.paths && { paths: options.paths }),
    ...(options.startDir !== undefined && { startDir: options.startDir }),
  };
  try {
    refusal = shell === "cmd"
      ? judgeWindowsScript(command, "cmd", known)
      : shell === "powershell" || shell === "pwsh"
      ? judgeWindowsScript(command, "powershell", known)
      : judgeScript(command, {
        depth: 0,
        ...known,
        ...(options.runsOn && { runsOn: options.runsOn }),
      });
  } catch (e) {
    // Only a pathological line (thousands of nested find -exec) gets here: refuse, never crash.
    if (!(e instanceof RangeError)) throw e;
    refusal = {
      rule: "parse_error",
      offending: command,
      parseError: "the command line nests too deeply to be judged",
    };
  }
  if (!refusal) return { allowed: true };
  return {
    allowed: false,
    rule: refusal.rule,
    message: formatRefusal(refusal),
    offending: refusal.offending,
    ...(refusal.files && { files: refusal.files }),
  };
}
