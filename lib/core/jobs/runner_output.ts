// Telling a test or build run from a command whose output is the answer, and shortening what a
// failed run's tail spends on passing cases and runtime stack frames. A passing `git log`, `jq`
// or `seq` is shown whole (within the tail budget); a passing test run shows its summary lines;
// a failed run's tail keeps every line but runs of passing cases (one count line each) and the
// frames of the runtime and the runner (failure_blocks.ts). Pure.

import { isPassingLine, trimFailureBlock } from "./failure_blocks.ts";

/** Programs and subcommands that run tests or builds: their passing output is a tail to skip. */
const RUNNER_COMMAND = new RegExp(
  "(?:^|[\\s;&|(/])(?:" + [
    "npm (?:run|test|t|ci|install|i|build)\\b",
    "(?:yarn|pnpm|bun)(?: run)? (?:test|build|install)\\b",
    "npx (?:jest|vitest|mocha|tape|tsc|playwright)\\b",
    "(?:jest|vitest|mocha|tape|ava|karma|tsc|webpack|vite build|esbuild|rollup)\\b",
    "node (?:--test|test)\\b",
    "deno (?:test|task|check|lint|bench|compile)\\b",
    "(?:py\\.?test|tox|nox|coverage run)\\b",
    "python[0-9.]* -m (?:pytest|unittest|tox|build|pip)\\b",
    "pip[0-9.]* install\\b",
    "cargo (?:test|build|check|clippy|nextest|bench|run)\\b",
    "go (?:test|build|vet|install)\\b",
    "(?:make|ninja|cmake|ctest|meson|bazel|buck2?)\\b",
    "(?:mvn|mvnw|gradle|gradlew|ant|sbt)\\b",
    "(?:rspec|rake|bundle exec|phpunit|composer|dotnet (?:test|build)|swift (?:test|build)|mix test|stack (?:test|build)|cabal (?:test|build))\\b",
  ].join("|") + ")",
);

/** Passing-case lines past which an output reads as a test run, whatever the command. */
const RUNNER_PASSES = 3;

/**
 * Whether a passing command's output is a test or build run's (its last lines are the summary
 * and the rest is one call away) rather than output that is itself the answer.
 */
export function looksLikeRunner(command: string, output: string): boolean {
  if (RUNNER_COMMAND.test(command)) return true;
  let passes = 0;
  for (const line of output.split("\n")) {
    if (isPassingLine(line) && ++passes >= RUNNER_PASSES) return true;
  }
  return false;
}

/**
 * A failed run's tail as shown: runs of passing cases collapsed (collapsePassingRuns), stack
 * frames of the runtime and the runner and code frames cut as in failure excerpts.
 */
export function shortenFailedTail(text: string): { text: string; collapsed: number } {
  const passing = collapsePassingRuns(text);
  const lines = passing.text.split("\n").map((line, i) => ({
    text: line,
    line: i + 1,
    rawBytes: 0,
    count: 1,
    ansi: 0,
    redraws: 0,
  }));
  const trimmed = trimFailureBlock(lines);
  return {
    text: trimmed.length === lines.length ? passing.text : trimmed.map((l) => l.text).join("\n"),
    collapsed: passing.collapsed,
  };
}

/** Runs of passing cases shorter than this stay as they are. */
const MIN_COLLAPSED = 3;

/**
 * `text` with each run of MIN_COLLAPSED or more passing cases (a TAP `ok` line with its YAML
 * block, `✓ case`, `test x ... ok`; with the blank and `#` comment lines between them) replaced
 * by one `[… N passing]` line; `collapsed` counts the cases left out.
 */
function collapsePassingRuns(text: string): { text: string; collapsed: number } {
  const lines = text.split("\n");
  const out: string[] = [];
  let collapsed = 0;
  let i = 0;
  while (i < lines.length) {
    let j = i;
    let passes = 0;
    for (let next = passingUnitEnd(lines, j); next > j; next = passingUnitEnd(lines, j)) {
      passes++;
      j = next;
    }
    if (passes >= MIN_COLLAPSED) {
      out.push(`[… ${passes} passing test lines]`);
      collapsed += passes;
      i = j;
    } else {
      const end = Math.max(j, i + 1);
      out.push(...lines.slice(i, end));
      i = end;
    }
  }
  return collapsed === 0 ? { text, collapsed } : { text: out.join("\n"), collapsed };
}

/** Lines around passing cases: blank, TAP comments, go's `=== RUN`. */
const PASS_FILLER = /^\s*$|^\s*#\s|^\s*=== (?:RUN|PAUSE|CONT|NAME)\s/;

/**
 * The end (exclusive) of the passing case that starts at `i`: blank and comment lines, the
 * passing line, and a TAP YAML block after it (`  ---` … `  ...`); `i` when none starts there.
 */
function passingUnitEnd(lines: readonly string[], i: number): number {
  let k = i;
  while (k < lines.length && PASS_FILLER.test(lines[k]!)) k++;
  if (k >= lines.length || !isPassingLine(lines[k]!)) return i;
  k++;
  if (/^\s+---\s*$/.test(lines[k] ?? "")) {
    for (let e = k + 1; e < Math.min(lines.length, k + 40); e++) {
      if (/^\s+\.\.\.\s*$/.test(lines[e]!)) return e + 1;
    }
  }
  return k;
}
