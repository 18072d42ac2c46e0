// A test runner's failure report read by its grammar: where the block that starts at a failure
// line ends (TAP's `---` … `...`, jest's `●` section, pytest's `___ name ___`, a numbered
// mocha/rspec/phpunit/JUnit entry, cargo's `---- name stdout ----`, an indented continuation),
// and the block as shown: stack frames of the runner and the runtime cut (the first frame of the
// test's own code kept), code frames cut to the failing line. Pure; works on cleaned lines.

import type { CleanLine } from "../text/terminal_text.ts";

/** Lines a block may span (bounds the scan; a longer block is cut at this length). */
const MAX_BLOCK_LINES = 400;

/**
 * A line that reports a pass, whatever else it holds (`ok 310 Should throw RangeError`, `✓ …`,
 * `test x ... ok`, `test_x PASSED`): never a failure line, and the end of a failure block.
 */
const PASSING: readonly RegExp[] = [
  /^\s*ok\s+\d+\b/, // TAP
  /^\s*[✓✔√]\s/, // jest, vitest, mocha, node's spec reporter
  /\s\.\.\.\s+ok\b/, // cargo, unittest -v, deno test
  /^\s*(?:---\s+)?PASS(?:ED)?\b/, // jest `PASS file`, go `--- PASS:`
  /\sPASSED\b/, // pytest -v, gradle
];

export function isPassingLine(text: string): boolean {
  return PASSING.some((p) => p.test(text));
}

const indentOf = (text: string) => /^\s*/.exec(text)![0].length;
const blank = (text: string) => text.trim() === "";

/** How one kind of failure block starts, and the index of its last line (or -1: not one). */
interface BlockRule {
  start: RegExp;
  end(lines: readonly CleanLine[], hit: number, m: RegExpExecArray): number;
}

/** The last index before the first line from `hit + 1` that `stops` (bounded), or -1. */
function endBefore(
  lines: readonly CleanLine[],
  hit: number,
  stops: (text: string, i: number) => boolean,
): number {
  const last = Math.min(lines.length - 1, hit + MAX_BLOCK_LINES);
  for (let i = hit + 1; i <= last; i++) {
    const text = lines[i]!.text;
    if (isPassingLine(text) || stops(text, i)) return trimBlankEnd(lines, hit, i - 1);
  }
  return trimBlankEnd(lines, hit, last);
}

function trimBlankEnd(lines: readonly CleanLine[], hit: number, to: number): number {
  while (to > hit && blank(lines[to]!.text)) to--;
  return to;
}

/** Lines after a header that are indented deeper than it (whitespace-only lines included). */
function indentedEnd(lines: readonly CleanLine[], hit: number): number {
  const own = indentOf(lines[hit]!.text);
  return endBefore(lines, hit, (t) => t === "" || (indentOf(t) <= own && !blank(t)));
}

/** Summary lines that close a runner's list of failures. */
const SUMMARY =
  /^\s*(?:FAILURES!|Tests run:|Finished in |Failed examples:|ERRORS!|\d+ (?:passing|failing|pending)\b|Test Suites:|Tests:|=+ .*(?:passed|failed|error)|test result:|FAILED \||Ran \d+ tests?)/;

