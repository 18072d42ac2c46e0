// Gitignore semantics for the walker: a chain of rule sets, one per directory that has a
// .gitignore (plus .git/info/exclude at the repository root). Within a file the last matching
// rule wins; deeper files are consulted after shallower ones, so their rules (negations included)
// win, as in git. Pure: texts in, answers out. Rules compile to one regular expression each
// (sharing the glob translator), which is several times faster per entry than a general library
// on large trees; tests/core/search/ignore_rules_test.ts checks it against the `ignore` package.
// A repository whose config says `core.ignorecase = true` gets its rules matched without case, as
// git matches them (the walker reads that setting: lib/core/search/git_config.ts).

import { globRegex, hasUnescapedSlash } from "./glob.ts";
import type { LinearMatcher } from "./linear_regex.ts";
import { stripTrailing } from "../path/path_text.ts";

interface IgnoreRule {
  negate: boolean;
  dirOnly: boolean;
  /** No slash in the pattern: it matches the entry's name at any depth below the base. */
  byName: boolean;
  regex: LinearMatcher;
  /** 1-based line of the ignore file, and the pattern as written there (for explanations). */
  line: number;
  text: string;
  /** The rule's test: the regex, or a string comparison with the same answers (see fastTest). */
  test: (text: string) => boolean;
}

interface IgnoreLevel {
  /** Absolute directory the rules are relative to, with a trailing slash. */
  prefix: string;
  rules: IgnoreRule[];
  /** The ignore file the rules come from, when the caller named it. */
  source?: string;
}

/** Which rule made `ignores` answer true: its file, line and pattern as written. */
export interface IgnoreReason {
  source?: string;
  line: number;
  pattern: string;
}

// Exported for tests.
/**
 * Parses the text of a .gitignore (or info/exclude) file into rules; invalid lines are skipped.
 * `ignoreCase`: the rules match names without case (git's `core.ignorecase`).
 */
