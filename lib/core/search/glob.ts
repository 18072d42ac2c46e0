// The `pattern` filter of view: ripgrep's `-g` glob grammar (*, **, ?, [abc], {a,b}, leading `!`
// exclusions) with `|` between ordered globs where later ones win. Validation happens before any
// walking and every error says what to change. Pure: strings in, a matcher out.

import { AnchorError } from "../errors.ts";
import { type CallFormatter, guide, viewArgExample } from "../next_step.ts";
import { compileGeneratedRegex, type LinearMatcher } from "./linear_regex.ts";

const GLOB_LIMITS = { bytes: 4096, rules: 64, braceDepth: 16 } as const;

interface GlobRule {
  /** The rule as written (without the leading `!`). */
  source: string;
  exclude: boolean;
  /** A trailing `/`: the rule only matches directories. */
  dirOnly: boolean;
  /** No `/` in the glob: it is matched against the entry's name at any depth. */
  matchName: boolean;
  /** Linear-time: a glob like `*a*a*a*a*b` must not backtrack for minutes on a long name. */
  regex: LinearMatcher;
}

/** A compiled `pattern`: decides which files to keep and which directories to skip. */
export class GlobFilter {
  readonly hasIncludes: boolean;

  constructor(readonly source: string, readonly rules: readonly GlobRule[]) {
    this.hasIncludes = rules.some((r) => !r.exclude);
  }

  /** The last rule matching `relPath` (relative to the searched root, "/"-separated), if any. */
  private lastMatch(relPath: string, isDir: boolean): GlobRule | undefined {
    const name = relPath.slice(relPath.lastIndexOf("/") + 1);
    for (let i = this.rules.length - 1; i >= 0; i--) {
      const rule = this.rules[i]!;
      if (rule.dirOnly && !isDir) continue;
      if (rule.regex.test(rule.matchName ? name : relPath)) return rule;
    }
    return undefined;
  }

  /** Whether a file is kept: the last matching glob decides; with includes, unmatched files go. */
  keepsFile(relPath: string): boolean {
    const rule = this.lastMatch(relPath, false);
    return rule ? !rule.exclude : !this.hasIncludes;
  }

  /** Whether to descend into a directory: only an exclusion (`!dir`) prunes it, as in ripgrep. */
  keepsDir(relPath: string): boolean {
    const rule = this.lastMatch(relPath, true);
    return !rule || !rule.exclude;
  }
}

function globError(pattern: string, problem: string, fix: string): AnchorError {
  return new AnchorError({
    code: "INVALID_PATTERN",
    message: `pattern ${JSON.stringify(pattern)} is not a valid glob: ${problem}`,
    hint: `${fix} Grammar: * ? [abc] {a,b} ** , a leading ! excludes, | separates globs ` +
      "(later ones win)",
  });
}

/**
 * Validates and compiles a `pattern`; throws INVALID_PATTERN naming what to change. `call`
 * renders the example call in hints (the view op names the tool and the path).
 */
export function compileGlobs(
  pattern: string,
  call: CallFormatter = viewArgExample,
): GlobFilter {
  try {
    return compileGlobsWith(pattern);
  } catch (e) {
    if (!(e instanceof AnchorError) || e.code !== "INVALID_PATTERN") throw e;
    throw new AnchorError({
      code: e.code,
      message: e.message,
      hint: guide`${e.hintText ?? ""}, e.g. ${call({ pattern: "*.ts|!*_test.ts" })}.`,
    });
  }
}

function compileGlobsWith(pattern: string): GlobFilter {
  if (/[\r\n]/.test(pattern)) {
    throw globError(
      pattern,
      "it spans several lines.",
      "Put every glob on one line and separate them with |.",
    );
  }
  const bytes = new TextEncoder().encode(pattern).length;
  if (bytes > GLOB_LIMITS.bytes) {
    throw globError(
      pattern.slice(0, 60) + "…",
      `it is ${bytes} bytes long; the limit is ${GLOB_LIMITS.bytes}.`,
      "Shorten it: use a directory path or broader globs such as *.ts instead of listing names.",
    );
  }
  const pieces = splitRules(pattern);
  if (pieces.length > GLOB_LIMITS.rules) {
    throw globError(
      pattern,
      `it has ${pieces.length} globs; the limit is ${GLOB_LIMITS.rules}.`,
      "Merge globs with braces ({a,b,c}) or use fewer, broader ones.",
    );
  }
  return new GlobFilter(pattern, pieces.map((piece) => compileRule(pattern, piece)));
}

