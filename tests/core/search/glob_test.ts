// glob.ts (pure): globs match as ripgrep's -g does (depth, paths, later globs win, pruning), and
// invalid patterns are refused saying what to change.

import { assert, assertEquals, assertStringIncludes, assertThrows } from "../../_assert.ts";
import { compileGlobs } from "../../../lib/core/search/glob.ts";
import { AnchorError } from "../../../lib/core/errors.ts";

const cases: [string, string, boolean][] = [
  ["*.ts", "a.ts", true],
  ["*.ts", "src/deep/a.ts", true],
  ["*.ts", "a.tsx", false],
  ["*.{ts,tsx}", "src/a.tsx", true],
  ["src/*.ts", "src/a.ts", true],
  ["src/*.ts", "src/x/a.ts", false],
  ["src/**/*.ts", "src/x/y/a.ts", true],
  ["src/**/*.ts", "src/a.ts", true],
  ["**/test/*.ts", "a/b/test/x.ts", true],
  ["/a.ts", "a.ts", true],
  ["/a.ts", "b/a.ts", false],
  ["src/**", "src/a/b/c", true],
  ["src/**", "lib/a", false],
  ["?.md", "a.md", true],
  ["?.md", "ab.md", false],
  ["[abc].txt", "b.txt", true],
  ["[!abc].txt", "d.txt", true],
  ["[!abc].txt", "a.txt", false],
  ["[a-c]x", "bx", true],
  ["{a,{b,c}}.js", "c.js", true],
  ["\\#x", "#x", true],
  ["*.ts|!*_test.ts", "a_test.ts", false],
  ["*.ts|!*_test.ts", "a.ts", true],
  ["!*_test.ts|*.ts", "a_test.ts", true],
  ["!*.min.js", "a.js", true],
  ["!*.min.js", "a.min.js", false],
  ["*.ts", "README.md", false],
];

Deno.test("compileGlobs matches like ripgrep -g: names at any depth, paths with /, later globs win", () => {
  for (const [pattern, path, keep] of cases) {
    assertEquals(compileGlobs(pattern).keepsFile(path), keep, `${pattern} vs ${path}`);
  }
});

Deno.test("include globs never prune directories; exclusions do", () => {
  const f = compileGlobs("*.ts|!node_modules|!build/");
  assert(f.keepsDir("src"));
  assert(!f.keepsDir("a/node_modules"));
  assert(!f.keepsDir("build"));
  assert(compileGlobs("!build/").keepsFile("build"), "a trailing / only matches directories");
});

const invalid: [string, string][] = [
  ["a\nb", "one line"],
  ["x".repeat(4097), "4096"],
  [Array.from({ length: 65 }, (_, i) => `a${i}`).join("|"), "64"],
  ["{".repeat(17) + "a" + "}".repeat(17), "16 deep"],
  ["{a,}", "empty alternative"],
  ["{}", "empty alternative"],
  ["a#b", "\\#"],
  ["[abc", "closing ]"],
  ["{a,b", "closing }"],
  ["a||b", "Remove the extra |"],
  ["!", "after the !"],
  ["a\\", "backslash"],
];

Deno.test("compileGlobs refuses invalid patterns with a message saying what to change", () => {
  for (const [pattern, expected] of invalid) {
    const error = assertThrows(() => compileGlobs(pattern)) as AnchorError;
    assertEquals(error.code, "INVALID_PATTERN", pattern);
    assertStringIncludes(`${error.message} ${error.hint}`, expected, pattern);
  }
});
