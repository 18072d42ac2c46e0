// The `pattern` filter of view: ripgrep's `-g` glob grammar (*, **, ?, [abc], {a,b}, leading `!`
// exclusions) with `|` between ordered globs where later ones win. Validation happens before any
// walking and every error says what to change. Pure: strings in, a matcher out.

import { AnchorError } from "../errors.ts";
import { type CallFormatter, guide } from "../next_step.ts";
import { compileGeneratedRegex, type LinearMatcher } from "./linear_regex.ts";

export const GLOB_LIMITS = { bytes: 4096, rules: 64, braceDepth: 16 } as const;

export interface GlobRule {
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
  call: CallFormatter = (args) => JSON.stringify(args),
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
export function globRegex(glob: string): LinearMatcher | null {
  try {
    return compileGeneratedRegex(`^${translate(glob, glob)}$`);
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
  const braces: { alternativeEmpty: boolean }[] = [];
  const markContent = () => {
    const top = braces[braces.length - 1];
    if (top) top.alternativeEmpty = false;
  };
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "\\") {
      const next = glob[i + 1];
      if (next === undefined) {
        throw globError(
          pattern,
          `${JSON.stringify(glob)} ends with a lone backslash.`,
          "Remove the trailing \\ or escape it as \\\\.",
        );
      }
      out += escapeChar(next);
      markContent();
      i++;
      continue;
    }
    if (c === "#") {
      throw globError(
        pattern,
        `${JSON.stringify(glob)} has an unescaped # (gitignore-style files read it as a comment).`,
        "Escape it as \\# to match a literal #.",
      );
    }
    if (c === "*") {
      markContent();
      if (glob[i + 1] === "*") {
        const atStart = i === 0 || glob[i - 1] === "/";
        const after = glob[i + 2];
        if (atStart && after === "/") {
          out += "(?:[^/]*/)*"; // `**/`: zero or more directories
          i += 2;
          continue;
        }
        if (atStart && after === undefined) {
          out += ".*"; // `dir/**` or `**`: everything below
          i += 1;
          continue;
        }
        out += "[^/]*"; // `**` inside a name behaves like `*`, as in ripgrep
        i += 1;
        continue;
      }
      out += "[^/]*";
      continue;
    }
    if (c === "?") {
      out += "[^/]";
      markContent();
      continue;
    }
    if (c === "[") {
      const { regex, end } = translateClass(pattern, glob, i);
      out += regex;
      i = end;
      markContent();
      continue;
    }
    if (c === "{") {
      braces.push({ alternativeEmpty: true });
      if (braces.length > GLOB_LIMITS.braceDepth) {
        throw globError(
          pattern,
          `braces are nested more than ${GLOB_LIMITS.braceDepth} deep.`,
          "Flatten the alternatives: {a,b,c} instead of {a,{b,{c}}}.",
        );
      }
      out += "(?:";
      continue;
    }
    if (c === "," && braces.length > 0) {
      if (braces[braces.length - 1]!.alternativeEmpty) throw emptyAlternative(pattern, glob);
      braces[braces.length - 1]!.alternativeEmpty = true;
      out += "|";
      continue;
    }
    if (c === "}" && braces.length > 0) {
      if (braces.pop()!.alternativeEmpty) throw emptyAlternative(pattern, glob);
      out += ")";
      markContent();
      continue;
    }
    out += escapeChar(c);
    markContent();
  }
  if (braces.length > 0) {
    throw globError(
      pattern,
      `${JSON.stringify(glob)} has a { without its closing }.`,
      "Close the brace ({a,b}) or escape it as \\{.",
    );
  }
  return out;
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
