// glob_shortcuts.ts (pure): the names and directories a glob rules out are ones its filter drops,
// and never one it keeps (property test).

import fc from "fast-check";
import { assert, assertEquals } from "../../_assert.ts";
import { compileGlobs } from "../../../lib/core/search/glob.ts";
import { globShortcuts } from "../../../lib/core/search/glob_shortcuts.ts";

Deno.test("globShortcuts: a name or a directory it rules out is one the filter drops", () => {
  const cases: [string, string, boolean][] = [
    // pattern, file name, whether the name may match
    ["**/package.json", "package.json", true],
    ["**/package.json", "package.jsonx", false],
    ["*.ts", "a.ts", true],
    ["*.ts", ".ts", true],
    ["*.ts", "a.tsx", false],
    ["test_*", "test_a.py", true],
    ["test_*", "a_test.py", false],
    ["*.ts|*.md", "README.md", true],
    ["*.ts|!*_test.ts", "a.js", false],
    ["src/**", "anything", true], // `**` at the end: any name
    ["*.{ts,js}", "a.py", true], // braces: no shortcut
    ["a?.ts", "zz", true], // `?`: no shortcut
    ["*.test.*", "a.py", true], // two stars: no shortcut
    ["build/", "x", false], // only a directory glob: no file is kept
  ];
  for (const [pattern, name, may] of cases) {
    const shortcuts = globShortcuts(compileGlobs(pattern))!;
    assertEquals(shortcuts.fileNameMayMatch(name), may, `${pattern} ${name}`);
  }
  assertEquals(globShortcuts(compileGlobs("!*.log")), null, "excludes alone decide nothing early");
  const dirs: [string, string, boolean][] = [
    ["src/**/*.ts", "src", true],
    ["src/**/*.ts", "src/a/b", true],
    ["src/**/*.ts", "lib", false],
    ["/src/*.ts", "src", true],
    ["/src/*.ts", "src/deep", false], // no `**`: the glob ends at its own depth
    ["*/x.ts", "a", true],
    ["*/x.ts", "a/b", false],
    ["**/package.json", "any/depth", true],
    ["*.ts", "any/depth", true], // a name glob matches at any depth
    ["src/**|docs/*.md", "docs", true],
    ["src/**|docs/*.md", "tests", false],
  ];
  for (const [pattern, dir, may] of dirs) {
    const shortcuts = globShortcuts(compileGlobs(pattern))!;
    assertEquals(shortcuts.dirMayHold(dir), may, `${pattern} ${dir}`);
  }
});

Deno.test("globShortcuts never rule out a file the filter keeps (property)", () => {
  const segment = fc.constantFrom(
    "src",
    "lib",
    "a",
    "b.ts",
    "x.md",
    "package.json",
    "*",
    "**",
    "*.ts",
    "te*",
  );
  const glob = fc.tuple(
    fc.boolean(),
    fc.array(segment, { minLength: 1, maxLength: 4 }),
    fc.boolean(),
  )
    .map(([anchored, parts, exclude]) =>
      `${exclude ? "!" : ""}${anchored ? "/" : ""}${parts.join("/")}`
    );
  const pattern = fc.array(glob, { minLength: 1, maxLength: 3 }).map((g) => g.join("|"));
  const name = fc.constantFrom("src", "lib", "a", "b.ts", "x.md", "package.json", "test.ts", "c");
  const path = fc.array(name, { minLength: 1, maxLength: 5 });
  fc.assert(
    fc.property(pattern, path, (p, parts) => {
      let filter;
      try {
        filter = compileGlobs(p);
      } catch {
        return; // invalid globs are refused before any walk
      }
      const shortcuts = globShortcuts(filter);
      const rel = parts.join("/");
      if (!shortcuts || !filter.keepsFile(rel)) return;
      assert(shortcuts.fileNameMayMatch(parts[parts.length - 1]!), `${p}: name of ${rel}`);
      for (let i = 1; i < parts.length; i++) {
        const dir = parts.slice(0, i).join("/");
        assert(shortcuts.dirMayHold(dir), `${p}: ${dir} holds ${rel}`);
      }
    }),
    { numRuns: 3000 },
  );
});
