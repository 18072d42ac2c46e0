// What `view` searches for: a literal string by default, or an RE2-syntax regular expression with
// `regex: true`, matched in linear time (lib/core/search/linear_regex.ts; a leading `(?i)`, `(?s)` or
// `(?is)` is turned into flags). Each pattern offers a whole-buffer prefilter so files without a
// match are skipped before any decoding or per-line work. Pure.

import { AnchorError } from "../errors.ts";
import { type CallFormatter, guide, joinGuide, viewArgExample } from "../next_step.ts";
import { RE2JS } from "re2js";
import { compileUserRegex, type LinearMatcher } from "./linear_regex.ts";
import { type LineMatchers, type MatchSpec, openMatchers } from "./line_matcher.ts";
import { maxMatchWidth } from "./regex_width.ts";
import { literalSet } from "./literal_set.ts";

export interface SearchPattern {
  /** As the agent wrote it. */
  readonly source: string;
  readonly regex: boolean;
  /** `literal "x"` or `regex /x/i`: for result headers and the zero-match sentence. */
  readonly description: string;
  /** Which engine matches lines: "v8" (provably linear here) or "re2" (re2js); absent for literals. */
  readonly engine?: "v8" | "re2";
  /**
   * Bytes every match must contain (the whole literal, or a literal run required by a regex),
   * for byte-level prefilters such as the parallel scanner. Absent when none can be derived.
   */
  readonly literal?: ByteLiteral;
  /**
   * Without a `literal`: needles of which every match holds at least one (a regex's alternatives,
   * literal_set.ts), for the same prefilters: a file or line holding none cannot match.
   */
  readonly anyOf?: readonly ByteLiteral[];
  /**
   * The search as data, for matching where the bytes are (core/search/match_bytes.ts; the
   * parallel scanner's worker threads rebuild it with openMatchers).
   */
  readonly spec: MatchSpec;
  /** openMatchers(spec) in this thread, built once. */
  matchers(): LineMatchers;
  /**
   * Checks raw UTF-8 bytes: false means no line can match. Null when only the decoded text can
   * tell (regular expressions); then `mayMatchText` is the prefilter.
   */
  mayMatchBytes(bytes: Uint8Array): boolean | null;
  mayMatchText(text: string): boolean;
  matchesLine(line: string): boolean;
  /** Where the first match in a line lies, `[start, end)` in UTF-16 units; null without one. */
  findInLine(line: string): [number, number] | null;
}

/** A needle for byte prefilters: `ignoreCase` folds ASCII letters (bytes are then lowercase). */
export interface ByteLiteral {
  bytes: Uint8Array;
  /** Index of the rarest byte: the one scanned for with indexOf. */
  anchor: number;
  /** Index of the next rarest byte (the anchor's own for one byte): the SIMD finder checks both. */
  pair: number;
  ignoreCase: boolean;
  /**
   * The same text as Latin-1 bytes, when it has non-ASCII characters that Latin-1 can store:
   * invalid UTF-8 files are decoded as Latin-1, where `é` is the byte E9, not C3 A9. A file may
   * match when it holds either needle.
   */
  latin1?: ByteLiteral;
}

const encoder = new TextEncoder();

// Exported for tests.
/**
 * Longest search content, in UTF-16 units. A search matches one line; no real pattern comes
 * near this, and the results and hints quote the content (a 3 MB one made 6.6 MB replies).
 */
export const MAX_SEARCH_CHARS = 4096;

export function compileSearchPattern(
  source: string,
  regex: boolean,
  call: CallFormatter = viewArgExample,
): SearchPattern {
  if (source === "") {
    throw new AnchorError({
      code: "EMPTY_SEARCH",
      message: "content is empty: there is nothing to search for.",
      hint: joinGuide(
        "Pass the text to find, e.g. ",
        call({ content: "TODO" }),
        ", or leave content out to list the directory.",
      ),
    });
  }
  if (source.length > MAX_SEARCH_CHARS) throw searchTooLong(source, call);
  if (/[\r\n]/.test(source)) {
    throw new AnchorError({
      code: "MULTILINE_SEARCH",
      message: `content ${
        JSON.stringify(source)
      } spans several lines; search matches one line at a time.`,
      hint: guide`Search for one line of it, e.g. ${
        call({ content: source.split(/\r?\n/).find((l) => l.trim() !== "") ?? "" })
      }.`,
    });
  }
  return regex ? compileRegex(source, call) : compileLiteral(source);
}

