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

Deno.test("anchorfs mcp start-up errors write their next steps as commands a person runs", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/app`);
  const env = { ANCHORFS_STATE_DIR: `${dir.path}/state` };
  const missing = await runCliProcess(["mcp", "--path", "app/nope/deeper"], {
    cwd: dir.path,
    env,
  });
  assertEquals(missing.code, 2);
  assertEquals(missing.stdout, "");
  // The nearest existing parent's listing, as `anchorfs view`, never as a view tool call.
  assertStringIncludes(
    missing.stderr,
    `Its nearest existing parent is "${dir.path}/app": \`anchorfs view ${dir.path}/app\` ` +
      "lists it.",
  );
  assertEquals(missing.stderr.includes('view {"path"'), false, missing.stderr);
  // A directory after a flag that takes none: the flags that take one.
  const stray = await runCliProcess(["mcp", "--roots", "/srv/app"], { cwd: dir.path, env });
  assertEquals(stray.code, 2);
  assertStringIncludes(
    stray.stderr,
    "hint: anchorfs mcp takes no operands: --path /srv/app starts the session there, " +
      "--allow /srv/app confines the file tools to it (--roots takes no value: the client " +
      "names the roots); anchorfs mcp --help lists the options",
  );
});
