// ignore_rules.ts (pure): gitignore levels and negations, explain(), and agreement with the
// `ignore` package on random trees.

import { assertEquals } from "../../_assert.ts";
import { IgnoreChain } from "../../../lib/core/search/ignore_rules.ts";

Deno.test("deeper ignore files win over shallower ones, negations included", () => {
  const chain = IgnoreChain.EMPTY.with("/r", "*.log\nbuild/\n!keep.log\n").with(
    "/r/sub",
    "!*.log\nsecret\n",
  );
  const cases: [string, boolean, boolean][] = [
    ["/r/a.log", false, true],
    ["/r/keep.log", false, false],
    ["/r/build", true, true],
    ["/r/build", false, false],
    ["/r/sub/a.log", false, false],
    ["/r/sub/secret", false, true],
    ["/r/other/secret", false, false],
  ];
  for (const [path, isDir, ignored] of cases) {
    assertEquals(chain.ignores(path, isDir), ignored, `${path} dir=${isDir}`);
  }
});

Deno.test("explain() names the file, line and pattern that decided, as ignores() decides", () => {
  const chain = IgnoreChain.EMPTY.with(
    "/r",
    "# build output\n*.log\nbuild/  \n!keep.log\n",
    "/r/.gitignore",
  )
    .with("/r/sub", "!*.log\nsecret\n");
  assertEquals(chain.explain("/r/a.log", false), {
    source: "/r/.gitignore",
    line: 2,
    pattern: "*.log",
  });
  assertEquals(chain.explain("/r/build", true), {
    source: "/r/.gitignore",
    line: 3,
    pattern: "build/",
  });
  // Unnamed ignore files still give the line; negated and unmatched entries give null.
  assertEquals(chain.explain("/r/sub/secret", false), { line: 2, pattern: "secret" });
  assertEquals(chain.explain("/r/keep.log", false), null);
  assertEquals(chain.explain("/r/sub/a.log", false), null);
  assertEquals(chain.explain("/r/src/a.ts", false), null);
  for (
    const [path, isDir] of [["/r/a.log", false], ["/r/keep.log", false], [
      "/r/build",
      true,
    ]] as const
  ) {
    assertEquals(chain.explain(path, isDir) !== null, chain.ignores(path, isDir), path);
  }
});

Deno.test("an ignore file with only comments adds no level", () => {
  assertEquals(IgnoreChain.EMPTY.with("/r", "# nothing\n\n").size, 0);
});

Deno.test("the rules agree with the ignore package (git semantics) on random trees", async () => {
  const fc = (await import("fast-check")).default;
  const ignore = (await import("ignore")).default;
  const patterns = [
    "*.log",
    "build/",
    "!keep.log",
    "/root.txt",
    "a/**/b",
    "**/deep",
    "docs/*.md",
    "x?z",
    "[ab]c",
    "!b*",
    "sub/",
    "# a comment",
    "\\#hash",
    "{x,y}",
    "spaced   ",
    "foo/**",
    "*.d.ts",
    "!important/*.log",
    "/docs",
    "a/b/",
    "/b*",
    "/*.md",
    "bu*",
    "*",
    "r.md",
    "/sub/deep",
  ];
  const names = [
    "a",
    "b",
    "c",
    "bc",
    "build",
    "keep.log",
    "x.log",
    "root.txt",
    "deep",
    "docs",
    ".log",
  ]
    .concat(["r.md", "xyz", "sub", "#hash", "{x,y}", "foo", "t.d.ts", "important", "spaced"]);
  fc.assert(
    fc.property(
      fc.subarray(patterns, { minLength: 1 }),
      fc.array(fc.constantFrom(...names), { minLength: 1, maxLength: 4 }),
      (rules: string[], parts: string[]) => {
        const text = rules.join("\n");
        const chain = IgnoreChain.EMPTY.with("/r", text);
        // As the walker sees it: a directory that is ignored is never entered.
        let ours = false;
        for (let i = 1; i <= parts.length && !ours; i++) {
          const path = `/r/${parts.slice(0, i).join("/")}`;
          ours = chain.ignores(path, i < parts.length);
          // The explanation an empty result gives agrees with the decision.
          const why = chain.explain(path, i < parts.length);
          assertEquals(why !== null, ours, path);
          if (why) assertEquals(rules[why.line - 1]?.trim(), why.pattern);
        }
        const theirs = ignore().add(text).ignores(parts.join("/"));
        assertEquals(ours, theirs, `${JSON.stringify(rules)} vs ${parts.join("/")}`);
      },
    ),
    { numRuns: 3000 },
  );
});

