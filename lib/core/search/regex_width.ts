// The longest text an RE2-syntax pattern can match, when it is bounded: a search probes a line
// longer than its window in overlapping windows, which is only sound when every match fits in
// the overlap. Conservative: anything it does not know, and any unbounded repetition, gives null.
// Pure.

/**
 * An upper bound on the length of any match of `body`, in UTF-16 units (a code point counts 2),
 * or null when matches may be arbitrarily long or the pattern is not understood here.
 *
 * @example
 * ```ts
 * import { maxMatchWidth } from "./regex_width.ts";
 *
 * maxMatchWidth("\\d{7}[qxz]\\d{7}"); // 30: 15 code points
 * maxMatchWidth("a+b"); // null
 * ```
 */
export function maxMatchWidth(body: string): number | null {
  const parser = { body, at: 0 };
  const points = alternation(parser);
  return points === null || parser.at !== body.length ? null : points * 2;
}

interface Parser {
  body: string;
  at: number;
}

/** `seq | seq | …` up to a `)` or the end: the widest alternative. */
function alternation(p: Parser): number | null {
  let widest = 0;
  while (true) {
    const width = sequence(p);
    if (width === null) return null;
    widest = Math.max(widest, width);
    if (p.body[p.at] !== "|") return widest;
    p.at++;
  }
}

/** Atoms with their repeats, up to a `|`, a `)` or the end. */
function sequence(p: Parser): number | null {
  let total = 0;
  while (p.at < p.body.length && p.body[p.at] !== "|" && p.body[p.at] !== ")") {
    const width = atom(p);
    if (width === null) return null;
    const times = repeats(p);
    if (times === null) return null;
    total += width * times;
  }
  return total;
}

/** The most times the atom before may repeat (1 without a quantifier), or null: unbounded. */
function repeats(p: Parser): number | null {
  const c = p.body[p.at];
  let times = 1;
  if (c === "*" || c === "+") return null;
  if (c === "?") p.at++;
  else if (c === "{") {
    const counted = /^\{(\d+)(,(\d*))?\}/.exec(p.body.slice(p.at));
    if (!counted) return null;
    if (counted[2] !== undefined && counted[3] === "") return null; // {n,}
    times = Number(counted[3] ?? counted[1]);
    p.at += counted[0].length;
  }
  if (p.body[p.at] === "?") p.at++; // lazy
  return times;
}

/** One atom's width in code points: a group, a class, an escape, `.` or a character. */
function atom(p: Parser): number | null {
  const c = p.body[p.at]!;
  if (c === "(") return group(p);
  if (c === "[") return characterClass(p);
  if (c === "\\") return escape(p);
  if (c === "*" || c === "+" || c === "?" || c === "{") return null;
  p.at += p.body.codePointAt(p.at)! > 0xffff ? 2 : 1;
  return c === "^" || c === "$" ? 0 : 1;
}

function group(p: Parser): number | null {
  p.at++;
  if (p.body[p.at] === "?") {
    // (?:…), (?P<name>…), (?<name>…), flags (?i) and (?i:…); lookaround is not known here.
    const head = /^\?(?::|P?<[A-Za-z_][A-Za-z0-9_]*>|[imsU-]+(:|\)))/.exec(p.body.slice(p.at));
    if (!head) return null;
    p.at += head[0].length;
    if (head[1] === ")") return 0;
  }
  const width = alternation(p);
  if (width === null || p.body[p.at] !== ")") return null;
  p.at++;
  return width;
}

/** `[…]`: one code point. A leading `]` (after `^`) is a member; `[:alpha:]` sits inside. */
function characterClass(p: Parser): number | null {
  let i = p.at + 1;
  if (p.body[i] === "^") i++;
  if (p.body[i] === "]") i++;
  for (; i < p.body.length; i++) {
    const c = p.body[i];
    if (c === "\\") i++;
    else if (c === "[" && p.body[i + 1] === ":") {
      const close = p.body.indexOf(":]", i + 2);
      if (close === -1) return null;
      i = close + 1;
    } else if (c === "]") {
      p.at = i + 1;
      return 1;
    }
  }
  return null;
}

/** `\d`, `\b`, `\x{41}`, `\pL`, `\.`…: zero or one code point; null for what is not known. */
function escape(p: Parser): number | null {
  const next = p.body[p.at + 1];
  if (next === undefined) return null;
  const rest = p.body.slice(p.at);
  const braced = /^\\[xpP]\{[^}]*\}|^\\x[0-9A-Fa-f]{2}|^\\[pP][A-Za-z]/.exec(rest);
  if (braced) {
    p.at += braced[0].length;
    return 1;
  }
  p.at += 2;
  if ("bBAz".includes(next)) return 0;
  if ("dDwWsSntrfv".includes(next)) return 1;
  if (/[A-Za-z0-9]/.test(next)) return null; // \Q…\E, \C, octal: not known here
  return 1; // an escaped punctuation character
}
