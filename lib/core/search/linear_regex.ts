// Linear-time matching for regular expressions that come from outside (search content, globs,
// .gitignore lines): RE2 syntax, run by re2js (a pure-JS port of RE2: no backtracking) or by V8's
// own RegExp only where V8 is provably linear too. Pure: no Deno APIs.

import { RE2JS } from "re2js";

/** A compiled matcher; `engine` says which engine runs it (for tests and benchmarks). */
export interface LinearMatcher {
  test(text: string): boolean;
  /** Where the first match lies, `[start, end)` in UTF-16 units; null without one. */
  find(text: string): [number, number] | null;
  readonly engine: "v8" | "re2";
  /** How to build the same matcher elsewhere (the search's worker threads): matcherFromRecipe. */
  readonly recipe: MatcherRecipe;
}

/** A compiled matcher as data: a V8 RegExp's source and flags, or re2js's pattern and flag bits. */
export type MatcherRecipe =
  | { engine: "v8"; source: string; flags: string }
  | { engine: "re2"; source: string; flags: number };

/**
 * The matcher a recipe describes: `test`, and `find` (the first match, `[start, end)` in UTF-16
 * units). Self-contained on purpose (the parallel scanner ships its source text to worker
 * threads): re2js is passed in, and needed only for "re2" recipes.
 */
export function matcherFromRecipe(
  recipe: MatcherRecipe,
  re2: {
    compile(source: string, flags: number): {
      test(text: string): boolean;
      matcher(text: string): { find(): boolean; start(): number; end(): number };
    };
  } | null,
): { test(text: string): boolean; find(text: string): [number, number] | null } {
  if (recipe.engine === "v8") {
    const regex = new RegExp(recipe.source, recipe.flags);
    return {
      test: (text) => regex.test(text),
      find: (text) => {
        const m = regex.exec(text);
        return m ? [m.index, m.index + m[0].length] : null;
      },
    };
  }
  if (!re2) throw new Error("re2js is not available");
  const compiled = re2.compile(recipe.source, recipe.flags);
  return {
    test: (text) => compiled.test(text),
    find: (text) => {
      const m = compiled.matcher(text);
      return m.find() ? [m.start(), m.end()] : null;
    },
  };
}

interface RegexFlags {
  ignoreCase?: boolean;
  /** `.` matches `\n` too. */
  dotAll?: boolean;
  /** `^` and `$` match at line starts and ends. */
  multiline?: boolean;
}

// Exported for tests.
/**
 * Whether this process runs V8 with its experimental linear engine (`--enable-experimental-regexp
 * -engine`, which makes the `l` flag compile). Our launch paths (deno.json tasks, compiled
 * binaries) pass it together with `--enable-experimental-regexp-engine-on-excessive-backtracks`,
 * which makes V8 switch a backtracking match to the linear engine instead of running away.
 */
export const v8LinearFallback: boolean = (() => {
  const linearFlag = "l"; // a variable: the flag is unknown to linters and to plain V8
  try {
    new RegExp("a", linearFlag);
    return true;
  } catch {
    return false;
  }
})();

/**
 * Compiles an RE2-syntax pattern written by a user. Throws the RE2 parser's error (an Error with
 * its message) when the pattern is not valid RE2. V8 runs it only when that is linear: patterns
 * without repetition (time ~ text × pattern), or, with the linear fallback on, patterns V8's
 * linear engine accepts (no `i`: that engine cannot fold case). Everything else runs on re2js.
 */
export function compileUserRegex(body: string, flags: RegexFlags = {}): LinearMatcher {
  const re2 = compileRe2(body, flags);
  const js = jsEquivalent(body, flags.dotAll === true);
  if (js !== null) {
    const jsFlags = (flags.ignoreCase ? "i" : "") + (flags.dotAll ? "s" : "") +
      (flags.multiline ? "m" : "");
    if (!js.repeats) {
      const v8 = tryRegExp(js.source, jsFlags + "u");
      if (v8) return v8Matcher(v8);
    } else if (v8LinearFallback && !flags.ignoreCase && tryRegExp(js.source, jsFlags + "l")) {
      const v8 = tryRegExp(js.source, jsFlags);
      if (v8) return v8Matcher(v8);
    }
  }
  return re2Matcher(re2, body, flags);
}

/**
 * Compiles a regex we generated ourselves (glob translations: `[^/]*`, `(?:…|…)`, escaped
 * punctuation; the same meaning in JavaScript and RE2). V8 takes it when its worst case is
 * small (at most two stars, two globstars and four alternations) or when the linear fallback
 * covers it; otherwise re2js (`*a*a*a*a*b` is polynomial of high degree under backtracking).
 * `ignoreCase`: letters match either case (gitignore rules of a `core.ignorecase` repository).
 */
