// What `view` searches for: a literal string by default, or a JavaScript regular expression with
// `regex: true` (a leading `(?i)`, `(?s)` or `(?is)` is turned into flags, since agents write
// PCRE-style). Each pattern offers a whole-buffer prefilter so files without a match are skipped
// before any decoding or per-line work. Pure.

import { AnchorError } from "./errors.ts";

export interface SearchPattern {
  /** As the agent wrote it. */
  readonly source: string;
  readonly regex: boolean;
  /** `literal "x"` or `regex /x/i`: for result headers and the zero-match sentence. */
  readonly description: string;
  /**
   * Bytes every match must contain (the whole literal, or a literal run required by a regex),
   * for byte-level prefilters such as the parallel scanner. Absent when none can be derived.
   */
  readonly literal?: ByteLiteral;
  /**
   * Checks raw UTF-8 bytes: false means no line can match. Null when only the decoded text can
   * tell (regular expressions); then `mayMatchText` is the prefilter.
   */
  mayMatchBytes(bytes: Uint8Array): boolean | null;
  mayMatchText(text: string): boolean;
  matchesLine(line: string): boolean;
}

/** A needle for byte prefilters: `ignoreCase` folds ASCII letters (bytes are then lowercase). */
export interface ByteLiteral {
  bytes: Uint8Array;
  /** Index of the rarest byte: the one scanned for with indexOf. */
  anchor: number;
  ignoreCase: boolean;
  /**
   * The same text as Latin-1 bytes, when it has non-ASCII characters that Latin-1 can store:
   * invalid UTF-8 files are decoded as Latin-1, where `é` is the byte E9, not C3 A9. A file may
   * match when it holds either needle.
   */
  latin1?: ByteLiteral;
}

const encoder = new TextEncoder();

/** Renders a corrected call for hints; the view op passes one that names the tool and path. */
export type CallFormatter = (args: Record<string, unknown>) => string;

const plainCall: CallFormatter = (args) => JSON.stringify(args);

export function compileSearchPattern(
  source: string,
  regex: boolean,
  call: CallFormatter = plainCall,
): SearchPattern {
  if (source === "") {
    throw new AnchorError({
      code: "EMPTY_SEARCH",
      message: "content is empty: there is nothing to search for.",
      hint: `Pass the text to find, e.g. ${call({ content: "TODO" })}, or leave content out ` +
        "to list the directory.",
    });
  }
  if (/[\r\n]/.test(source)) {
    throw new AnchorError({
      code: "MULTILINE_SEARCH",
      message: `content ${
        JSON.stringify(source)
      } spans several lines; search matches one line at a time.`,
      hint: `Search for one line of it, e.g. ${
        call({ content: source.split(/\r?\n/).find((l) => l.trim() !== "") ?? "" })
      }.`,
    });
  }
  return regex ? compileRegex(source, call) : compileLiteral(source);
}

function compileLiteral(source: string): SearchPattern {
  const literal = byteLiteral(source, false);
  return {
    source,
    regex: false,
    description: `literal ${JSON.stringify(source)}`,
    literal,
    mayMatchBytes: (bytes) => containsLiteral(bytes, literal),
    mayMatchText: (text) => text.includes(source),
    matchesLine: (line) => line.includes(source),
  };
}

/** The needle for `text` (already lowercased when `ignoreCase`), with its Latin-1 twin if any. */
export function byteLiteral(text: string, ignoreCase: boolean): ByteLiteral {
  const bytes = encoder.encode(text);
  const literal: ByteLiteral = { bytes, anchor: rarestByteIndex(bytes, ignoreCase), ignoreCase };
  const nonAscii = bytes.length !== text.length;
  if (nonAscii && [...text].every((c) => c.charCodeAt(0) <= 0xff)) {
    const latin1 = Uint8Array.from(text, (c) => c.charCodeAt(0));
    literal.latin1 = { bytes: latin1, anchor: rarestByteIndex(latin1, ignoreCase), ignoreCase };
  }
  return literal;
}

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
  let flags = "";
  const inline = /^\(\?([imsx]+)\)/.exec(body);
  if (inline) {
    body = body.slice(inline[0].length);
    if (inline[1]!.includes("i")) flags += "i";
    if (inline[1]!.includes("s")) flags += "s";
    // m is how lines are matched anyway; x (extended) has no JavaScript equivalent.
    if (inline[1]!.includes("x")) {
      throw new AnchorError({
        code: "INVALID_REGEX",
        message: `regex ${JSON.stringify(source)} uses (?x), which JavaScript regular ` +
          "expressions do not support.",
        hint: "Remove (?x) and the whitespace it allowed, then retry the same view call.",
      });
    }
  }
  let line: RegExp;
  try {
    line = new RegExp(body, flags + "u");
  } catch (unicodeError) {
    try {
      // Without the u flag JavaScript accepts more PCRE-isms (e.g. `\-` outside classes).
      line = new RegExp(body, flags);
    } catch {
      throw invalidRegex(source, (unicodeError as Error).message, call);
    }
  }
  const whole = new RegExp(line.source, line.flags + "m");
  const ignoreCase = flags.includes("i");
  const required = requiredLiteral(body, ignoreCase);
  const literal: ByteLiteral | undefined = required === null
    ? undefined
    : byteLiteral(ignoreCase ? required.toLowerCase() : required, ignoreCase);
  return {
    source,
    regex: true,
    description: `regex /${body}/${flags}`,
    ...(literal ? { literal } : {}),
    mayMatchBytes: literal ? (bytes) => containsLiteral(bytes, literal) : () => null,
    mayMatchText: (text) => whole.test(text),
    matchesLine: (text) => line.test(text),
  };
}

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

/** The index of the `)` or `]` closing the group or class opened at `start`, or -1. */
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
      if (c === "]") {
        inClass = false;
        if (depth === 0) return i;
      }
      continue;
    }
    if (c === "[") inClass = true;
    else if (c === "(") depth++;
    else if (c === ")") {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

function invalidRegex(source: string, parserMessage: string, call: CallFormatter): AnchorError {
  const inlineLater = /\(\?[a-z]+\)/.test(source);
  return new AnchorError({
    code: "INVALID_REGEX",
    message: `regex ${JSON.stringify(source)} does not compile: ${parserMessage}`,
    hint: (inlineLater
      ? "Only a leading (?i)/(?s) is supported; remove inline flags elsewhere"
      : "Escape special characters (\\( \\[ \\. \\*)") +
      `, or search the text literally: ${call({ content: source, regex: false })}.`,
  });
}
