// Builds the exact replacement calls a refusal offers: view calls for the files read, search
// roots, and paths as the tool needs them (relative to a `cd`, ssh:// on a remote host).

import { formatCall } from "./policy_messages.ts";
import { type Invocation, joinPath } from "./invocation.ts";

/** A path as the replacement tool should get it: relative to a `cd`, remote as ssh://. */
export function toolPath(inv: Invocation, path: string): string {
  const joined = joinPath(inv.cwd, path);
  const host = inv.scope.host;
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
    const { dir, pattern } = splitGlob(f);
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
  const globbed = paths.filter((p) => splitGlob(p).pattern !== undefined);
  if (globbed.length === 0) return { path: joinRoots(inv, paths) };
  if (paths.length !== 1) return undefined;
  const { dir, pattern } = splitGlob(paths[0]!);
  return pattern !== undefined && !pattern.includes("/")
    ? { path: toolPath(inv, dir), pattern }
    : undefined;
}

function joinRoots(inv: Invocation, paths: string[]): string {
  return paths.map((p) => toolPath(inv, p)).join("|");
}

/** `src/*.ts` → directory "src" and pattern "*.ts" for view. */
export function splitGlob(path: string): { dir: string; pattern?: string } {
  if (!/[*?[{]/.test(path)) return { dir: path };
  const parts = path.split("/");
  const firstGlob = parts.findIndex((p) => /[*?[{]/.test(p));
  const dir = parts.slice(0, firstGlob).join("/") || (path.startsWith("/") ? "/" : ".");
  return { dir, pattern: parts.slice(firstGlob).join("/") };
}