/** The refusal of a content past MAX_SEARCH_CHARS: its length and a start, never all of it. */
function searchTooLong(source: string, call: CallFormatter): AnchorError {
  const start = source.slice(0, 60).split(/\r?\n/)[0]!;
  return new AnchorError({
    code: "SEARCH_TOO_LONG",
    message: `content is ${source.length.toLocaleString("en-US")} characters long (it starts ` +
      `${JSON.stringify(start)}); a search matches one line, and this server takes at most ` +
      `${MAX_SEARCH_CHARS.toLocaleString("en-US")} characters. Nothing was searched.`,
    hint: joinGuide("Search for a distinctive part of it, e.g. ", call({ content: start }), "."),
  });
}

function compileLiteral(source: string): SearchPattern {
  const literal = byteLiteral(source, false);
  const spec: MatchSpec = { needle: { text: source, ignoreCase: false } };
  return {
    source,
    regex: false,
    description: `literal ${JSON.stringify(source)}`,
    literal,
    spec,
    matchers: once(() => openMatchers(spec, RE2JS)),
    mayMatchBytes: (bytes) => containsLiteral(bytes, literal),
    mayMatchText: (text) => text.includes(source),
    matchesLine: (line) => line.includes(source),
    findInLine: (line) => {
      const at = line.indexOf(source);
      return at === -1 ? null : [at, at + source.length];
    },
  };
}

// Exported for tests.
/** The needle for `text` (already lowercased when `ignoreCase`), with its Latin-1 twin if any. */
export function byteLiteral(text: string, ignoreCase: boolean): ByteLiteral {
  const bytes = encoder.encode(text);
  const anchor = rarestByteIndex(bytes, ignoreCase);
  const literal: ByteLiteral = {
    bytes,
    anchor,
    pair: pairIndex(bytes, anchor, ignoreCase),
    ignoreCase,
  };
  const nonAscii = bytes.length !== text.length;
  if (nonAscii && [...text].every((c) => c.charCodeAt(0) <= 0xff)) {
    const latin1 = Uint8Array.from(text, (c) => c.charCodeAt(0));
    const anchor1 = rarestByteIndex(latin1, ignoreCase);
    literal.latin1 = {
      bytes: latin1,
      anchor: anchor1,
      pair: pairIndex(latin1, anchor1, ignoreCase),
      ignoreCase,
    };
  }
  return literal;
}

// Exported for tests.
/**
 * Finds `needle` in `haystack`: `Uint8Array.prototype.indexOf` (a fast native scan) on the
 * needle's rarest byte, then a byte comparison around it.
 */
export function indexOfBytes(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  const n = needle.length;
  if (n === 0) return from;
  const k = rarestByteIndex(needle);
  const anchor = needle[k]!;
  const lastStart = haystack.length - n;
  let i = from + k;
  while (true) {
    i = haystack.indexOf(anchor, i);
    if (i === -1) return -1;
    const start = i - k;
    if (start > lastStart) return -1;
    if (start >= from) {
      let j = 0;
      while (j < n && haystack[start + j] === needle[j]) j++;
      if (j === n) return start;
    }
    i++;
  }
}

/**
 * Whether `haystack` contains the literal. Self-contained on purpose (no outside references):
 * the parallel scanner ships its source text to worker threads.
 */
export function containsLiteral(haystack: Uint8Array, literal: ByteLiteral): boolean {
  if (literal.latin1 && containsLiteral(haystack, literal.latin1)) return true;
  const n = literal.bytes;
  const k = literal.anchor;
  const a = n[k]!;
  const variants = literal.ignoreCase && a >= 97 && a <= 122 ? [a, a - 32] : [a];
  for (const v of variants) {
    let i = k;
    while (true) {
      i = haystack.indexOf(v, i);
      if (i === -1) break;
      const s = i - k;
      if (s + n.length > haystack.length) break;
      let j = 0;
      if (literal.ignoreCase) {
        while (j < n.length) {
          let b = haystack[s + j]!;
          if (b >= 65 && b <= 90) b += 32;
          if (b !== n[j]) break;
          j++;
        }
      } else {
        while (j < n.length && haystack[s + j] === n[j]) j++;
      }
      if (j === n.length) return true;
      i++;
    }
  }
  return false;
}