/** Splits on `|` outside braces and brackets, honouring `\` escapes. */
function splitRules(pattern: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let inClass = false;
  let start = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    if (c === "[") inClass = true;
    else if (c === "{") depth++;
    else if (c === "}" && depth > 0) depth--;
    else if (c === "|" && depth === 0) {
      out.push(pattern.slice(start, i));
      start = i + 1;
    }
  }
  out.push(pattern.slice(start));
  return out.map((p) => p.trim());
}

function compileRule(pattern: string, piece: string): GlobRule {
  let glob = piece;
  const exclude = glob.startsWith("!");
  if (exclude) glob = glob.slice(1);
  if (glob === "") {
    throw globError(
      pattern,
      exclude ? "a `!` has no glob after it." : "it contains an empty glob (|| or a | at an end).",
      exclude ? "Write the glob to exclude after the !, e.g. !*.min.js." : "Remove the extra |.",
    );
  }
  const source = glob;
  let dirOnly = false;
  if (glob.length > 1 && glob.endsWith("/") && !glob.endsWith("\\/")) {
    dirOnly = true;
    glob = glob.slice(0, -1);
  }
  let anchored = false;
  if (glob.startsWith("/")) {
    anchored = true;
    glob = glob.slice(1);
  }
  const matchName = !anchored && !hasUnescapedSlash(glob);
  const body = translate(pattern, glob);
  let regex: LinearMatcher;
  try {
    regex = compileGeneratedRegex(`^${body}$`);
  } catch (e) {
    throw globError(
      pattern,
      `${JSON.stringify(glob)} cannot be compiled (${(e as Error).message}).`,
      "Check character ranges: [a-z] needs the smaller character first.",
    );
  }
  return { source, exclude, dirOnly, matchName, regex };
}

/**
 * The anchored regular expression for one glob in this grammar (no `!`, `|` or trailing `/`
 * handling), or null when it is invalid. Used by the gitignore rules, which share `*`, `**`, `?`,
 * classes and escapes (the caller escapes what gitignore treats literally: braces and `#`).
 */
export function globRegex(glob: string, ignoreCase = false): LinearMatcher | null {
  try {
    return compileGeneratedRegex(`^${translate(glob, glob)}$`, ignoreCase);
  } catch {
    return null;
  }
}

export function hasUnescapedSlash(glob: string): boolean {
  for (let i = 0; i < glob.length; i++) {
    if (glob[i] === "\\") i++;
    else if (glob[i] === "/") return true;
  }
  return false;
}

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\/-]/;

function escapeChar(c: string): string {
  return REGEX_SPECIAL.test(c) ? `\\${c}` : c;
}

/** Translates one glob (no `!`, no `|`) into a regular-expression body. */
function translate(pattern: string, glob: string): string {
  let out = "";
  const braces = new BraceGroups(pattern, glob);
  for (let i = 0; i < glob.length; i++) {
    const piece = braces.translate(glob[i]!, i) ?? translatePiece(pattern, glob, i);
    out += piece.regex;
    i = piece.end;
    if (piece.content) braces.markContent();
  }
  braces.assertClosed();
  return out;
}

/**
 * One translated piece of a glob: its regex, the index of the last glob character it used, and
 * whether it is content (a brace's current alternative is no longer empty after it).
 */
interface Piece {
  readonly regex: string;
  readonly end: number;
  readonly content: boolean;
}

/** The piece starting at `i` for everything but braces: escapes, wildcards, classes, literals. */
function translatePiece(pattern: string, glob: string, i: number): Piece {
  const c = glob[i]!;
  switch (c) {
    case "\\":
      return { regex: escapeChar(escapedChar(pattern, glob, i)), end: i + 1, content: true };
    case "#":
      throw globError(
        pattern,
        `${JSON.stringify(glob)} has an unescaped # (gitignore-style files read it as a comment).`,
        "Escape it as \\# to match a literal #.",
      );
    case "*":
      return translateStar(glob, i);
    case "?":
      return { regex: "[^/]", end: i, content: true };
    case "[":
      return { ...translateClass(pattern, glob, i), content: true };
    default:
      return { regex: escapeChar(c), end: i, content: true };
  }
}

