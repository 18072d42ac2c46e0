// Gitignore semantics for the walker: a chain of rule sets, one per directory that has a
// .gitignore (plus .git/info/exclude at the repository root). Deeper files are consulted after
// shallower ones, so their rules (negations included) win, as in git. Pure: texts in, answers out.

import ignore, { type Ignore } from "ignore";

interface IgnoreLevel {
  /** Absolute directory the rules are relative to. */
  base: string;
  matcher: Ignore;
}

/** An immutable chain of ignore levels; `with` returns a longer chain for a subdirectory. */
export class IgnoreChain {
  static readonly EMPTY = new IgnoreChain([]);

  private constructor(private readonly levels: readonly IgnoreLevel[]) {}

  get size(): number {
    return this.levels.length;
  }

  /** Adds the rules of an ignore file that applies below `base` (absolute path). */
  with(base: string, text: string): IgnoreChain {
    const lines = text.split(/\r?\n/);
    if (!lines.some((l) => l.trim() !== "" && !l.startsWith("#"))) return this;
    const matcher = ignore({ allowRelativePaths: true }).add(lines);
    return new IgnoreChain([...this.levels, { base: trimSlash(base), matcher }]);
  }

  /** Whether the entry at `path` (absolute) is ignored; the last level with an opinion wins. */
  ignores(path: string, isDir: boolean): boolean {
    let ignored = false;
    for (const level of this.levels) {
      const prefix = level.base === "/" ? "/" : `${level.base}/`;
      if (!path.startsWith(prefix)) continue;
      const rel = path.slice(prefix.length);
      if (rel === "") continue;
      const result = level.matcher.test(isDir ? `${rel}/` : rel);
      if (result.ignored) ignored = true;
      else if (result.unignored) ignored = false;
    }
    return ignored;
  }
}

function trimSlash(path: string): string {
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}
