// Cheap answers a `pattern` allows before its regexes run: a file whose name no include glob can
// match (`**/package.json` wants that name, `*.ts` that ending), and a directory below which no
// include glob can match (`src/**/*.ts` only looks under `src`). Conservative: null or true when
// unsure, so the filter's own answer never changes. Pure.

import type { GlobFilter } from "./glob.ts";

export interface GlobShortcuts {
  /** False when no file of this name can be kept (the filter would drop it). */
  fileNameMayMatch(name: string): boolean;
  /** False when no file below this directory (relative path) can be kept: it need not be walked. */
  dirMayHold(relDir: string): boolean;
}

/** The shortcuts of `filter`, or null when it has none (no include glob: excludes decide). */
export function globShortcuts(filter: GlobFilter): GlobShortcuts | null {
  if (!filter.hasIncludes) return null;
  // Only include globs keep files, and directory-only ones never do.
  const includes = filter.rules.filter((r) => !r.exclude && !r.dirOnly);
  const nameTests: ((name: string) => boolean)[] = [];
  let anyName = false;
  const dirTests: string[][] = [];
  let anyDir = false;
  for (const rule of includes) {
    const glob = rule.source.startsWith("/") ? rule.source.slice(1) : rule.source;
    // Braces and classes may hold a `/`, escapes anything: no shortcut for such a glob.
    if (/[{[\\]/.test(glob)) {
      anyName = anyDir = true;
      continue;
    }
    const segments = glob.split("/");
    const test = nameTest(segments[segments.length - 1]!);
    if (test) nameTests.push(test);
    else anyName = true;
    if (rule.matchName) anyDir = true;
    else dirTests.push(segments);
  }
  return {
    fileNameMayMatch: anyName ? () => true : (name) => nameTests.some((t) => t(name)),
    dirMayHold: anyDir ? () => true : (relDir) => {
      const parts = relDir.split("/");
      return dirTests.some((segments) => mayHoldBelow(segments, parts));
    },
  };
}

/** The test a glob's last segment puts on a name: exact, `*suffix`, `prefix*`; else null. */
function nameTest(segment: string): ((name: string) => boolean) | null {
  if (segment.includes("?") || segment === "**") return null;
  const glob = segment.replace(/\*+/g, "*"); // `**` inside a name is `*`
  const stars = glob.split("*").length - 1;
  if (stars === 0) return (name) => name === glob;
  if (stars > 1) return null;
  if (glob.startsWith("*")) {
    const suffix = glob.slice(1);
    return (name) => name.endsWith(suffix);
  }
  if (glob.endsWith("*")) {
    const prefix = glob.slice(0, -1);
    return (name) => name.startsWith(prefix);
  }
  return null;
}

/**
 * Whether a path glob (its `/`-separated segments) can match a file below the directory `parts`:
 * literal segments must agree, a wildcard segment may, `**` reaches anywhere below, and a glob
 * without `**` ends at its own depth.
 */
function mayHoldBelow(segments: readonly string[], parts: readonly string[]): boolean {
  for (let i = 0; i < parts.length; i++) {
    const segment = segments[i]!;
    // Past the glob's directories only a trailing `**` reaches deeper.
    if (i === segments.length - 1) return segment === "**";
    if (segment === "**") return true;
    if (/[*?]/.test(segment)) continue;
    if (segment !== parts[i]) return false;
  }
  return true;
}
