// Which output lines look like failures, and the excerpts a failed command's result shows.

import { assert, assertEquals } from "../../_assert.ts";
import {
  countWarningLines,
  isFailureLine,
  pickFailureExcerpts,
} from "../../../lib/core/jobs/failure_lines.ts";
import { cleanTerminalText, renderCleanLines } from "../../../lib/core/text/terminal_text.ts";
import { loadCorpus, missingParts } from "../../../scripts/bench/failure_excerpt_bench.ts";
import { REPO_ROOT } from "../../_harness.ts";

Deno.test("failure-looking lines from common runners and compilers", () => {
  const failures = [
    "not ok 4 - parses ISO dates",
    "FAIL src/date.test.js",
    "--- FAIL: TestParse (0.00s)",
    "FAILED tests/test_money.py::test_round - assert 0.30000000000000004 == 0.3",
    "TypeError: Cannot read properties of undefined (reading 'x')",
    "Error: ENOENT: no such file or directory",
    "  AssertionError [ERR_ASSERTION]: 1 == 2",
    "src/main.c:10:5: error: expected ';' before '}' token",
    "error[E0308]: mismatched types",
    "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
    "src/a.ts:3:7 - error TS2322: Type 'string' is not assignable",
    "./main.go:12:2: undefined: foo",
    "Traceback (most recent call last):",
    "thread 'main' panicked at src/main.rs:2:5:",
    "E       assert 1 == 2",
    "Assertion failed: (x > 0), function main, file a.c, line 3.",
    "    Expected: 3",
    "    Received: 4",
    "  ✕ adds numbers (3 ms)",
    "  × renders the header",
    "org.junit.ComparisonFailure: expected:<3> but was:<2>",
    "  ● Suite › adds numbers",
  ];
  for (const line of failures) assert(isFailureLine(line), line);
  const fine = [
    "ok 3 - parses case 3",
    "# fail 0",
    "Tests: 12 passed, 12 total",
    "0 errors, 0 warnings",
    "compiling error_handling.rs",
    "      at Object.<anonymous> (test/a.test.js:5:3)",
    "PASS src/a.test.js",
    "test result: ok. 3 passed; 0 failed",
    "handles errors gracefully",
  ];
  for (const line of fine) assert(!isFailureLine(line), line);
});

Deno.test("excerpts: context around each failure (passing lines left out), overlaps merged, in log order", () => {
  const raw = [
    "ok 1", // 1
    "not ok 2 - a", // 2
    "  error: boom", // 3
    "  at x", // 4
    "ok 3", // 5
    "ok 4", // 6
    "ok 5", // 7
    "ok 6", // 8
    "ok 7", // 9
    "not ok 8 - b", // 10
    "ok 9", // 11
  ].join("\n");
  const { lines } = cleanTerminalText(raw);
  const digest = pickFailureExcerpts(lines, { before: 1, after: 2 });
  assertEquals(digest.matched, 3);
  assertEquals(digest.shown, 3);
  assertEquals(digest.excerpts.map((e) => [e.firstLine, e.lastLine]), [[2, 4], [10, 10]]);
});

Deno.test("excerpts stop at their byte cap and count what they left out", () => {
  const raw = Array.from({ length: 500 }, (_, i) => `not ok ${i} - ${"x".repeat(80)}`).join(
    "\n",
  );
  const { lines } = cleanTerminalText(raw);
  const digest = pickFailureExcerpts(lines, { maxWireBytes: 1000 });
  assertEquals(digest.matched, 500);
  assert(digest.shown > 0 && digest.shown < 500, String(digest.shown));
  const bytes = digest.excerpts.reduce(
    (n, e) => n + e.lines.reduce((m, l) => m + l.text.length + 1, 0),
    0,
  );
  assert(bytes <= 1000, String(bytes));
});

Deno.test("only a line's first 2,000 characters are tested (minified lines, floods)", () => {
  assert(isFailureLine(`Error: at the start ${"x".repeat(5000)}`));
  assert(!isFailureLine(`${"x".repeat(3000)} Error: far in`));
});

Deno.test("countWarningLines() counts lines that look like warnings, once per line", () => {
  const cases: [string, number][] = [
    ["warning: unused variable `x`\n", 1],
    ["npm WARN deprecated glob@7.2.3\n", 1],
    ["(node:12) DeprecationWarning: Buffer() is deprecated\n", 1],
    ["src/a.rs:3:5: warning: unused import\nwarning: 2 more\n", 2],
    ["\x1b[33mwarning\x1b[0m: colour\n", 1],
    ["warn warn warning on one line\n", 1],
    ["Compiled with 0 warnings\n--no-warnings\nforewarned\n", 0],
    ["ok 1\nok 2\n", 0],
    ["", 0],
    ["last line warning", 1],
  ];
  for (const [text, n] of cases) assertEquals(countWarningLines(text), n, JSON.stringify(text));
});

