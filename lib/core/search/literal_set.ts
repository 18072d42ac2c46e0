// The literals of which every match of an RE2-syntax pattern holds at least one (TODO, FIXME,
// XXX for `(TODO|FIXME|XXX):`), read from its syntax tree, for byte prefilters. Conservative:
// a construct not understood here gives no set, never a set some match lacks. Pure.

// Exported for tests.
/** Most literals in a set: each costs one pass of the finder over every file. */
export const MAX_LITERALS = 8;

/** Most strings an exact set may hold while concatenations multiply them out. */
const MAX_EXACT = 64;

/** What one piece of the pattern tells. */
interface Info {
  /** Every string the piece can match, when few ("" for an anchor or an absent `x?`). */
  exact: string[] | null;
  /** Literals of which every match of the piece holds one; null when none are known. */
  required: string[] | null;
}

/** A construct this reading does not know: the whole pattern gives no set. */
class Unknown extends Error {}

/**
 * Literals (lowercase with `ignoreCase`, where only ASCII letters other than k and s may fold:
 * the finder folds ASCII only, and Unicode folds the Kelvin sign to k and the long s to s) of
 * which every match of `body` holds one, at most MAX_LITERALS of at least 2 UTF-16 units each,
 * the cheapest set by `cost` (a literal's scan cost; a set costs the sum); null when none.
 *
 * @example
 * ```ts
 * import { literalSet } from "./literal_set.ts";
 *
 * literalSet("(TODO|FIXME|XXX):", false, (s) => -s.length); // ["TODO:", "FIXME:", "XXX:"]
 * literalSet("a|\\d+", false, (s) => -s.length); // null: a digit run holds no literal
 * ```
 */
export function literalSet(
  body: string,
  ignoreCase: boolean,
  cost: (literal: string) => number,
): string[] | null {
  // Flags past the start ((?i) makes the rest case-insensitive) and \Q…\E quoting: not read here.
  if (/\(\?[a-zA-Z-]+[):]/.test(body) || body.includes("\\Q")) return null;
  const p: Parser = { body, at: 0, ignoreCase, cost };
  try {
    const info = alternation(p);
    if (p.at !== body.length) return null;
    return best(p, [info.required, usable(info.exact)]);
  } catch (error) {
    if (error instanceof Unknown) return null;
    throw error;
  }
}

interface Parser {
  body: string;
  at: number;
  ignoreCase: boolean;
  cost: (literal: string) => number;
}

/** A set fit for a prefilter: few literals, none shorter than 2 (a 1-character one tells little). */
function usable(set: string[] | null): string[] | null {
  if (set === null || set.length === 0 || set.length > MAX_EXACT) return null;
  return set.every((s) => s.length >= 2) ? set : null;
}

/**
 * The set without literals that hold another one (a text holding `TODO:` holds `TODO`), or null
 * when more than MAX_LITERALS remain.
 */
function reduced(set: string[]): string[] | null {
  const unique = [...new Set(set)].sort((a, b) => a.length - b.length);
  const kept: string[] = [];
  for (const s of unique) if (!kept.some((k) => s.includes(k))) kept.push(s);
  return kept.length > MAX_LITERALS ? null : kept;
}

/** The cheapest usable candidate after reduction, or null. */
function best(p: Parser, candidates: (string[] | null)[]): string[] | null {
  let chosen: string[] | null = null;
  let chosenCost = Infinity;
  for (const candidate of candidates) {
    const set = candidate && usable(candidate) && reduced(candidate);
    if (!set) continue;
    const c = set.reduce((sum, s) => sum + p.cost(s), 0);
    if (c < chosenCost) {
      chosen = set;
      chosenCost = c;
    }
  }
  return chosen;
}

/** `seq | seq | …` up to a `)` or the end: each match is one alternative's. */
function alternation(p: Parser): Info {
  const branches: Info[] = [sequence(p)];
  while (p.body[p.at] === "|") {
    p.at++;
    branches.push(sequence(p));
  }
  if (branches.length === 1) return branches[0]!;
  let exact: string[] | null = [];
  let required: string[] | null = [];
  for (const b of branches) {
    exact = exact && b.exact && exact.length + b.exact.length <= MAX_EXACT
      ? [...exact, ...b.exact]
      : null;
    const own = best(p, [b.required, usable(b.exact)]);
    required = required && own ? [...required, ...own] : null;
  }
  return { exact: exact && [...new Set(exact)], required: required && reduced(required) };
}

/**
 * Atoms with their repeats, up to a `|`, a `)` or the end. Runs of atoms with exact sets are
 * multiplied out (`(a|b)c` matches `ac` or `bc`): each such run is a candidate, as is each other
 * atom's own set; the cheapest is kept.
 */
function sequence(p: Parser): Info {
  const candidates: (string[] | null)[] = [];
  let run: string[] = [""];
  let whole = true;
  while (p.at < p.body.length && p.body[p.at] !== "|" && p.body[p.at] !== ")") {
    const info = repeated(p, atom(p));
    if (info.exact === null) {
      candidates.push(run, info.required);
      run = [""];
      whole = false;
      continue;
    }
    if (run.length * info.exact.length > MAX_EXACT) {
      candidates.push(run);
      run = info.exact;
      whole = false;
      continue;
    }
    run = run.flatMap((a) => info.exact!.map((b) => a + b));
  }
  candidates.push(run);
  return { exact: whole ? [...new Set(run)] : null, required: best(p, candidates) };
}

