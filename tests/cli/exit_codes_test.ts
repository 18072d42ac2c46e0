// The CLI's exit codes and error shape: the same kind of mistake gets the same code (2) and the
// same `error:`/`hint:` lines in every subcommand and in `anchorfs mcp`; `jobs tail -f` ends with
// the job's result; progress is drawn only on a terminal.

import { assertEquals, assertStringIncludes } from "../_assert.ts";
import { runCliProcess, tempDir, writeTree } from "../_harness.ts";
import { jobIdOf, pause, startJobsServer } from "../mcp/_jobs_helpers.ts";
import { needing } from "../_requires.ts";

const needs = needing("bash");

Deno.test("a malformed argument exits 2 with error: and hint: lines in every command", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "a.txt": "x\n" });
  const env = { ANCHORFS_STATE_DIR: `${dir.path}/state` };
  const calls = [
    ["view", "a.txt", "--start", "abc"],
    ["view", "a.txt", "--bogus"],
    // SEARCH_TOO_LONG: search text past 4,096 characters is the caller's to shorten.
    ["view", "a.txt", "--content", "a".repeat(5000)],
    ["jobs", "tail", "1-2", "--bytes", "abc"],
    ["mcp", "--foreground-window", "abc"],
    ["mcp", "--bogus"],
    ["nonsense"],
  ];
  for (const args of calls) {
    const r = await runCliProcess(args, { cwd: dir.path, env });
    assertEquals(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assertEquals(r.stdout, "", args.join(" "));
    assertEquals(r.stderr.startsWith("error: "), true, `${args.join(" ")}: ${r.stderr}`);
    assertStringIncludes(r.stderr, "\nhint: ", args.join(" "));
    assertEquals(r.stderr.includes("    at "), false, `no stack trace: ${r.stderr}`);
    assertEquals(r.stderr.includes("Next:"), false, args.join(" "));
  }
});

Deno.test("--help documents every exit code, 3 (internal), the search's and the jobs codes included", async () => {
  const r = await runCliProcess(["--help"]);
  assertEquals(r.code, 0);
  for (const text of ["0 success", "1 the operation failed", "2 bad usage", "3 internal error"]) {
    assertStringIncludes(r.stdout.replace(/\s+/g, " "), text);
  }
  assertStringIncludes(r.stdout, "124 on --timeout, 125 for an unknown job id");
  assertStringIncludes(r.stdout, "view --content: 0 a line matched, 1 none did, 2 an error");
  assertStringIncludes(r.stdout.replace(/\s+/g, " "), "anchorfs: write error:");
  const view = await runCliProcess(["view", "--help"]);
  assertStringIncludes(view.stdout.replace(/\s+/g, " "), "with --content, 0 some line matched, 1");
  const jobs = await runCliProcess(["jobs", "--help"]);
  assertStringIncludes(jobs.stdout, "125 when no job has that id");
});

Deno.test(
  needs(
    "jobs tail -f exits with the job's exit code; jobs wait draws no spinner off a terminal",
    async () => {
      await using s = await startJobsServer("v1", { window: 0.2 });
      const r = await s.server.call("shell", {
        command: `echo start; ${pause(0.6)}; echo end; exit 7`,
      });
      const id = jobIdOf(r.raw);
      const followed = await runCliProcess(["jobs", "tail", id, "-f", "--state-dir", s.stateDir]);
      assertEquals(followed.code, 7, followed.stderr);
      assertEquals(followed.stdout, "start\nend\n");
      const waited = await runCliProcess(["jobs", "wait", id, "--state-dir", s.stateDir]);
      assertEquals(waited.code, 7);
      // stderr is a pipe here: no spinner frames, no carriage returns.
      assertEquals(waited.stderr.includes("\r"), false, JSON.stringify(waited.stderr));
    },
  ),
);

Deno.test("`anchorfs COMMAND help` prints that command's help like `anchorfs help COMMAND`", async () => {
  for (const name of ["view", "workdir", "jobs", "edit", "mcp"]) {
    const viaHelp = await runCliProcess(["help", name]);
    const trailing = await runCliProcess([name, "help"]);
    assertEquals(viaHelp.code, 0, `help ${name}: ${viaHelp.stderr}`);
    assertEquals(trailing.code, 0, `${name} help: ${trailing.stderr}`);
    assertStringIncludes(trailing.stdout, `anchorfs ${name}`);
    assertEquals(trailing.stdout, viaHelp.stdout, name);
  }
});

Deno.test("every usage error is worded alike: lowercase, the value in double quotes", async () => {
  await using dir = await tempDir();
  const cases: [string[], string][] = [
    [["mcp", "--pth"], 'error: unknown option "--pth"\n'],
    [["mcp", "--roots=yes"], 'error: option "--roots" takes no value\n'],
    [["mcp", "--path"], 'error: option "--path" needs a value\n'],
    [["mcp", "/srv/app"], 'error: unexpected argument "/srv/app"\n'],
    [["view", "a.txt", "--frob"], 'error: unknown option "--frob"'],
    [["jobs", "list", "--frob"], 'error: unknown option "--frob"'],
    [["jobs", "tail", "1-2", "extra"], 'error: unexpected argument "extra"\n'],
    [["workdir", "a", "b"], "error: workdir takes at most one PATH\n"],
    [["--max-file-bytes"], 'error: option "--max-file-bytes" needs a value\n'],
    [["--frob"], 'error: unknown option "--frob"\n'],
  ];
  for (const [args, first] of cases) {
    const r = await runCliProcess(args, { cwd: dir.path });
    assertEquals(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assertEquals(r.stderr.startsWith(first), true, `${args.join(" ")}: ${r.stderr}`);
    assertStringIncludes(r.stderr, "\nhint: ", args.join(" "));
  }
});
