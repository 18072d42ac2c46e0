// The JSR package: `deno publish --dry-run` (offline: it checks types, slow types, the license
// and the file list without contacting jsr.io) passes, ships the CLI entry and leaves tests out.

import { assertEquals, assertStringIncludes } from "../_assert.ts";
import { REPO_ROOT } from "../_harness.ts";

Deno.test("deno.json exports the library and the CLI (so jsr:@anchorfs/anchorfs/cli mcp serves)", async () => {
  const config = JSON.parse(await Deno.readTextFile(`${REPO_ROOT}/deno.json`));
  assertEquals(config.exports, { ".": "./mod.ts", "./cli": "./main.ts" });
  assertEquals(config.license, "MIT");
});

Deno.test("deno publish --dry-run passes and ships LICENSE, main.ts and lib/ but no tests", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["publish", "--dry-run", "--allow-dirty"],
    cwd: REPO_ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  // A failure here is usually a "slow type" (an exported class field or function without an
  // explicit type): add the annotation deno names, e.g. `readonly id: string = ...`.
  assertEquals(out.code, 0, text);
  assertStringIncludes(text, "Dry run complete");
  const outline = [
    "/lib/core/outline/languages.ts",
    "/lib/backends/tree_sitter/tree_sitter_parser.ts",
  ];
  for (
    const file of ["/LICENSE", "/main.ts", "/mod.ts", "/lib/version.ts", "/README.md", ...outline]
  ) {
    assertStringIncludes(text, `${REPO_ROOT}${file} `);
  }
  assertEquals(text.includes(`${REPO_ROOT}/tests/`), false, "tests are not published");
  assertEquals(text.includes(`${REPO_ROOT}/scripts/`), false, "scripts are not published");
});