export function compileGeneratedRegex(source: string, ignoreCase = false): LinearMatcher {
  // `**/` becomes `(?:[^/]*/)*`: each turn must end at a `/` that `[^/]*` cannot cross, so one
  // of them is unambiguous; several in a row are not.
  const globstars = source.split(GLOBSTAR).length - 1;
  const rest = source.replaceAll(GLOBSTAR, "");
  const stars = countUnescaped(rest, "*") + countUnescaped(rest, "+");
  const alternations = countUnescaped(rest, "|");
  const cheap = stars <= 2 && globstars <= 2 && alternations <= 4;
  // V8's linear engine cannot fold case: with `ignoreCase` only a cheap pattern runs on V8.
  if (cheap || (!ignoreCase && v8LinearFallback && tryRegExp(source, "sl"))) {
    const v8 = tryRegExp(source, ignoreCase ? "si" : "s");
    if (v8) return v8Matcher(v8);
  }
  const flags = { dotAll: true, ignoreCase };
  return re2Matcher(compileRe2(source, flags), source, flags);
}

const GLOBSTAR = "(?:[^/]*/)*";

function v8Matcher(regex: RegExp): LinearMatcher {
  return {
    engine: "v8",
    test: (text) => regex.test(text),
    find: (text) => {
      const m = regex.exec(text);
      return m ? [m.index, m.index + m[0].length] : null;
    },
    recipe: { engine: "v8", source: regex.source, flags: regex.flags },
  };
}

function re2Matcher(re2: RE2JS, source: string, flags: RegexFlags): LinearMatcher {
  return {
    engine: "re2",
    test: (text) => re2.test(text),
    find: (text) => {
      const m = re2.matcher(text);
      return m.find() ? [m.start(), m.end()] : null;
    },
    recipe: { engine: "re2", source, flags: re2Bits(flags) },
  };
}

function re2Bits(flags: RegexFlags): number {
  return (flags.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0) |
    (flags.dotAll ? RE2JS.DOTALL : 0) | (flags.multiline ? RE2JS.MULTILINE : 0) |
    RE2JS.LOOKBEHINDS;
}

function compileRe2(body: string, flags: RegexFlags): RE2JS {
  return RE2JS.compile(body, re2Bits(flags));
}

function tryRegExp(source: string, flags: string): RegExp | null {
  try {
    return new RegExp(source, flags);
  } catch {
    return null;
  }
}

function countUnescaped(source: string, char: string): number {
  let n = 0;
  for (let i = 0; i < source.length; i++) {
    if (source[i] === "\\") i++;
    else if (source[i] === char) n++;
  }
  return n;
}

/** Escapes after `\` that mean the same in RE2 and JavaScript. */
const SAME_ESCAPES = new Set(["d", "D", "w", "W", "b", "B", "t", "n", "r", "f", "v"]);
/** RE2's `\s` is ASCII whitespace; JavaScript's also matches NBSP, U+2028 and more. */
const RE2_SPACE = "\\t\\n\\f\\r ";

// Exported for tests.
/**
 * The JavaScript source with RE2's meaning for a conservative subset of RE2 (printable ASCII;
 * escapes, classes, groups and counted repeats whose meaning is the same in both), or null when
 * the pattern leaves that subset. `repeats` is whether it has any quantifier.
 */
export function jsEquivalent(
  body: string,
  dotAll: boolean,
): { source: string; repeats: boolean } | null {
  let out = "";
  let repeats = false;
  let inClass = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    const code = c.charCodeAt(0);
    if (code < 0x20 || code > 0x7e) return null;
    if (c === "\\") {
      const next = body[i + 1];
      if (next === undefined) return null;
      i++;
      if (next === "s") out += inClass ? RE2_SPACE : `[${RE2_SPACE}]`;
      else if (next === "S") {
        if (inClass) return null;
        out += `[^${RE2_SPACE}]`;
      } else if (SAME_ESCAPES.has(next)) {
        if (inClass && (next === "b" || next === "B")) return null; // [\b] is backspace in JS
        out += `\\${next}`;
      } else if (/[A-Za-z0-9]/.test(next)) return null;
      else out += `\\${next}`;
      continue;
    }
    if (inClass) {
      if (c === "[") return null; // [[:alpha:]] and nested classes differ
      if (c === "]") inClass = false;
      out += c;
      continue;
    }
    if (c === "[") {
      // RE2 reads `[]a]` and `[^]a]` as a class holding `]`; JavaScript as an empty class.
      const first = body[i + 1] === "^" ? body[i + 2] : body[i + 1];
      if (first === "]") return null;
      inClass = true;
      out += c;
      continue;
    }
    if (c === "(") {
      if (body[i + 1] === "?" && body[i + 2] !== ":") return null; // named groups, flags, looks
      out += c;
      continue;
    }
    if (c === ".") {
      out += dotAll ? "[\\s\\S]" : "[^\\n]";
      continue;
    }
    if (c === "{") {
      const counted = /^\{\d+(,\d*)?\}/.exec(body.slice(i));
      if (!counted) return null; // RE2 and JavaScript disagree on stray braces
      repeats = true;
      out += counted[0];
      i += counted[0].length - 1;
      continue;
    }
    if (c === "*" || c === "+" || c === "?") repeats = true;
    out += c;
  }
  return inClass ? null : { source: out, repeats };
}
