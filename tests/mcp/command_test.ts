import { assertEquals, assertStringIncludes } from "../_assert.ts";
import { runCliProcess, tempDir } from "../_harness.ts";

Deno.test("anchorfs mcp --path naming a file says it is a file and offers its folder", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/sub`);
  await Deno.writeTextFile(`${dir.path}/sub/main.ts`, "x\n");
  const env = { ANCHORFS_STATE_DIR: `${dir.path}/state` };
  const r = await runCliProcess(["mcp", "--path", "sub/main.ts"], { cwd: dir.path, env });
  assertEquals(r.code, 2); // a bad argument: the CLI's usage exit code
  assertEquals(r.stdout, "");
  assertStringIncludes(
    r.stderr,
    'error: --path "sub/main.ts" is a file, not a directory; the session starts in a ' +
      "directory.",
  );
  assertStringIncludes(r.stderr, "hint: Pass its folder: anchorfs mcp --path sub");
  const missing = await runCliProcess(["mcp", "--path", "nope"], { cwd: dir.path, env });
  assertEquals(missing.code, 2);
  assertStringIncludes(missing.stderr, '--path "nope" does not exist.');
});
