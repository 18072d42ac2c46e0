// `anchorfs mcp` start-up through the real CLI entry: a --path naming a file, start-up errors with
// next steps as commands, an unreadable state dir as a warning.

import { assertEquals, assertStringIncludes } from "../_assert.ts";
import { runCliProcess, tempDir } from "../_harness.ts";
import { AnchorError } from "../../lib/core/errors.ts";
import { toolCallSyntax } from "../../lib/core/next_step.ts";
import { recoveryWarningText } from "../../lib/mcp/command.ts";

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

Deno.test("an unreadable state dir at start-up is a warning with its hint, not a stack trace", async () => {
  const unreadable = new AnchorError({
    code: "STATE_DIR_UNREADABLE",
    message: 'Cannot read the job state dir "x/jobs": Not a directory',
    hint: "Make the state dir readable, or point anchorfs at another one with --state-dir DIR.",
    fault: "environment",
  });
  assertEquals(
    recoveryWarningText(unreadable, toolCallSyntax),
    'anchorfs mcp: warning: Cannot read the job state dir "x/jobs": Not a directory\n' +
      "The jobs of earlier servers were not checked, and the shell and jobs tools fail the same " +
      "way until this is fixed.\nhint: Make the state dir readable, or point anchorfs at " +
      "another one with --state-dir DIR.",
  );
  // A bug keeps its stack trace (logged as such).
  assertEquals(recoveryWarningText(new TypeError("x is undefined"), toolCallSyntax), undefined);

  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/file`, "x\n");
  const r = await runCliProcess(["mcp", "--path", dir.path, "--state-dir", `${dir.path}/file`]);
  assertEquals(r.code, 0, r.stderr); // stdin closed: it served, then ended
  assertEquals(r.stderr.includes("    at "), false, `a stack trace on stderr:\n${r.stderr}`);
});