export function parseIgnoreFile(text: string, ignoreCase = false): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  const lines = text.split(/\r?\n/);
  for (let n = 0; n < lines.length; n++) {
    let line = trimUnescapedTrailingSpace(lines[n]!);
    const written = line;
    if (line === "" || line.startsWith("#")) continue;
    let negate = false;
    if (line.startsWith("!")) {
      negate = true;
      line = line.slice(1);
    }
    let dirOnly = false;
    if (line.endsWith("/") && !line.endsWith("\\/")) {
      dirOnly = true;
      line = stripTrailing(line, "/");
    }
    if (line === "") continue;
    // A slash at the start or in the middle anchors the pattern to the file's directory.
    const byName = !hasUnescapedSlash(line);
    if (line.startsWith("/")) line = line.slice(1);
    // Braces, commas and # are ordinary characters in gitignore patterns.
    const glob = line.replace(/(?<!\\)([{},#])/g, "\\$1");
    const regex = globRegex(glob, ignoreCase);
    if (regex) {
      rules.push({
        negate,
        dirOnly,
        byName,
        regex,
        line: n + 1,
        text: written,
        test: fastTest(line, byName, ignoreCase) ?? ((t) => regex.test(t)),
      });
    }
  }
  return rules;
}

/**
 * Most ignore lines are a plain name (`node_modules`), `*.ext` or `prefix*`: for those a string
 * comparison gives the glob regex's answer (`*` is `[^/]*`, and the name a by-name rule tests
 * has no `/`; an anchored rule without a star compares the whole relative path) at a fraction of
 * its cost per entry. Null for anything else: `?`, classes, escapes, more stars, anchored stars.
 */
function fastTest(
  line: string,
  byName: boolean,
  ignoreCase: boolean,
): ((text: string) => boolean) | null {
  const special = /[?[\\*]/;
  const star = line.startsWith("*") ? 0 : line.endsWith("*") ? line.length - 1 : -1;
  const rest = star === 0 ? line.slice(1) : star > 0 ? line.slice(0, -1) : line;
  if (special.test(rest)) return null;
  if (ignoreCase) {
    // Lower-casing both sides gives the regex's `i` answer for text whose lower case keeps its
    // length (not `İ`): keep the fast path to those patterns.
    const folded = rest.toLowerCase();
    if (folded.length !== rest.length) return null;
    const n = folded.length;
    if (star === -1) return (text) => text.length === n && foldedAt(text, 0, folded);
    if (!byName) return null;
    return star === 0
      ? (text) => text.length >= n && foldedAt(text, text.length - n, folded)
      : (text) => text.length >= n && foldedAt(text, 0, folded);
  }
  if (star === -1) return (text) => text === rest;
  if (!byName) return null; // an anchored `*` would have to stop at a slash
  return star === 0 ? (text) => text.endsWith(rest) : (text) => text.startsWith(rest);
}

/**
 * Whether `text` from `at` reads `folded` (lower case) without case: ASCII compared in place, so
 * a name costs no new string per rule; anything else through toLowerCase of that part.
 */
function foldedAt(text: string, at: number, folded: string): boolean {
  for (let i = 0; i < folded.length; i++) {
    let c = text.charCodeAt(at + i);
    if (c > 127) return text.slice(at, at + folded.length).toLowerCase() === folded;
    if (c >= 65 && c <= 90) c += 32;
    if (c !== folded.charCodeAt(i)) return false;
  }
  return true;
}

/** An immutable chain of ignore levels; `with` returns a longer chain for a subdirectory. */
export class IgnoreChain {
  static readonly EMPTY = new IgnoreChain([], false);

  private constructor(
    private readonly levels: readonly IgnoreLevel[],
    /** Whether levels added from now on match without case (the repository's core.ignorecase). */
    readonly ignoreCase: boolean,
  ) {}

  get size(): number {
    return this.levels.length;
  }

  /**
   * This chain, with the ignore files added from now on matched with or without case: entering a
   * repository sets its `core.ignorecase` (levels already in the chain keep theirs).
   */
  withIgnoreCase(ignoreCase: boolean): IgnoreChain {
    return ignoreCase === this.ignoreCase ? this : new IgnoreChain(this.levels, ignoreCase);
  }

  /**
   * Adds the rules of an ignore file that applies below `base` (absolute path); `source` names
   * the file in explanations.
   */
  with(base: string, text: string, source?: string): IgnoreChain {
    const rules = parseIgnoreFile(text, this.ignoreCase);
    if (rules.length === 0) return this;
    const trimmed = base.length > 1 && base.endsWith("/") ? base.slice(0, -1) : base;
    const prefix = trimmed === "/" ? "/" : `${trimmed}/`;
    const level: IgnoreLevel = source === undefined ? { prefix, rules } : { prefix, rules, source };
    return new IgnoreChain([...this.levels, level], this.ignoreCase);
  }

  /**
   * The chain's rules for the entries of one directory (`dir` absolute, with `/`): the levels that
   * apply there and each one's path from its base, settled once, so that each entry costs only
   * its rules' tests (no prefix check, slice or path per entry and level). Its answers are those
   * of `ignores` for `${dir}/${name}`.
   */
  forDir(dir: string): DirIgnores {
    const base = dir.endsWith("/") ? dir : `${dir}/`;
    const levels: { relDir: string; rules: IgnoreRule[] }[] = [];
    for (const level of this.levels) {
      if (base.startsWith(level.prefix)) {
        levels.push({ relDir: base.slice(level.prefix.length), rules: level.rules });
      }
    }
    return new DirIgnores(levels);
  }

  /**
   * The rule that ignores the entry at `path`, or null when it is not ignored: the same decision
   * as `ignores`, for the few entries an empty result names.
   */
  explain(path: string, isDir: boolean): IgnoreReason | null {
    const decided = this.decidingRule(path, isDir, path.slice(path.lastIndexOf("/") + 1));
    if (decided === null || decided.rule.negate) return null;
    return {
      ...(decided.level.source !== undefined && { source: decided.level.source }),
      line: decided.rule.line,
      pattern: decided.rule.text,
    };
  }

  /**
   * Whether the entry at `path` (absolute; `name` is its last component) is ignored; the last
   * level with an opinion wins.
   */
  ignores(path: string, isDir: boolean, name = path.slice(path.lastIndexOf("/") + 1)): boolean {
    const decided = this.decidingRule(path, isDir, name);
    return decided !== null && !decided.rule.negate;
  }

  /** The rule that decides `path` (the last matching rule of the last level with one), or null. */
  private decidingRule(
    path: string,
    isDir: boolean,
    name: string,
  ): { rule: IgnoreRule; level: IgnoreLevel } | null {
    let rule: IgnoreRule | undefined;
    let level: IgnoreLevel | undefined;
    for (const candidate of this.levels) {
      const prefix = candidate.prefix;
      if (path.length <= prefix.length || !path.startsWith(prefix)) continue;
      const rel = path.slice(prefix.length);
      const rules = candidate.rules;
      for (let i = rules.length - 1; i >= 0; i--) {
        const r = rules[i]!;
        if (r.dirOnly && !isDir) continue;
        if (r.test(r.byName ? name : rel)) {
          rule = r;
          level = candidate;
          break;
        }
      }
    }
    // One object per decided entry only (most entries match no rule).
    return rule && level ? { rule, level } : null;
  }
}

/** IgnoreChain.forDir: the rules that apply to the entries of one directory. */
export class DirIgnores {
  constructor(private readonly levels: readonly { relDir: string; rules: IgnoreRule[] }[]) {}

  /** Levels that apply here: 0 means no entry of this directory is ignored. */
  get size(): number {
    return this.levels.length;
  }

  /**
   * Whether the entry `name` of the directory is ignored: the last level with a matching rule
   * decides (deeper files win, as in IgnoreChain.ignores), so the levels are tried from the last.
   */
  ignores(name: string, isDir: boolean): boolean {
    for (let l = this.levels.length - 1; l >= 0; l--) {
      const { relDir, rules } = this.levels[l]!;
      for (let i = rules.length - 1; i >= 0; i--) {
        const r = rules[i]!;
        if (r.dirOnly && !isDir) continue;
        if (r.test(r.byName ? name : relDir + name)) return !r.negate;
      }
    }
    return false;
  }
}

/**
 * Drops trailing whitespace unless escaped (`a\\ ` keeps one space), as git does. A loop, not
 * /(?<!\\)\s+$/: that regex is quadratic on a long run of spaces followed by other text.
 */
function trimUnescapedTrailingSpace(line: string): string {
  let end = line.length;
  while (end > 0 && /\s/.test(line[end - 1]!)) end--;
  if (end === line.length) return line;
  return end > 0 && line[end - 1] === "\\" ? line.slice(0, end + 1) : line.slice(0, end);
}
