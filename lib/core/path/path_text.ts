// POSIX path arithmetic: the POSIX PathRules (path_rules.ts) and ssh:// paths, always POSIX. Pure.

import { posix } from "node:path";

export function joinPath(base: string, relative: string): string {
  return posix.resolve(base, relative);
}

export function parentPath(path: string): string {
  return posix.dirname(path);
}

export function baseName(path: string): string {
  return posix.basename(path);
}

/** `a/b` relative to `root`, or the absolute path when it is outside `root`. */
export function relativeTo(root: string, path: string): string {
  const rel = posix.relative(root, path);
  return rel === "" ? "." : rel.startsWith("..") ? path : rel;
}

export function isAbsolutePath(path: string): boolean {
  return path.startsWith("/");
}

/**
 * `text` without its trailing run of `char` (one character). A loop, not /x+$/: V8 retries that
 * regex at every start inside a long run, which is quadratic on hostile input.
 */
export function stripTrailing(text: string, char: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === char) end--;
  return text.slice(0, end);
}