/** Rough byte frequency in source text: lower is rarer. Non-ASCII bytes count as rare. */
function byteRank(b: number, ignoreCase = false): number {
  const c = String.fromCharCode(b);
  // Case-folded letters are scanned twice (both cases), so they count as more frequent.
  const letterCost = ignoreCase && /[a-z]/.test(c) ? 15 : 0;
  if (b === 32 || b === 10 || b === 9) return 100;
  if ("etaoinsrlcdu".includes(c)) return 90 + letterCost;
  if ("hmpfgwybv".includes(c)) return 70 + letterCost;
  if (b >= 97 && b <= 122) return 45 + letterCost; // k x j q z
  if ("().;,=\"'/{}:".includes(c)) return 60;
  if (b >= 48 && b <= 57) return 40;
  if (b >= 65 && b <= 90) return 30;
  if (b >= 0x80) return 10;
  return 20;
}

/** The rarest byte's index other than `anchor`, preferring one that differs from it. */
function pairIndex(needle: Uint8Array, anchor: number, ignoreCase: boolean): number {
  let best = -1;
  const cost = (i: number) =>
    byteRank(needle[i]!, ignoreCase) + (needle[i] === needle[anchor] ? 1000 : 0);
  for (let i = 0; i < needle.length; i++) {
    if (i !== anchor && (best === -1 || cost(i) < cost(best))) best = i;
  }
  return best === -1 ? anchor : best;
}

// Exported for benches (scripts/bench/search_bench.ts).
export function rarestByteIndex(needle: Uint8Array, ignoreCase = false): number {
  let best = 0;
  for (let i = 1; i < needle.length; i++) {
    if (byteRank(needle[i]!, ignoreCase) < byteRank(needle[best]!, ignoreCase)) best = i;
  }
  return best;
}

/** How cheap a run is to scan for: the rank of its rarest byte, longer runs first on ties. */
function runCost(run: string, ignoreCase: boolean): number {
  const bytes = encoder.encode(ignoreCase ? run.toLowerCase() : run);
  return byteRank(bytes[rarestByteIndex(bytes, ignoreCase)]!, ignoreCase) * 1000 - run.length;
}