Deno.test("excerpts take a `not ok` line's whole TAP diagnostic block (expected, actual, at)", () => {
  const block = [
    "not ok 57 should be equal", // 2
    "  ---", // 3
    "    operator: deepStrictEqual", // 4
    '    expected: {"y":5.76}', // 5
    '    actual:   {"y":5.67}', // 6
    "    at: nums", // 7
    "  ...", // 8
  ];
  const raw = ["ok 56", ...block, "ok 58", "ok 59", "ok 60", "ok 61"].join("\n");
  const digest = pickFailureExcerpts(cleanTerminalText(raw).lines);
  assertEquals(digest.excerpts.map((e) => [e.firstLine, e.lastLine]), [[2, 8]]);
  // An unclosed block keeps the usual three lines of context.
  const open = ["ok 56", ...block.slice(0, 6), ...Array(30).fill("    more")].join("\n");
  const cut = pickFailureExcerpts(cleanTerminalText(open).lines);
  assertEquals(cut.excerpts.map((e) => [e.firstLine, e.lastLine]), [[2, 5]]);
});

Deno.test("a passing assertion or a TAP comment naming a test is not a failure line", () => {
  for (
    const line of [
      "ok 310 Should throw RangeError",
      "ok 203 - Should throw RangeError",
      "# Should throw RangeError",
      "# Subtest: Should throw RangeError",
      "    ✓ Should throw RangeError (1 ms)",
      "test tests::parses_error ... ok",
      "test_errors.py::test_raises_value_error PASSED                  [ 50%]",
      "--- PASS: TestParseError (0.00s)",
    ]
  ) assert(!isFailureLine(line), line);
  assert(isFailureLine("not ok 311 Should throw RangeError"));
});

Deno.test("a TAP block longer than the old 16-line limit is taken whole, its stack cut to the test's frame", () => {
  const block = [
    "not ok 101 adds small numbers",
    "  ---",
    "    operator: deepEqual",
    "    expected: |-",
    ...Array.from({ length: 12 }, (_, i) => `      line ${i} of the expected value`),
    "    actual: |-",
    "      { a: 1 }",
    "    at: Test.<anonymous> (/app/test/a.js:13:4)",
    "    stack: |-",
    "      Error: adds small numbers",
    "          at Test.assert [as _assert] (/app/node_modules/tape/lib/test.js:548:48)",
    "          at Test.tapeDeepEqual (/app/node_modules/tape/lib/test.js:815:7)",
    "          at Test.<anonymous> (/app/test/a.js:13:4)",
    "          at Test.run (/app/node_modules/tape/lib/test.js:151:28)",
    "          at process.processImmediate (node:internal/timers:483:21)",
    "  ...",
  ];
  const raw = [...Array.from({ length: 50 }, (_, i) => `ok ${i + 1} case`), ...block, "ok 102 x"];
  const digest = pickFailureExcerpts(cleanTerminalText(raw.join("\n")).lines);
  assertEquals(digest.excerpts.length, 1);
  const e = digest.excerpts[0]!;
  assertEquals([e.firstLine, e.lastLine], [51, 50 + block.length]);
  const text = renderCleanLines(e.lines);
  for (const part of ["expected: |-", "line 11 of the expected value", "actual: |-", "at: Test."]) {
    assert(text.includes(part), part);
  }
  assert(text.includes("at Test.<anonymous> (/app/test/a.js:13:4)"), text);
  assert(!text.includes("node_modules/tape"), text);
  assert(text.includes("[… 2 stack lines cut]"), text);
});

Deno.test("every failure of the corpus has its name, expected, actual and location in the excerpts", () => {
  for (const entry of loadCorpus()) {
    const raw = Deno.readTextFileSync(`${REPO_ROOT}/tests/fixtures/failure_corpus/${entry.file}`);
    const { lines } = cleanTerminalText(raw);
    const digest = pickFailureExcerpts(lines);
    const text = digest.excerpts.map((e) => renderCleanLines(e.lines)).join("\n");
    assertEquals(missingParts(text, entry), [], entry.file);
    const bytes = digest.excerpts.reduce((n, e) => n + renderCleanLines(e.lines).length, 0);
    assert(bytes <= 4096, `${entry.file}: ${bytes} bytes of excerpts`);
  }
});
