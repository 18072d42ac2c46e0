// Every export of lib/ is imported by another file of the product (lib/, main.ts, mod.ts), or is
// marked "Exported for tests" / "Exported for benches" / "Exported for the release scripts" in its
// comment and imported by a test, a bench or a release script: an export nobody imports is either
// dead code or a name the module should keep to itself.
// Reads the sources as text (tests/arch/_exports.ts); lib/mod.ts-style public surfaces are mod.ts
// and main.ts at the root, whose exports are the library's and are not checked here.

import { assertEquals } from "../_assert.ts";
import { REPO_ROOT } from "../_harness.ts";
import { exportedNames, importsOf, taggedForTests } from "./_exports.ts";

/**
 * Files left as they are while other branches rewrite them (the HTTP and stdio work in lib/mcp):
 * their exports nobody imports are listed in that work, not removed under it.
 */
const PENDING: string[] = [
  "lib/mcp/",
];

async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(`${REPO_ROOT}/${dir}`)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) {
      if (e.name !== "fixtures" && e.name !== "node_modules") out.push(...await sources(path));
    } else if (e.name.endsWith(".ts")) out.push(path);
  }
  return out;
}

const isProduct = (path: string) =>
  path.startsWith("lib/") || path === "main.ts" || path === "mod.ts";

interface Finding {
  unimported: string[];
  staleTags: string[];
}

/** Checks the exports of `lib` files against what `files` (path → text) import. */
export function checkExports(files: Map<string, string>): Finding {
  const importers = new Map<string, Set<string>>(); // "module#name" or "module#*" → files
  for (const [path, text] of files) {
    for (const imp of importsOf(text, path)) {
      for (const name of imp.names === "*" ? ["*"] : imp.names) {
        const key = `${imp.module}#${name}`;
        if (!importers.has(key)) importers.set(key, new Set());
        importers.get(key)!.add(path);
      }
    }
  }
  const unimported: string[] = [];
  const staleTags: string[] = [];
  for (const [path, text] of files) {
    if (!path.startsWith("lib/") || PENDING.some((p) => path.startsWith(p))) continue;
    for (const [name, line] of exportedNames(text)) {
      const users = new Set([
        ...(importers.get(`${path}#${name}`) ?? []),
        ...(importers.get(`${path}#*`) ?? []),
      ]);
      users.delete(path);
      const product = [...users].some(isProduct);
      const tagged = taggedForTests(text, line);
      if (!product && !(tagged && users.size > 0)) unimported.push(`${path}:${line} ${name}`);
      if (product && tagged) staleTags.push(`${path}:${line} ${name}`);
    }
  }
  return { unimported, staleTags };
}

Deno.test("every export of lib/ is imported elsewhere, or marked for tests and imported by one", async () => {
  const files = new Map<string, string>();
  const paths = [
    ...await sources("lib"),
    ...await sources("tests"),
    ...await sources("scripts"),
    "main.ts",
    "mod.ts",
  ];
  for (const path of paths) files.set(path, await Deno.readTextFile(`${REPO_ROOT}/${path}`));
  assertEquals(checkExports(files), { unimported: [], staleTags: [] });
});

Deno.test("the export check sees an unimported export, a used one and a stale tag (so it can fail)", () => {
  const files = new Map([
    [
      "lib/a.ts",
      "export function used() {}\nexport const unused = 1;\n// Exported for tests.\n" +
      "export function seam() {}\n// Exported for tests.\nexport type Shape = { a: 1 };\n" +
      "/** Kept. */\nexport interface Dropped {}\n",
    ],
    ["lib/b.ts", 'import { used, type Shape } from "./a.ts";\n'],
    ["tests/a_test.ts", 'import { seam } from "../lib/a.ts";\n'],
    ["lib/c.ts", "export const viaStar = 1;\n"],
    ["main.ts", 'const m = await import("./lib/c.ts");\n'],
  ]);
  assertEquals(checkExports(files), {
    unimported: ["lib/a.ts:2 unused", "lib/a.ts:8 Dropped"],
    staleTags: ["lib/a.ts:6 Shape"],
  });
});

Deno.test("a dynamic import() takes the names its use reads, else the whole module", () => {
  const names = (code: string) => importsOf(code, "lib/x.ts").map((i) => i.names);
  assertEquals(names('const { a, b: c } = await import("./m.ts");'), [["a", "b"]]);
  assertEquals(names('const f = (await import("./m.ts")).f;'), [["f"]]);
  assertEquals(names('type F = typeof import("./m.ts").f;'), [["f"]]);
  assertEquals(names('import("./m.ts").then(({ A }) => new A());'), [["A"]]);
  assertEquals(names('const m = await import("./m.ts");'), ["*"]);
  assertEquals(names('Promise.all([import("./m.ts")]);'), ["*"]);
});