function compileRegex(source: string, call: CallFormatter): SearchPattern {
  let body = source;
  let ignoreCase = false;
  let dotAll = false;
  const inline = /^\(\?([imsx]+)\)/.exec(body);
  if (inline) {
    body = body.slice(inline[0].length);
    ignoreCase = inline[1]!.includes("i");
    dotAll = inline[1]!.includes("s");
    // m is how lines are matched anyway; x (extended) exists in neither RE2 nor JavaScript.
    if (inline[1]!.includes("x")) {
      throw new AnchorError({
        code: "INVALID_REGEX",
        message: `regex ${JSON.stringify(source)} uses (?x), which the search dialect (RE2) ` +
          "does not support.",
        hint: "Remove (?x) and the whitespace it allowed, then retry the same view call.",
      });
    }
  }
  refuseBacktrackingOnly(source, body, call);
  const translated = translateJsEscapes(body);
  let line: LinearMatcher;
  let whole: LinearMatcher;
  try {
    line = compileUserRegex(translated, { ignoreCase, dotAll });
    whole = compileUserRegex(translated, { ignoreCase, dotAll, multiline: true });
  } catch (error) {
    throw invalidRegex(source, (error as Error).message, call);
  }
  const flags = (ignoreCase ? "i" : "") + (dotAll ? "s" : "");
  const { required, literal, anyOf } = regexNeedles(body, ignoreCase);
  // RE2's multi-line `$` matches before `\n` only, so over a CRLF buffer the whole-text
  // prefilter would miss `foo$` on `foo\r\n`: such buffers go straight to the per-line match.
  const endAnchor = /\$/.test(body);
  // \A and \z mean the start and end of a line here, but of the buffer in the prefilter; a
  // lookbehind at a line's start sees nothing here, but the line break before it there.
  const textAnchor = /\\[Az]/.test(body) || /\(\?<[=!]/.test(body);
  const crMayHide = endAnchor && whole.engine === "re2";
  // Every match holds the required literal, so a line without it is not run through the regex
  // (re2js costs far more per line than a substring check).
  const folded = required !== null && ignoreCase
    ? new RegExp(escapeForJsRegex(required), "i")
    : null;
  const width = maxMatchWidth(translated);
  const spec: MatchSpec = {
    ...(required === null ? {} : { needle: { text: required, ignoreCase } }),
    line: line.recipe,
    ...(textAnchor ? {} : { probe: whole.recipe, crMayHide }),
    ...(width === null ? {} : { probeWidth: width }),
  };
  const mayHold = required === null
    ? null
    : folded
    ? (text: string) => folded.test(text)
    : (text: string) => text.includes(required);
  return {
    source,
    regex: true,
    description: `regex /${body}/${flags}`,
    engine: line.engine,
    ...(literal ? { literal } : {}),
    ...(anyOf ? { anyOf } : {}),
    spec,
    matchers: once(() => openMatchers(spec, RE2JS)),
    mayMatchBytes: literal
      ? (bytes) => containsLiteral(bytes, literal)
      : anyOf
      ? (bytes) => anyOf.some((one) => containsLiteral(bytes, one))
      : () => null,
    mayMatchText: (text) =>
      textAnchor || (crMayHide && text.includes("\r")) ||
      whole.test(text),
    matchesLine: mayHold ? (text) => mayHold(text) && line.test(text) : (text) => line.test(text),
    findInLine: (text) => line.find(text),
  };
}

/**
 * What every match of a regex holds: one literal, which is the spec's needle too; else a set of
 * them (lowercase with ignoreCase), which prefilters the bytes only (the probe finds the lines).
 */
function regexNeedles(body: string, ignoreCase: boolean): {
  required: string | null;
  literal?: ByteLiteral;
  anyOf?: ByteLiteral[];
} {
  const single = requiredLiteral(body, ignoreCase);
  const set = single === null
    ? literalSet(body, ignoreCase, (run) => runCost(run, ignoreCase))
    : null;
  const required = single ?? (set?.length === 1 ? set[0]! : null);
  if (required !== null) {
    const text = ignoreCase ? required.toLowerCase() : required;
    return { required, literal: byteLiteral(text, ignoreCase) };
  }
  if (set === null) return { required };
  return { required, anyOf: set.map((text) => byteLiteral(text, ignoreCase)) };
}

function once<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => made ??= make();
}

function escapeForJsRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/**
 * Backreferences and lookahead need a backtracking engine (their worst case is exponential), so
 * the search dialect leaves them out; say which construct it was and what to do instead.
 */
function refuseBacktrackingOnly(source: string, body: string, call: CallFormatter): void {
  const found = findBacktrackingConstruct(body);
  if (found === null) return;
  throw new AnchorError({
    code: "UNSUPPORTED_REGEX",
    message: `regex ${JSON.stringify(source)} uses ${found}, which the search dialect (RE2, ` +
      "linear time: no backreferences, no lookahead) does not support.",
    hint: found.startsWith("a backreference")
      ? joinGuide(
        "Spell the repeated text out (e.g. (\\w+) \\1 → search for the word itself), or search ",
        "a literal part: ",
        call({ content: longestPlainRun(body) || source, regex: false }),
        ".",
      )
      : joinGuide(
        "Drop the lookahead and filter the matches yourself (lookbehind (?<=…) and (?<!…) work), ",
        "e.g. ",
        call({ content: body.replace(/\(\?[=!][^)]*\)/g, ""), regex: true }),
        ".",
      ),
  });
}

// Exported for benches (scripts/bench/search_bench.ts).
/** "a backreference (\1)" or "a lookahead ((?=…))", or null. Skips escapes and classes. */
export function findBacktrackingConstruct(body: string): string | null {
  let inClass = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === "\\") {
      const next = body[i + 1] ?? "";
      if (!inClass && /[1-9]/.test(next)) return `a backreference (\\${next})`;
      if (!inClass && next === "k" && body[i + 2] === "<") return "a backreference (\\k<name>)";
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    if (c === "[") {
      inClass = true;
      if (body[i + 1] === "^") i++;
      if (body[i + 1] === "]") i++; // RE2: a leading ] is a member, not the end
      continue;
    }
    if (c === "(" && body[i + 1] === "?" && (body[i + 2] === "=" || body[i + 2] === "!")) {
      return `a lookahead (${body.slice(i, i + 3)}…)`;
    }
  }
  return null;
}

