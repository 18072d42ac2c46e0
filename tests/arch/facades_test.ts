// lib/core has no facade files: a module there defines what it exports, so an import names the
// file that owns a name. (The folders once had mod.ts files claiming to be their public surface
// while most imports went around them; mod.ts at the repository root is the library's surface.)
// Reads lib/core's sources as text.

import { assertEquals } from "../_assert.ts";
import { REPO_ROOT } from "../_harness.ts";

async function coreFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(`${REPO_ROOT}/${dir}`)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) out.push(...await coreFiles(path));
    else if (e.name.endsWith(".ts")) out.push(path);
  }
  return out.sort();
}

/** Whether a module only re-exports: every statement is a comment or `export … from`. */
export function onlyReexports(text: string): boolean {
  const code = text
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "")
    .replace(/export\s+(?:type\s+)?(?:\*(?:\s+as\s+\w+)?|\{[^}]*\})\s*from\s+["'][^"']+["'];?/g, "")
    .trim();
  return code === "" && /\bfrom\s+["']/.test(text);
}

Deno.test("no file under lib/core only re-exports others (no facades)", async () => {
  const facades: string[] = [];
  for (const path of await coreFiles("lib/core")) {
    if (onlyReexports(await Deno.readTextFile(`${REPO_ROOT}/${path}`))) facades.push(path);
  }
  assertEquals(facades, []);
});

Deno.test("the facade scan tells a facade from a module (so the rule above can fail)", () => {
  const facade =
    '// the surface\nexport { a, type B } from "./a.ts";\nexport {\n  c,\n} from "./c.ts";\n';
  assertEquals(onlyReexports(facade), true);
  assertEquals(onlyReexports('export { a } from "./a.ts";\nexport const b = 1;\n'), false);
  assertEquals(onlyReexports("export function f() {}\n"), false);
});
