// Builds the exact replacement calls a refusal offers: view calls for the files read, search
// roots, and paths as the tool needs them (relative to a `cd`, ssh:// on a remote host).

import { formatCall } from "./policy_messages.ts";
import { type Invocation, joinOn } from "./invocation.ts";
import type { PathRules } from "../../path/path_rules.ts";

/** A path as the replacement tool should get it: relative to a `cd`, remote as ssh://. */
export function toolPath(inv: Invocation, path: string): string {
  const joined = joinOn(inv.scope.paths, inv.cwd, path);
  const host = inv.scope.host ?? inv.scope.runsOn?.host;
  if (!host) return joined;
  if (joined.startsWith("/")) return `ssh://${host}${joined}`;
  if (joined === "~" || joined === ".") return `ssh://${host}/~`;
  if (joined.startsWith("~/")) return `ssh://${host}/${joined}`;
  return `ssh://${host}/~/${joined.replace(/^\.\//, "")}`;
}

/** Paths only known at run time (`$f`, `$(…)`) cannot be handed over as a literal call. */
export function isLiteralPath(path: string): boolean {
  return !/[$`]/.test(path);
}

/** One view call per file read (up to 3); a glob becomes its directory plus a pattern. */
export function viewCalls(inv: Invocation, files: string[], extra: Record<string, unknown> = {}) {
  return files.filter(isLiteralPath).slice(0, 3).map((f) => {
    const { dir, pattern } = splitGlob(f, inv.scope.paths);
    if (pattern === undefined) return formatCall("view", { path: toolPath(inv, f), ...extra });
    // `cat src/*.ts`: list them first; each file is then one view call.
    return formatCall("view", { path: toolPath(inv, dir), pattern, max_depth: 1 });
  });
}

/** Roots for a search or listing; undefined when one of them is only known at run time. */
export function searchRoots(
  inv: Invocation,
  paths: string[],
): { path: string; pattern?: string } | undefined {
  if (!paths.every(isLiteralPath)) return undefined;
  const globbed = paths.filter((p) => splitGlob(p, inv.scope.paths).pattern !== undefined);
  if (globbed.length === 0) return { path: joinRoots(inv, paths) };
  if (paths.length !== 1) return undefined;
  const { dir, pattern } = splitGlob(paths[0]!, inv.scope.paths);
  return pattern !== undefined && !/[/\\]/.test(pattern)
    ? { path: toolPath(inv, dir), pattern }
    : undefined;
}

function joinRoots(inv: Invocation, paths: string[]): string {
  return paths.map((p) => toolPath(inv, p)).join("|");
}

/**
 * `src/*.ts` → directory "src" and pattern "*.ts" for view: cut at the separator before the
 * first component with a glob character (`/`, and `\` too under Windows `paths`).
 */
export function splitGlob(path: string, paths?: PathRules): { dir: string; pattern?: string } {
  const glob = /[*?[{]/.exec(path);
  if (!glob) return { dir: path };
  const windows = paths?.style === "windows";
  let cut = glob.index - 1;
  while (cut >= 0 && !(path[cut] === "/" || windows && path[cut] === "\\")) cut--;
  if (cut < 0) return { dir: ".", pattern: path };
  let dir = path.slice(0, cut) || path[0]!; // "/*.ts": the root
  if (windows && /^[A-Za-z]:$/.test(dir)) dir += path[cut]; // "C:\*.ts": the drive's root
  return { dir, pattern: path.slice(cut + 1) };
}
