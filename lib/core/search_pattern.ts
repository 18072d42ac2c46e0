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
  /** For literal patterns: the UTF-8 bytes and the index of the rarest byte (scan anchor). */
  readonly literal?: { bytes: Uint8Array; anchor: number };
  /**
   * Checks raw UTF-8 bytes: false means no line can match. Null when only the decoded text can
   * tell (regular expressions); then `mayMatchText` is the prefilter.
   */
  mayMatchBytes(bytes: Uint8Array): boolean | null;
  mayMatchText(text: string): boolean;
  matchesLine(line: string): boolean;
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
  const needle = encoder.encode(source);
  return {
    source,
    regex: false,
    description: `literal ${JSON.stringify(source)}`,
    literal: { bytes: needle, anchor: rarestByteIndex(needle) },
    mayMatchBytes: (bytes) => indexOfBytes(bytes, needle, 0) !== -1,
    mayMatchText: (text) => text.includes(source),
    matchesLine: (line) => line.includes(source),
  };
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

/** Rough byte frequency in source text: lower is rarer. Non-ASCII bytes count as rare. */
function byteRank(b: number): number {
  if (b === 32 || b === 10 || b === 9) return 100;
  if ("etaoinsrlcdu".includes(String.fromCharCode(b))) return 90;
  if (b >= 97 && b <= 122) return 70;
  if ("()._;,=\"'/{}:".includes(String.fromCharCode(b))) return 60;
  if (b >= 48 && b <= 57) return 40;
  if (b >= 65 && b <= 90) return 30;
  if (b >= 0x80) return 10;
  return 20;
}

export function rarestByteIndex(needle: Uint8Array): number {
  let best = 0;
  for (let i = 1; i < needle.length; i++) {
    if (byteRank(needle[i]!) < byteRank(needle[best]!)) best = i;
  }
  return best;
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
  return {
    source,
    regex: true,
    description: `regex /${body}/${flags}`,
    mayMatchBytes: () => null,
    mayMatchText: (text) => whole.test(text),
    matchesLine: (text) => line.test(text),
  };
}

function invalidRegex(source: string, parserMessage: string, call: CallFormatter): AnchorError {
  const inlineLater = /\(\?[a-z]+\)/.test(source);
  return new AnchorError({
    code: "INVALID_REGEX",
    message: `regex ${JSON.stringify(source)} does not compile: ${parserMessage}`,
    hint: (inlineLater
      ? "Only a leading (?i)/(?s) is supported; remove inline flags elsewhere. "
      : "Escape special characters (\\( \\[ \\. \\*), or ") +
      `search the text literally: ${call({ content: source, regex: false })}.`,
  });
}
