// The shared vocabulary of the policy: what a simple command runs once wrappers are peeled off
// (Invocation), where it runs (Scope), and the Refusal a rule returns, built by refuse().

import { NEVER_ENDS_REASONS, type PolicyRule, type RefusalText } from "./policy_messages.ts";
import type { SimpleCommand, Word } from "../parse/mod.ts";
import { isPseudoFile, stdinFile, stdinIsData, stdoutToFile } from "./redirects.ts";
import { stripTrailing } from "../../path/path_text.ts";
import type { PathRules } from "../../path/path_rules.ts";

/** A refusal before it is rendered: exactly what policy_messages.ts formats. */
export type Refusal = RefusalText;

/** Where a script runs: locally, or on an ssh host (paths in suggestions become ssh:// URLs). */
export interface Scope {
  host?: string;
  depth: number;
  /**
   * Files the caller found anchorfs cannot read itself (over --max-file-bytes, or not a regular
   * file), named as refusals name them in `files`: reading, searching, listing or editing only
   * such files is the shell's job, so it is allowed. Never set for an ssh host's scope.
   */
  outside?: ReadonlySet<string>;
  /**
   * How the machine the line runs on writes paths (the backend's rules): `cd C:\src` then
   * `cat a.txt` names `C:\src\a.txt` on Windows. POSIX when absent; never set for an ssh host.
   */
  paths?: PathRules;
  /**
   * The line itself runs on an ssh host, in `dir` there (shell with an ssh:// cwd): suggested
   * paths become ssh:// URLs on `host` (the URL's authority), relative ones joined to `dir`.
   */
  runsOn?: { host: string; dir: string };
  /** The local directory the line starts in, from the session's directory (JudgeOptions). */
  startDir?: string;
}

/** What a simple command runs once wrappers are peeled off. */
export interface Invocation {
  name: string;
  args: Word[];
  cmd: SimpleCommand;
  scope: Scope;
  cwd: string | undefined;
  /** Run by `timeout`: a follower (tail -f) ends when the timeout fires. */
  bounded: boolean;
  /** Run by xargs or find -exec: its file operands arrive from outside the words we see. */
  implicitFiles: boolean;
  /**
   * Judges a command this one runs on files it finds (find -exec, fd -x), with those files as
   * its operands. Passed in so the rules need not import the script walker that calls them.
   */
  judgeInner(words: Word[]): Refusal | undefined;
  /** The files this program reads, as a refusal names them (set by onlyShellFiles). */
  reads?: string[];
}

export function refuse(
  inv: Invocation,
  rule: PolicyRule,
  extra: { reason?: string; calls?: string[] } = {},
): Refusal {
  const r: Refusal = { rule, offending: inv.cmd.text };
  if (inv.scope.host) r.host = inv.scope.host;
  if (extra.reason) r.reason = extra.reason;
  if (extra.calls && extra.calls.length > 0) r.calls = extra.calls;
  if (!inv.scope.host && inv.reads && inv.reads.length > 0) r.files = inv.reads;
  return r;
}

/**
 * True when every file named is one only the shell can read: a kernel pseudo-file (/proc, /sys,
 * /dev), or one the caller found anchorfs cannot read itself (Scope.outside). Notes the files on
 * `inv`, so that a refusal names them for a caller that can look them up (Refusal.files).
 */
export function onlyShellFiles(inv: Invocation, paths: readonly string[]): boolean {
  const literal = paths.every((p) => !/[$`*?[]/.test(p));
  const join = (p: string) => joinOn(inv.scope.paths, inv.cwd, p);
  inv.reads = literal ? paths.map(join) : [];
  if (paths.length === 0) return false;
  if (paths.every(isPseudoFile)) return true;
  const outside = inv.scope.outside;
  if (!outside || !literal) return false;
  return paths.every((p) => isPseudoFile(p) || outside.has(join(p)));
}

export function neverEnds(inv: Invocation, why: keyof typeof NEVER_ENDS_REASONS): Refusal {
  return refuse(inv, "never_ends", { reason: NEVER_ENDS_REASONS[why] });
}

/**
 * The common shape of read/search/edit rules: a program that reads `files` (or its stdin when
 * there are none). Returns undefined when the reading is allowed:
 * - a later pipeline stage, or stdin from a heredoc/here-string: a stream filter;
 * - every file under /proc, /sys or /dev (kernel pseudo-files, not project text), or one
 *   anchorfs cannot read itself (onlyShellFiles);
 * - (read/search/list only) stdout redirected into a file: nothing reaches the model.
 */
export function readsProjectFiles(
  inv: Invocation,
  files: Word[],
  rule: PolicyRule,
  options: { readsStdin?: boolean } = {},
): { files: string[]; nothingToRead: boolean } | undefined {
  const cmd = inv.cmd;
  let paths = files.map((w) => w.value).filter((p) => p !== "-");
  let nothingToRead = false;
  if (paths.length === 0 && !inv.implicitFiles) {
    if (options.readsStdin === false) paths = ["."];
    else {
      if (cmd.fed || stdinIsData(cmd)) return undefined;
      const input = stdinFile(cmd);
      if (input !== undefined) paths = [input];
      else nothingToRead = true;
    }
  }
  if (onlyShellFiles(inv, paths)) return undefined;
  if (rule !== "edit_in_place" && stdoutToFile(cmd)) return undefined;
  return { files: paths, nothingToRead };
}

/** `path` as seen from the start of the line, after a `cd base` (absolute and ~ paths as they are). */
function pathAfterCd(base: string | undefined, path: string): string {
  if (base === undefined || path.startsWith("/") || path.startsWith("~")) return path;
  if (path === ".") return base;
  return `${stripTrailing(base, "/")}/${path.replace(/^\.\//, "")}`;
}

/**
 * pathAfterCd as the machine's `paths` rules join. On Windows a drive or UNC path stands alone, in
 * normal form (`C:/x` → `C:\x`); a relative one joins an absolute `cd` by the rules (`..`
 * resolved, `\` separators) and a relative `cd` with `\`; a leading `.\` or `./` is dropped.
 * POSIX rules (or none): pathAfterCd.
 */
export function joinOn(paths: PathRules | undefined, base: string | undefined, path: string) {
  if (paths?.style !== "windows") return pathAfterCd(base, path);
  if (paths.isAbsolute(path)) return paths.normalize(path);
  if (/^~(?:[\\/]|$)/.test(path)) return path;
  const rel = path.replace(/^\.[\\/]+(?=.)/, "");
  if (base === undefined) return rel;
  if (rel === ".") return paths.isAbsolute(base) ? paths.normalize(base) : base;
  if (paths.isAbsolute(base)) return paths.resolve(base, rel);
  return `${base.replace(/[\\/]+$/, "")}\\${rel}`;
}

/** The program name as the rules know it: `/usr/bin/grep` → `grep`. */
export function baseName(path: string): string {
  const trimmed = stripTrailing(path, "/");
  return trimmed.slice(trimmed.lastIndexOf("/") + 1) || path;
}
