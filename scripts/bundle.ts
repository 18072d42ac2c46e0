// Builds the single-file bundle (`dist/anchorfs.js`, run with `deno run -A dist/anchorfs.js`).
// ssh2 needs two fixes a plain `deno bundle` does not make: its optional native addons (`*.node`,
// loaded in try/catch, pure JS is used without them) must stay external, and its bundled CommonJS
// reads `__dirname`/`__filename`, which ES modules lack, so the bundle defines them first.
//
// Usage: deno run -A scripts/bundle.ts [--out FILE]

import { parseArgs } from "node:util";

/** Defines the CommonJS globals ssh2's bundled code reads at load time. */
export const PROLOGUE =
  "var __dirname = import.meta.dirname, __filename = import.meta.filename; // anchorfs bundle\n";

/**
 * JSDoc types that import a package's own files (re2js: `{import('./index.js').RE2JS}`) point
 * nowhere once bundled, and `deno compile` type-checks the bundle: it failed with TS2307. They are
 * comments, so they become `{any}`.
 */
export function dropRelativeTypeImports(code: string): string {
  // Only on JSDoc lines (` * @param {...}`): code is never touched.
  return code.replace(
    /^(\s*\*.*)\{import\((['"])\.{1,2}\/[^'"]*\2\)(\.[\w.]+)?\}/gm,
    "$1{any}",
  );
}

export async function bundle(out: string): Promise<void> {
  const root = new URL("..", import.meta.url).pathname;
  const raw = `${out}.raw.js`;
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--platform=deno", "--external=*.node", "main.ts", "-o", raw],
    cwd: root,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!result.success) throw new Error(`deno bundle failed (exit ${result.code})`);
  try {
    await Deno.writeTextFile(out, PROLOGUE + dropRelativeTypeImports(await Deno.readTextFile(raw)));
  } finally {
    await Deno.remove(raw).catch(() => {});
  }
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { out: { type: "string" } } });
  const out = values.out ??
    new URL("../dist/anchorfs.js", import.meta.url).pathname;
  await Deno.mkdir(out.slice(0, out.lastIndexOf("/")) || ".", { recursive: true });
  await bundle(out);
  // deno-lint-ignore no-console
  console.error(`wrote ${out}`);
}