const RULES: readonly BlockRule[] = [
  // TAP (tape, node:test, deno --reporter=tap): `not ok` then an indented YAML block to `...`.
  {
    start: /^\s*not ok\b/,
    end(lines, hit) {
      const open = lines[hit + 1]?.text ?? "";
      if (!/^\s+---\s*$/.test(open)) return -1;
      const indent = indentOf(open);
      const last = Math.min(lines.length - 1, hit + MAX_BLOCK_LINES);
      for (let i = hit + 2; i <= last; i++) {
        const t = lines[i]!.text;
        if (/^\s*\.\.\.\s*$/.test(t) && indentOf(t) === indent) return i;
      }
      return -1;
    },
  },
  // jest: `● Suite › name` up to the next `●` or the file's next report.
  {
    start: /^(\s*)● \S/,
    end: (lines, hit, m) =>
      endBefore(lines, hit, (t) => t.startsWith(`${m[1]}● `) || /^\S/.test(t) || SUMMARY.test(t)),
  },
  // vitest's "Failed Tests" section: ` FAIL  file > name` up to its `⎯⎯⎯[1/3]⎯` rule.
  {
    start: /^\s*FAIL\s+\S.* > \S/,
    end: (lines, hit) =>
      endBefore(lines, hit, (t) => /^\s*⎯{3,}/.test(t) || /^\s*FAIL\s/.test(t) || SUMMARY.test(t)),
  },
  // pytest: `____ test_name ____` up to the next one or a `====` rule.
  {
    start: /^_{3,} .+ _{3,}$/,
    end: (lines, hit) =>
      endBefore(lines, hit, (t) => /^_{3,} .+ _{3,}$/.test(t) || /^={3,}/.test(t)),
  },
  // unittest: `FAIL: test_x (mod.Class.test_x)` up to the next `=====` rule.
  {
    start: /^(?:FAIL|ERROR): \S/,
    end: (lines, hit) =>
      endBefore(lines, hit, (t) => /^={10,}$/.test(t) || /^Ran \d+ test/.test(t)),
  },
  // cargo test: `---- tests::name stdout ----` up to the next one or the list of failures.
  {
    start: /^---- \S+ std(?:out|err) ----$/,
    end: (lines, hit) =>
      endBefore(
        lines,
        hit,
        (t) => /^---- \S+ std(?:out|err) ----$/.test(t) || /^failures:$/.test(t),
      ),
  },
  // Numbered entries: mocha `  1) suite`, rspec `  1) Calc adds`, phpunit `1) Class::test`,
  // JUnit `1) test(Class)`: up to the next entry of the same depth or the summary.
  {
    start: /^(\s*)\d+\) \S/,
    end(lines, hit, m) {
      const next = new RegExp(`^${m[1]}\\d+\\) \\S`);
      let blanks = 0;
      return endBefore(lines, hit, (t) => {
        blanks = t === "" ? blanks + 1 : 0;
        return next.test(t) || SUMMARY.test(t) || blanks >= 3;
      });
    },
  },
  // deno test's ERRORS section: `name => ./file.ts:3:6` up to the next one.
  {
    start: /^\S.* => \S+:\d+:\d+$/,
    end: (lines, hit) =>
      endBefore(
        lines,
        hit,
        (t) => /^\S.* => \S+:\d+:\d+$/.test(t) || /^ (?:FAILURES|ERRORS) $/.test(t),
      ),
  },
  // Maven Surefire: `[ERROR] Class.test -- Time elapsed: … <<< FAILURE!`, the exception, its frames.
  {
    start: /<<< (?:FAILURE|ERROR)!$/,
    end: (lines, hit) => endBefore(lines, hit + 1, (t) => t === "" || t.startsWith("[")),
  },
  // An indented continuation: node's spec `✖ name`, gradle `Class > test FAILED`, go's
  // `--- FAIL:`, phpunit --testdox `✘`: the lines indented deeper than the header.
  { start: /^\s*(?:[✖✘]\s|--- FAIL: )|^\S.* > .* FAILED$/, end: indentedEnd },
];

/** Lines above a failure line searched for the header of the block that holds it. */
const HEADER_LOOKBACK = 40;

/**
 * The first and last index of the failure block that holds `lines[hit]`, by the grammar of the
 * runner that printed it: the block it starts, or one whose header is a little above it (jest's
 * `●`, pytest's `___ name ___`, mocha's `1) suite` are not failure lines themselves). Undefined
 * when it is in no block the grammar knows. `floor`: no header is looked for above it.
 */
export function failureBlock(
  lines: readonly CleanLine[],
  hit: number,
  floor = 0,
): { from: number; to: number } | undefined {
  for (let h = hit; h >= Math.max(floor, hit - HEADER_LOOKBACK); h--) {
    const to = blockEndAt(lines, h);
    if (to >= hit) return { from: goRunStart(lines, h) ?? h, to };
    // A passing line or another failure's header above: the hit is not in an older block.
    if (h < hit && (isPassingLine(lines[h]!.text) || to >= 0)) return undefined;
  }
  return undefined;
}

/** The last index of the block that starts at `lines[h]`, or -1 when none starts there. */
function blockEndAt(lines: readonly CleanLine[], h: number): number {
  const text = lines[h]!.text;
  for (const rule of RULES) {
    const m = rule.start.exec(text);
    if (!m) continue;
    const to = rule.end(lines, h, m);
    if (to >= 0) return to;
  }
  return -1;
}

/**
 * `go test -v` prints a test's messages between `=== RUN   TestX` and its `--- FAIL: TestX`:
 * the block starts at the RUN line (when it is near).
 */
function goRunStart(lines: readonly CleanLine[], hit: number): number | undefined {
  const m = /^(\s*)--- FAIL: (\S+)/.exec(lines[hit]!.text);
  if (!m) return undefined;
  for (let i = hit - 1; i >= Math.max(0, hit - 50); i--) {
    const t = lines[i]!.text;
    if (t === `${m[1]}=== RUN   ${m[2]}`) return i;
    if (/^\s*(?:=== RUN|--- (?:PASS|FAIL))/.test(t)) return undefined;
  }
  return undefined;
}

/** A stack frame line: JS/Java `at …`, a Rust backtrace entry, or a frame in TAP's `stack:`. */
const FRAME = /^\s*(?:at\s+\S|\d+: \S|\.\.\. \d+ more$)/;