function longestPlainRun(body: string): string {
  return body.split(/[\\^$.|?*+()[\]{}]+/).reduce((a, b) => (b.length > a.length ? b : a), "");
}

/** JavaScript escapes agents write that RE2 spells differently: \uXXXX, \u{X} → \x{X}. */
function translateJsEscapes(body: string): string {
  return body.replace(
    /(\\+)u(\{[0-9A-Fa-f]+\}|[0-9A-Fa-f]{4})/g,
    (all, slashes: string, hex) =>
      slashes.length % 2 === 1 ? `${slashes}x{${hex.replace(/[{}]/g, "")}}` : all,
  );
}

// Exported for tests.
/**
 * A run of literal characters every match of `body` must contain (the cheapest to scan for), or null. Deliberately
 * conservative: any top-level alternation gives null; groups, classes, escapes like \d and
 * optional characters end a run. With `ignoreCase` only ASCII runs qualify, without k and s
 * (Unicode case folding maps the Kelvin sign to k and the long s to s).
 */
export function requiredLiteral(body: string, ignoreCase: boolean): string | null {
  let best = "";
  let run = "";
  // Among the runs every match must contain, keep the cheapest to scan for.
  const flush = () => {
    if (
      run.length >= 2 &&
      (best === "" || runCost(run, ignoreCase) < runCost(best, ignoreCase))
    ) best = run;
    run = "";
  };
  const breaks = (c: string) => ignoreCase && (c.charCodeAt(0) > 0x7f || "ksKS".includes(c));
  // RE2 takes flags anywhere ((?i) makes the rest case-insensitive) and quotes with \Q…\E.
  if (/\(\?[a-zA-Z-]+[):]/.test(body) || body.includes("\\Q")) return null;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === "\\") {
      const next = body[i + 1];
      if (next === undefined) return null;
      i++;
      if (/[A-Za-z0-9]/.test(next)) {
        // \d, \b, \u{...}, \x41, \k<name>, \1: not a plain character; be conservative.
        if ("uxckpP".includes(next)) return best.length >= 2 ? best : null;
        flush();
        continue;
      }
      if (breaks(next)) flush();
      else run += next;
      continue;
    }
    if (c === "|") return null;
    if (c === "(" || c === "[") {
      flush();
      const end = skipGroup(body, i);
      if (end === -1) return null;
      i = end;
      continue;
    }
    if (c === "?" || c === "*" || c === "{") {
      run = run.slice(0, -1); // the previous character may be absent
      flush();
      if (c === "{") {
        const close = body.indexOf("}", i);
        if (close === -1) return null;
        i = close;
      }
      continue;
    }
    if (c === "+" || c === "." || c === "^" || c === "$") {
      flush();
      continue;
    }
    if (breaks(c)) flush();
    else run += c;
  }
  flush();
  return best.length >= 2 ? best : null;
}

/**
 * The index of the `)` or `]` closing the group or class opened at `start`, or -1. RE2 classes: a
 * leading `]` (after an optional `^`) is a member, and `[:alpha:]` sits inside a class.
 */
function skipGroup(body: string, start: number): number {
  let depth = 0;
  let inClass = false;
  for (let i = start; i < body.length; i++) {
    const c = body[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (c === "[" && body[i + 1] === ":") {
        const close = body.indexOf(":]", i + 2);
        if (close !== -1) i = close + 1;
        continue;
      }
      if (c === "]") {
        inClass = false;
        if (depth === 0) return i;
      }
      continue;
    }
    if (c === "[") {
      inClass = true;
      if (body[i + 1] === "^") i++;
      if (body[i + 1] === "]") i++;
    } else if (c === "(") depth++;
    else if (c === ")") {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

function invalidRegex(source: string, parserMessage: string, call: CallFormatter): AnchorError {
  return new AnchorError({
    code: "INVALID_REGEX",
    message: `regex ${JSON.stringify(source)} does not compile as RE2 syntax (the search ` +
      `dialect): ${parserMessage.replace(/^error parsing regexp: /, "")}`,
    hint: guide`Escape special characters (\\( \\[ \\. \\*), or search the text literally: ${
      call({ content: source, regex: false })
    }.`,
  });
}
