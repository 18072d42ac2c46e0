// `anchorfs workdir PATH` through the real CLI entry: says the directory is usable without
// claiming to change it.

import { assertEquals, assertNotIncludes, assertStringIncludes } from "../_assert.ts";
import { runCliProcess, tempDir } from "../_harness.ts";

Deno.test("anchorfs workdir PATH says the directory is usable, without claiming to change it", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/sub`);
  const r = await runCliProcess(["workdir", "sub"], { cwd: dir.path });
  assertEquals(r.code, 0, r.stderr);
  assertStringIncludes(r.stdout, `${dir.path}/sub is a directory anchorfs can use`);
  assertStringIncludes(r.stdout, `anchorfs mcp --path ${dir.path}/sub`);
  assertNotIncludes(r.stdout, "set to");
  const got = await runCliProcess(["workdir"], { cwd: dir.path });
  assertEquals(got.stdout, `Working directory: ${dir.path}\n`);
  const missing = await runCliProcess(["workdir", "nope"], { cwd: dir.path });
  assertEquals(missing.code, 1);
  assertStringIncludes(missing.stderr, `No directory at "${dir.path}/nope"`);
});