/** The character a backslash at `i` escapes (a lone trailing backslash is an error). */
function escapedChar(pattern: string, glob: string, i: number): string {
  const next = glob[i + 1];
  if (next !== undefined) return next;
  throw globError(
    pattern,
    `${JSON.stringify(glob)} ends with a lone backslash.`,
    "Remove the trailing \\ or escape it as \\\\.",
  );
}

/** `*` or `**` at `i`: a `**` only spans directories as a whole path segment, as in ripgrep. */
function translateStar(glob: string, i: number): Piece {
  if (glob[i + 1] !== "*") return { regex: "[^/]*", end: i, content: true };
  const atStart = i === 0 || glob[i - 1] === "/";
  const after = glob[i + 2];
  // `**/`: zero or more directories
  if (atStart && after === "/") return { regex: "(?:[^/]*/)*", end: i + 2, content: true };
  // `dir/**` or `**`: everything below
  if (atStart && after === undefined) return { regex: ".*", end: i + 1, content: true };
  // `**` inside a name behaves like `*`
  return { regex: "[^/]*", end: i + 1, content: true };
}

/**
 * The `{a,b}` groups open while a glob is translated. Each remembers whether its current
 * alternative is still empty, because `{a,}` would silently make a part optional.
 */
class BraceGroups {
  readonly #open: { alternativeEmpty: boolean }[] = [];

  constructor(readonly pattern: string, readonly glob: string) {}

  /** The piece for a `{` at `i`, or a `,` or `}` inside a group; undefined for anything else. */
  translate(c: string, i: number): Piece | undefined {
    if (c === "{") {
      this.#open.push({ alternativeEmpty: true });
      if (this.#open.length > GLOB_LIMITS.braceDepth) {
        throw globError(
          this.pattern,
          `braces are nested more than ${GLOB_LIMITS.braceDepth} deep.`,
          "Flatten the alternatives: {a,b,c} instead of {a,{b,{c}}}.",
        );
      }
      return { regex: "(?:", end: i, content: false };
    }
    const top = this.#open[this.#open.length - 1];
    if (!top || (c !== "," && c !== "}")) return undefined;
    if (top.alternativeEmpty) throw emptyAlternative(this.pattern, this.glob);
    if (c === ",") {
      top.alternativeEmpty = true; // the next alternative starts empty
      return { regex: "|", end: i, content: false };
    }
    // The group's closing makes it content of the group around it.
    this.#open.pop();
    return { regex: ")", end: i, content: true };
  }

  /** A piece of content was added: the innermost group's current alternative is not empty. */
  markContent(): void {
    const top = this.#open[this.#open.length - 1];
    if (top) top.alternativeEmpty = false;
  }

  /** Every group opened was closed. */
  assertClosed(): void {
    if (this.#open.length === 0) return;
    throw globError(
      this.pattern,
      `${JSON.stringify(this.glob)} has a { without its closing }.`,
      "Close the brace ({a,b}) or escape it as \\{.",
    );
  }
}

function emptyAlternative(pattern: string, glob: string): AnchorError {
  return globError(
    pattern,
    `${JSON.stringify(glob)} has an empty alternative in braces ({} , {a,} or {a,,b}).`,
    "Remove the empty alternative, e.g. {a,b} instead of {a,,b}; to make a part optional " +
      "write both globs: x.ts|x.test.ts.",
  );
}

/** Translates `[...]` starting at `start`; classes never match `/`. */
function translateClass(
  pattern: string,
  glob: string,
  start: number,
): { regex: string; end: number } {
  let i = start + 1;
  let negate = false;
  if (glob[i] === "!" || glob[i] === "^") {
    negate = true;
    i++;
  }
  let body = "";
  let first = true;
  for (; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "]" && !first) {
      if (body === "") break;
      return { regex: negate ? `[^/${body}]` : `[${body}]`, end: i };
    }
    first = false;
    if (c === "\\" && i + 1 < glob.length) {
      body += `\\${glob[++i]}`;
      continue;
    }
    if (c === "-" && body !== "" && glob[i + 1] !== "]") {
      body += "-";
      continue;
    }
    body += /[\]\\^[-]/.test(c) ? `\\${c}` : c;
  }
  throw globError(
    pattern,
    `${JSON.stringify(glob)} has a [ without its closing ].`,
    "Close the character class ([abc]) or escape the bracket as \\[.",
  );
}