/** The atom with the quantifier after it, if any. */
function repeated(p: Parser, info: Info): Info {
  const c = p.body[p.at];
  let min = 1;
  let max = 1;
  if (c === "*") [min, max] = [0, Infinity];
  else if (c === "+") [min, max] = [1, Infinity];
  else if (c === "?") [min, max] = [0, 1];
  else if (c === "{") {
    const counted = /^\{(\d+)(,(\d*))?\}/.exec(p.body.slice(p.at));
    // RE2 reads a `{` that starts no repeat as itself; not guessed at here.
    if (!counted) throw new Unknown();
    min = Number(counted[1]);
    max = counted[2] === undefined ? min : counted[3] === "" ? Infinity : Number(counted[3]);
    p.at += counted[0].length - 1;
  } else return info;
  p.at++;
  if (p.body[p.at] === "?") p.at++; // lazy: matches the same strings
  const after = p.body[p.at];
  if (after !== undefined && "*+?{".includes(after)) throw new Unknown(); // RE2: a repeated repeat
  if (min === 0) {
    // The atom may be absent: nothing is required of it.
    return { exact: max === 1 && info.exact ? [...info.exact, ""] : null, required: null };
  }
  if (min === 1 && max === 1) return info;
  // Present at least once: a match holds one of its literals.
  return { exact: null, required: best(p, [info.required, usable(info.exact)]) };
}

const OPAQUE: Info = { exact: null, required: null };
const EMPTY: Info = { exact: [""], required: null };

/** One atom: a group, a class, an escape, `.`, an anchor or a character. */
function atom(p: Parser): Info {
  const c = p.body[p.at]!;
  if (c === "(") return group(p);
  if (c === "[") return characterClass(p);
  if (c === "\\") return escape(p);
  if ("*+?{".includes(c)) throw new Unknown();
  if (c === "." || c === "^" || c === "$") {
    p.at++;
    return c === "." ? OPAQUE : EMPTY;
  }
  const point = String.fromCodePoint(p.body.codePointAt(p.at)!);
  p.at += point.length;
  return character(p, point);
}

/** A character as itself; with ignoreCase only ASCII letters the finder folds, lowercased. */
function character(p: Parser, c: string): Info {
  if (!p.ignoreCase) return { exact: [c], required: null };
  if (c.charCodeAt(0) > 0x7f || "ksKS".includes(c)) return OPAQUE;
  return { exact: [c.toLowerCase()], required: null };
}

function group(p: Parser): Info {
  p.at++;
  if (p.body[p.at] === "?") {
    // (?:…) and named groups; lookbehind and anything else is not read here.
    const head = /^\?(?::|P?<[A-Za-z_][A-Za-z0-9_]*>)/.exec(p.body.slice(p.at));
    if (!head) throw new Unknown();
    p.at += head[0].length;
  }
  const info = alternation(p);
  if (p.body[p.at] !== ")") throw new Unknown();
  p.at++;
  return info;
}

/**
 * `[…]`: its members when it lists a few plain characters (`[Tt]`); any range, escape, negation
 * or named class makes it one unknown character. A leading `]` (after `^`) is a member.
 */
function characterClass(p: Parser): Info {
  let i = p.at + 1;
  let plain = !p.ignoreCase;
  if (p.body[i] === "^") {
    plain = false;
    i++;
  }
  if (p.body[i] === "]") i++;
  for (; i < p.body.length; i++) {
    const c = p.body[i];
    if (c === "\\") {
      plain = false;
      i++;
    } else if (c === "[" && p.body[i + 1] === ":") {
      const close = p.body.indexOf(":]", i + 2);
      if (close === -1) throw new Unknown();
      plain = false;
      i = close + 1;
    } else if (c === "-") plain = false;
    else if (c === "]") {
      const members = [...p.body.slice(p.at + 1, i)];
      p.at = i + 1;
      return plain && members.length <= MAX_EXACT ? { exact: members, required: null } : OPAQUE;
    }
  }
  throw new Unknown();
}

/** `\.` is the character; `\d`, `\x41`, `\pL`… one unknown character; `\b`, `\A`… empty. */
function escape(p: Parser): Info {
  const next = p.body[p.at + 1];
  if (next === undefined) throw new Unknown();
  const braced = /^\\[xpP]\{[^}]*\}|^\\x[0-9A-Fa-f]{2}|^\\[pP][A-Za-z]/.exec(
    p.body.slice(p.at, p.at + 64),
  );
  if (braced) {
    p.at += braced[0].length;
    return OPAQUE;
  }
  p.at += 2;
  if ("bBAz".includes(next)) return EMPTY;
  if ("dDwWsSntrfvC".includes(next)) return OPAQUE;
  if (/[A-Za-z0-9]/.test(next)) throw new Unknown(); // \u…, octal, \k…: not read here
  return character(p, next);
}