/** Frames of the runtime, the runner or a dependency: not where the test failed. */
const INTERNAL =
  /node:internal|node_modules[\\/]|\(node:|\bat (?:async )?node:|node:async_hooks|java\.base\/|\bat (?:app\/\/)?(?:java|javax|jdk|sun|org\.junit|junit|org\.apache\.maven|org\.gradle|org\.opentest4j|kotlin)\.|\/rustc\/|(?:^|\s|<)(?:core|std|alloc|test)::|__rustc::|<unknown>|ext:core|ext:deno|\.\.\. \d+ more$/;

/** A line of a code frame (jest `  > 5 | code`, vitest ` 24|   code`) and its caret line. */
const CODE_FRAME = /^\s*>?\s*\d+\s?\|/;
const CARET = /^\s*\|\s*\^/;

/**
 * The block as shown: each run of stack frames keeps its first two frames outside the runtime
 * and the runner (or its first frame when all are inside), each code frame keeps the failing
 * line and its caret; what is cut becomes one `[… N lines cut]` line. Synthetic lines carry the
 * line number of the line before them and count 0 raw bytes.
 */
export function trimFailureBlock(block: readonly CleanLine[]): CleanLine[] {
  const frames = frameMarks(block);
  const out: CleanLine[] = [];
  let i = 0;
  while (i < block.length) {
    let j = i;
    if (frames[i]) {
      while (j < block.length && frames[j]) j++;
      pushCut(out, block.slice(i, j), keptFrames(block.slice(i, j)), "stack");
    } else if (CODE_FRAME.test(block[i]!.text)) {
      while (j < block.length && (CODE_FRAME.test(block[j]!.text) || CARET.test(block[j]!.text))) {
        j++;
      }
      pushCut(out, block.slice(i, j), keptCode(block.slice(i, j)), "code");
    } else {
      out.push(block[i]!);
      j = i + 1;
    }
    i = j;
  }
  return out;
}

/** Which lines are stack frames, including the frames listed under TAP's `stack: |-` key. */
function frameMarks(block: readonly CleanLine[]): boolean[] {
  const marks = block.map((l) => FRAME.test(l.text));
  for (let i = 0; i < block.length; i++) {
    const m = /^(\s+)stack: \|-?\s*$/.exec(block[i]!.text);
    if (!m) continue;
    // node:test lists its frames there without `at`: every line indented deeper than the key.
    for (let j = i + 1; j < block.length; j++) {
      const t = block[j]!.text;
      if (blank(t) || indentOf(t) <= m[1]!.length) break;
      marks[j] = true;
    }
  }
  return marks;
}

/** Indexes kept of a run of stack frames (Rust's `N: fn` line keeps its `at file` line). */
function keptFrames(run: readonly CleanLine[]): Set<number> {
  const kept = new Set<number>();
  for (let k = 0; k < run.length && kept.size < 2; k++) {
    const t = run[k]!.text;
    if (INTERNAL.test(t)) continue;
    if (/^\s*\d+: \S/.test(t)) {
      const at = run[k + 1]?.text ?? "";
      if (INTERNAL.test(at)) continue;
      kept.add(k);
      if (/^\s+at \S/.test(at)) kept.add(k + 1);
      k++;
      continue;
    }
    kept.add(k);
  }
  if (kept.size === 0) kept.add(0);
  return kept;
}

/** Indexes kept of a code frame: the marked (`>`) line or the one above the caret, and the caret. */
function keptCode(run: readonly CleanLine[]): Set<number> {
  const kept = new Set<number>();
  run.forEach((l, k) => {
    if (/^\s*>/.test(l.text)) kept.add(k);
    if (CARET.test(l.text)) {
      kept.add(k);
      if (k > 0 && !kept.has(k - 1)) kept.add(k - 1);
    }
  });
  return kept.size === 0 ? new Set(run.map((_, k) => k)) : kept;
}

/** Adds the kept lines of `run`; each stretch of cut lines becomes one note line. */
function pushCut(
  out: CleanLine[],
  run: readonly CleanLine[],
  kept: ReadonlySet<number>,
  kind: "stack" | "code",
): void {
  let cut: CleanLine[] = [];
  const flush = () => {
    // A single cut line shows itself: the note would be as long.
    if (cut.length === 1) out.push(cut[0]!);
    else if (cut.length > 1) out.push(cutNote(cut[0]!, cut.length, kind));
    cut = [];
  };
  run.forEach((l, k) => {
    if (kept.has(k)) {
      flush();
      out.push(l);
    } else cut.push(l);
  });
  flush();
}

function cutNote(first: CleanLine, count: number, kind: string): CleanLine {
  return {
    text: `${" ".repeat(Math.min(12, indentOf(first.text)))}[… ${count} ${kind} lines cut]`,
    line: first.line,
    rawBytes: 0,
    count: 1,
    ansi: 0,
    redraws: 0,
  };
}
