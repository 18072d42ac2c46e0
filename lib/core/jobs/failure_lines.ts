// Lines of command output that look like a failure (test runners, compilers, interpreters), and
// the excerpts around them that a failed command's result shows from the part of the output its
// tail leaves out: the first result then says why it failed. A runner's failure report is taken
// whole by its grammar (failure_blocks.ts). Pure; works on cleaned lines.

import type { CleanLine } from "../text/terminal_text.ts";
import { renderCleanLines } from "../text/terminal_text.ts";
import { jsonStringBytes } from "../text/wire_text.ts";
import { failureBlock, isPassingLine, trimFailureBlock } from "./failure_blocks.ts";

/** What a failure looks like, with the runner that prints it. */
const FAILURE_PATTERNS: readonly RegExp[] = [
  /^\s*not ok\b/, // TAP (node --test, tape)
  /\bFAIL(?:ED|URES?)?\b/, // jest `FAIL`, go `--- FAIL:`, pytest/deno `FAILED`
  /(?:^|[^\w.])(?:[A-Z][A-Za-z]*)?Error(?::|\s\[|$)/, // `TypeError: x`, `Error: x`, `AssertionError [ERR_…]`
  /(?:^|\s)(?:[a-z][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error|Failure)\b|\b[A-Z]\w*Exception(?::|$)/, // `org.junit.ComparisonFailure: …`, `IOException: …`
  /\berror(?:\[[A-Z]?\d+\])?:/, // gcc/clang/rustc `error:`, `error[E0308]:`
  /\berror (?:TS|CS)\d+:/, // tsc, C#
  /^Traceback \(most recent call last\)/, // Python
  /\bpanicked at\b/, // Rust
  /^\s*E\s{2,}\S/, // pytest's `E   assert 1 == 2`
  /\bassert(?:ion)?\b.*\bfail/i, // `Assertion failed`, `assert … failed`
  /^\s*(?:Expected|Received)(?: value| length| substring)?:/, // jest's assertion diff
  /^\s*[✗✕✖×✘]\s/, // jest, vitest, mocha, phpunit --testdox reporters
  /^\s*● (?!Console$)\S/, // jest's report of one failure (`● Suite › name`)
  /\bFailed asserting\b/, // phpunit
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

/** TAP comments name tests (`# Should throw RangeError`, `# Subtest: x`); `not ok` reports them. */
const TAP_COMMENT = /^#\s|^\s*# Subtest: /;

/**
 * Whether a line looks like a failure; a passing line never does (`ok 310 Should throw
 * RangeError`), nor does a TAP comment naming a test.
 */
export function isFailureLine(text: string): boolean {
  const start = text.length > TESTED_CHARS ? text.slice(0, TESTED_CHARS) : text;
  return FAILURE_PATTERNS.some((p) => p.test(start)) && !isPassingLine(start) &&
    !TAP_COMMENT.test(start);
}

interface FailureExcerpt {
  /** Line number (in the log) of the excerpt's first line. */
  firstLine: number;
  lastLine: number;
  lines: CleanLine[];
}

export interface FailureDigest {
  excerpts: FailureExcerpt[];
  /** Failure-looking lines found in all. */
  matched: number;
  /** Of those, how many the excerpts show (or showed already: see `repeated`). */
  shown: number;
  /** Excerpts left out because an earlier one shows the same lines (a runner's summary). */
  repeated: number;
}

interface FailureOptions {
  /** Lines shown before and after each failure line. */
  before?: number;
  after?: number;
  /** Most excerpts shown, and their total size on the wire. */
  maxExcerpts?: number;
  maxWireBytes?: number;
  /** Text shown anyway (the tail): an excerpt it holds whole is left out as repeated. */
  shownAlready?: string;
}

const FAILURE_DEFAULTS = { before: 1, after: 3, maxExcerpts: 12, maxWireBytes: 4096 };

/** Wire bytes an excerpt costs besides its lines (its `[line a-b]` heading and separators). */
const EXCERPT_OVERHEAD = 24;

/**
 * The failure-looking lines with their context, in log order: a runner's failure block whole
 * (failure_blocks.ts; frames of the runner cut), any other line with `before`/`after` lines
 * around it; overlapping excerpts merged, one that repeats an earlier one left out, until
 * `maxExcerpts` or `maxWireBytes` is reached (counted as rendered on the wire).
 */
export function pickFailureExcerpts(
  lines: readonly CleanLine[],
  options: FailureOptions = {},
): FailureDigest {
  const { before, after, maxExcerpts, maxWireBytes } = { ...FAILURE_DEFAULTS, ...options };
  const hits: number[] = [];
  for (let i = 0; i < lines.length; i++) if (isFailureLine(lines[i]!.text)) hits.push(i);
  const picked = { excerpts: [] as FailureExcerpt[], bytes: 0, shown: 0, repeated: 0 };
  const seen = new Set<string>();
  let from = -1;
  let to = -1;
  let first = -1;
  /** Adds lines[from..to], cut at its end to what still fits; false once nothing more fits. */
  const close = (): boolean => {
    if (from < 0) return true;
    const body = renderCleanLines(trimFailureBlock(lines.slice(first, to + 1)));
    if (seen.has(body) || options.shownAlready?.includes(body)) {
      picked.repeated++;
      picked.shown += countFailureLines(lines.slice(from, to + 1));
      return true;
    }
    seen.add(body);
    if (picked.excerpts.length >= maxExcerpts) return false;
    return addExcerpt(picked, lines.slice(from, to + 1), maxWireBytes);
  };
  // Lines up to `scanned` were tried as block headers already: each line is tried once.
  let scanned = -1;
  for (const hit of hits) {
    const block = failureBlock(lines, hit, scanned + 1);
    scanned = hit;
    if (from >= 0 && hit <= to) {
      // Inside the excerpt already; a block it starts or sits in may reach further.
      if (block) to = Math.max(to, block.to);
      continue;
    }
    const [a, b] = block
      ? [Math.max(0, Math.min(block.from, contextStart(lines, hit, before))), block.to]
      : [contextStart(lines, hit, before), contextEnd(lines, hit, after)];
    if (from >= 0 && a <= to + 1) {
      to = Math.max(to, b);
      continue;
    }
    if (!close()) {
      from = -1;
      break;
    }
    [from, to, first] = [a, b, hit];
  }
  close();
  const { excerpts, shown, repeated } = picked;
  return { excerpts, matched: hits.length, shown, repeated };
}

/** `before` lines above `hit`, passing lines left out (`✔ case 99` says nothing about it). */
function contextStart(lines: readonly CleanLine[], hit: number, before: number): number {
  let a = Math.max(0, hit - before);
  while (a < hit && isPassingLine(lines[a]!.text)) a++;
  return a;
}

/** `after` lines below `hit`, up to the first passing line. */
function contextEnd(lines: readonly CleanLine[], hit: number, after: number): number {
  const last = Math.min(lines.length - 1, hit + after);
  for (let b = hit + 1; b <= last; b++) if (isPassingLine(lines[b]!.text)) return b - 1;
  return last;
}

function countFailureLines(lines: readonly CleanLine[]): number {
  return lines.filter((l) => isFailureLine(l.text)).length;
}

/**
 * Adds the excerpt of `range` (frames trimmed) to `picked`, cut at its end to what still fits;
 * false when it had to be cut or nothing of it fits (nothing after it will).
 */
function addExcerpt(
  picked: { excerpts: FailureExcerpt[]; bytes: number; shown: number },
  range: readonly CleanLine[],
  maxWireBytes: number,
): boolean {
  let slice = range.slice();
  const costOf = (part: readonly CleanLine[]) => {
    const shown = trimFailureBlock(part);
    return { shown, cost: jsonStringBytes(renderCleanLines(shown)) + EXCERPT_OVERHEAD };
  };
  let { shown, cost } = costOf(slice);
  while (picked.bytes + cost > maxWireBytes && slice.length > 1) {
    // Cut by a tenth at a time: one line at a time re-renders a 400-line block 400 times.
    slice = slice.slice(0, Math.max(1, slice.length - Math.max(1, Math.floor(slice.length / 10))));
    ({ shown, cost } = costOf(slice));
  }
  const failing = countFailureLines(slice);
  if (picked.bytes + cost > maxWireBytes || failing === 0) return false;
  picked.bytes += cost;
  picked.shown += failing;
  const last = slice[slice.length - 1]!;
  picked.excerpts.push({
    firstLine: slice[0]!.line,
    lastLine: last.line + last.count - 1,
    lines: shown,
  });
  return slice.length === range.length;
}