Deno.test("with core.ignorecase, rules match names without case, as the ignore package's ignorecase", async () => {
  const fc = (await import("fast-check")).default;
  const ignore = (await import("ignore")).default;
  const patterns = ["*.LOG", "Build/", "!Keep.log", "/Root.txt", "docs/*.md", "x?Z", "[AB]c"]
    .concat(["!b*", "Sub/", "foo/**", "*.d.TS", "/B*", "bu*", "r.MD", "/sub/Deep", "a/**/B"]);
  const names = ["a", "B", "bc", "BUILD", "keep.LOG", "X.log", "root.TXT", "Deep", "DOCS"]
    .concat(["r.md", "xyz", "SUB", "Foo", "t.D.ts", "build"]);
  fc.assert(
    fc.property(
      fc.subarray(patterns, { minLength: 1 }),
      fc.array(fc.constantFrom(...names), { minLength: 1, maxLength: 4 }),
      fc.boolean(),
      (rules: string[], parts: string[], folds: boolean) => {
        const text = rules.join("\n");
        const chain = IgnoreChain.EMPTY.withIgnoreCase(folds).with("/r", text);
        let ours = false;
        for (let i = 1; i <= parts.length && !ours; i++) {
          ours = chain.ignores(`/r/${parts.slice(0, i).join("/")}`, i < parts.length);
        }
        const theirs = ignore({ ignorecase: folds }).add(text).ignores(parts.join("/"));
        assertEquals(ours, theirs, `${folds} ${JSON.stringify(rules)} vs ${parts.join("/")}`);
      },
    ),
    { numRuns: 3000 },
  );
});

Deno.test("core.ignorecase applies to the levels added after it, not to those before", () => {
  const sensitive = IgnoreChain.EMPTY.with("/r", "*.LOG\n");
  const both = sensitive.withIgnoreCase(true).with("/r/sub", "Build/\n");
  assertEquals(both.ignores("/r/x.log", false), false);
  assertEquals(both.ignores("/r/x.LOG", false), true);
  assertEquals(both.ignores("/r/sub/BUILD", true), true);
  assertEquals(both.ignores("/r/sub/build", true), true);
  assertEquals(sensitive.ignores("/r/sub/build", true), false);
});

Deno.test("forDir answers as ignores() for every entry of the directory, over nested levels", async () => {
  const fc = (await import("fast-check")).default;
  const patterns = [
    "*.log",
    "build/",
    "!keep.log",
    "/root.txt",
    "a/**/b",
    "docs/*.md",
    "x?z",
    "!b*",
    "sub/",
    "/docs",
    "a/b/",
    "/b*",
    "bu*",
    "*",
    "!*",
    "/sub/deep",
    "deep/x.log",
  ];
  const names = ["a", "b", "bc", "build", "keep.log", "x.log", "root.txt", "deep", "docs", "sub"];
  // A level at /r, one in a subdirectory, maybe one deeper; each entry of each directory on
  // the way is asked both ways, as a file and as a directory, with and without ignorecase.
  fc.assert(
    fc.property(
      fc.array(fc.subarray(patterns, { minLength: 1 }), { minLength: 1, maxLength: 3 }),
      fc.array(fc.constantFrom(...names), { minLength: 1, maxLength: 3 }),
      fc.boolean(),
      (levels: string[][], dirs: string[], ignoreCase: boolean) => {
        let chain = IgnoreChain.EMPTY.withIgnoreCase(ignoreCase);
        levels.forEach((rules, i) => {
          chain = chain.with(["/r", ...dirs.slice(0, i)].join("/"), rules.join("\n"));
        });
        for (let depth = 0; depth <= dirs.length; depth++) {
          const dir = ["/r", ...dirs.slice(0, depth)].join("/");
          const here = chain.forDir(dir);
          for (const name of [...names, "KEEP.LOG", "Build"]) {
            for (const isDir of [false, true]) {
              assertEquals(
                here.size > 0 && here.ignores(name, isDir),
                chain.ignores(`${dir}/${name}`, isDir, name),
                `${JSON.stringify(levels)} in ${dir}: ${name} dir=${isDir}`,
              );
            }
          }
        }
      },
    ),
    { numRuns: 1500 },
  );
});

Deno.test("forDir of the file system's root and of a directory no level covers", () => {
  const chain = IgnoreChain.EMPTY.with("/", "*.log\n").with("/srv/app", "dist/\n");
  assertEquals(chain.forDir("/").ignores("a.log", false), true);
  assertEquals(chain.forDir("/").ignores("dist", true), false);
  assertEquals(chain.forDir("/srv/app").ignores("dist", true), true);
  assertEquals(chain.forDir("/srv/app/").ignores("dist", true), true);
  // "/srv/application" is not below "/srv/app": only the root's level applies there.
  assertEquals(chain.forDir("/srv/application").size, 1);
  assertEquals(chain.forDir("/srv/application").ignores("dist", true), false);
  assertEquals(IgnoreChain.EMPTY.forDir("/srv").size, 0);
});
