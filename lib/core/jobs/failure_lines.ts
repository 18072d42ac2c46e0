// Lines of command output that look like a failure (test runners, compilers, interpreters), and
// the excerpts around them that a failed command's result shows from the part of the output its
// tail leaves out: the first result then says why it failed. Pure; works on cleaned lines.

import type { CleanLine } from "../text/terminal_text.ts";
import { renderCleanLines } from "../text/terminal_text.ts";
import { jsonStringBytes } from "../text/wire_text.ts";

/** What a failure looks like, with the runner that prints it. */
const FAILURE_PATTERNS: readonly RegExp[] = [
  /^\s*not ok\b/, // TAP (node --test, tape)
  /\bFAIL(?:ED|URES?)?\b/, // jest `FAIL`, go `--- FAIL:`, pytest/deno `FAILED`
  /(?:^|[^\w.])(?:[A-Z][A-Za-z]*)?Error(?::|\s\[|$)/, // `TypeError: x`, `Error: x`, `AssertionError [ERR_…]`
  /\berror(?:\[[A-Z]?\d+\])?:/, // gcc/clang/rustc `error:`, `error[E0308]:`
  /\berror (?:TS|CS)\d+:/, // tsc, C#
  /^Traceback \(most recent call last\)/, // Python
  /\bpanicked at\b/, // Rust
  /^\s*E\s{2,}\S/, // pytest's `E   assert 1 == 2`
  /\bassert(?:ion)?\b.*\bfail/i, // `Assertion failed`, `assert … failed`
  /^\s*(?:Expected|Received)(?: value| length| substring)?:/, // jest's assertion diff
  /^\s*[✗✕✖×]\s/, // jest, vitest, mocha reporters
  /^\s*[^\s:()]+\.[A-Za-z0-9]+:\d+:\d+(?::\s|\s-\s)/, // `src/a.c:10:5: …`, `a.ts:3:7 - error …`
];

/**
 * Lines that look like a warning (`warning:`, `npm WARN`, `DeprecationWarning:`), counted in a
 * passing run's omitted output so its short tail does not hide them; "0 warnings" is not one.
 */
const WARNING_LINE = /^.*warn(?:ing)?\b/gim;

/** The view search (regex) that finds the lines countWarningLines counts. */
export const WARNING_SEARCH = "(?i)warn(ing)?\\b";

export function countWarningLines(text: string): number {
  let n = 0;
  WARNING_LINE.lastIndex = 0;
  while (WARNING_LINE.exec(text) !== null) {
    n++;
    // Go on at the next line: one count per line however many warnings it holds.
    const nl = text.indexOf("\n", WARNING_LINE.lastIndex);
    if (nl === -1) break;
    WARNING_LINE.lastIndex = nl + 1;
  }
  return n;
}

/** Only a line's start is tested: failure lines are short, and a 1 MB minified line is not one. */
const TESTED_CHARS = 2000;

export function isFailureLine(text: string): boolean {
  const start = text.length > TESTED_CHARS ? text.slice(0, TESTED_CHARS) : text;
  return FAILURE_PATTERNS.some((p) => p.test(start));
}

export interface FailureExcerpt {
  /** Line number (in the log) of the excerpt's first line. */
  firstLine: number;
  lastLine: number;
  lines: CleanLine[];
}

export interface FailureDigest {
  excerpts: FailureExcerpt[];
  /** Failure-looking lines found in all. */
  matched: number;
  /** Of those, how many the excerpts show. */
  shown: number;
}

export interface FailureOptions {
  /** Lines shown before and after each failure line. */
  before?: number;
  after?: number;
  /** Most excerpts shown, and their total size on the wire. */
  maxExcerpts?: number;
  maxWireBytes?: number;
}

/** Longest TAP diagnostic block (`  ---` … `  ...`) an excerpt takes in whole. */
const TAP_BLOCK_MAX_LINES = 16;

/**
 * The index of the `...` that closes a TAP diagnostic block opened right after a `not ok` line
 * (it holds `expected:`, `actual:` and `at:`, past three lines of context), or -1.
 */
function tapBlockEnd(lines: readonly CleanLine[], hit: number): number {
  if (!/^\s*not ok\b/.test(lines[hit]!.text) || !/^\s+---\s*$/.test(lines[hit + 1]?.text ?? "")) {
    return -1;
  }
  const last = Math.min(lines.length - 1, hit + 1 + TAP_BLOCK_MAX_LINES);
  for (let i = hit + 2; i <= last; i++) if (/^\s+\.\.\.\s*$/.test(lines[i]!.text)) return i;
  return -1;
}

export const FAILURE_DEFAULTS = { before: 1, after: 3, maxExcerpts: 12, maxWireBytes: 4096 };

/**
 * The failure-looking lines with a little context each, overlapping excerpts merged, in log
 * order, until `maxExcerpts` or `maxWireBytes` is reached (counted as rendered on the wire).
 */
export function pickFailureExcerpts(
  lines: readonly CleanLine[],
  options: FailureOptions = {},
): FailureDigest {
  const { before, after, maxExcerpts, maxWireBytes } = { ...FAILURE_DEFAULTS, ...options };
  const hits: number[] = [];
  for (let i = 0; i < lines.length; i++) if (isFailureLine(lines[i]!.text)) hits.push(i);
  const excerpts: FailureExcerpt[] = [];
  let bytes = 0;
  let shown = 0;
  let from = -1;
  let to = -1;
  /** Adds lines[from..to], cut at its end to what still fits; false once nothing more fits. */
  const close = (): boolean => {
    if (from < 0) return true;
    if (excerpts.length >= maxExcerpts) return false;
    let slice = lines.slice(from, to + 1);
    let cost = jsonStringBytes(renderCleanLines(slice)) + 24;
    while (bytes + cost > maxWireBytes && slice.length > 1) {
      slice = slice.slice(0, -1);
      cost = jsonStringBytes(renderCleanLines(slice)) + 24;
    }
    if (bytes + cost > maxWireBytes || !slice.some((l) => isFailureLine(l.text))) return false;
    bytes += cost;
    shown += slice.filter((l) => isFailureLine(l.text)).length;
    excerpts.push({
      firstLine: slice[0]!.line,
      lastLine: slice[slice.length - 1]!.line + slice[slice.length - 1]!.count - 1,
      lines: slice,
    });
    return slice.length === to - from + 1;
  };
  for (const hit of hits) {
    const a = Math.max(0, hit - before);
    const b = Math.max(Math.min(lines.length - 1, hit + after), tapBlockEnd(lines, hit));
    if (from >= 0 && a <= to + 1) {
      to = Math.max(to, b);
      continue;
    }
    if (!close()) {
      from = -1;
      break;
    }
    from = a;
    to = b;
  }
  close();
  return { excerpts, matched: hits.length, shown };
}
