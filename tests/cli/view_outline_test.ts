// `anchorfs view FILE --outline` and `--symbol NAME`: the tool's text, with the next steps
// written as commands; an unknown name fails with exit 1 and the closest names as commands.

import { assertEquals, assertStringIncludes } from "../_assert.ts";
import { MAIN_TS, REPO_ROOT, runCliProcess, startServer, tempDir, writeTree } from "../_harness.ts";

const SAMPLE = await Deno.readTextFile(`${REPO_ROOT}/tests/fixtures/outline/sample.py`);

Deno.test("anchorfs view --outline and --symbol print the text of the view tool", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "jobs.py": SAMPLE, "pkg/util.py": "def helper():\n    return 1\n" });
  await using server = await startServer({ client: "v2", args: ["--path", dir.path] });
  const cases: [string[], Record<string, unknown>][] = [
    [["jobs.py", "--symbol", "JobManager.start"], { path: "jobs.py", symbol: "JobManager.start" }],
    // A map's text suggests no call: the same text from both.
    [["pkg", "--outline"], { path: "pkg", outline: true }],
  ];
  for (const [args, toolArgs] of cases) {
    const cli = await runCliProcess(["view", ...args], { cwd: dir.path });
    const tool = await server.call("view", toolArgs);
    assertEquals(cli.code, 0, cli.stderr);
    // Through a pipe the view's notices ([Showing …]) go to stderr, without the blank line that
    // parts them from the lines in the tool's text.
    const at = tool.text.lastIndexOf("\n\n[");
    const expected = at < 0 ? tool.text : tool.text.slice(0, at + 1) + tool.text.slice(at + 2);
    assertEquals(cli.stdout + cli.stderr, `${expected}\n`, args.join(" "));
  }
  // The outline's next step is a command line, not a tool call.
  const outline = await runCliProcess(["view", "jobs.py", "--outline"], { cwd: dir.path });
  assertEquals(outline.code, 0, outline.stderr);
  assertStringIncludes(outline.stdout, "jobs.py: Python, 37 lines, 8 declarations.");
  assertStringIncludes(outline.stdout, "`anchorfs view jobs.py --symbol JobManager.__init__`");
  assertStringIncludes(outline.stdout, " method JobManager.start 18-22 (self, spec)\n");
  const members = await runCliProcess(["view", "jobs.py", "--outline", "--symbol", "JobManager"], {
    cwd: dir.path,
  });
  assertStringIncludes(
    members.stdout,
    "jobs.py: class JobManager (lines 8-29), 4 declarations in it.",
  );
  assertStringIncludes(
    members.stdout,
    "\n13:a9 method JobManager.__init__ 13-15 (self, limit=MAX_JOBS)\n",
  );
});

Deno.test("anchorfs view --symbol with an unknown name exits 1 with the closest names", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "jobs.py": SAMPLE });
  const r = await runCliProcess(["view", "jobs.py", "--symbol", "JobManager.strat"], {
    cwd: dir.path,
  });
  assertEquals(r.code, 1);
  assertEquals(r.stdout, "");
  assertStringIncludes(r.stderr, 'error: No declaration named "JobManager.strat" in jobs.py');
  assertStringIncludes(
    r.stderr,
    "hint: Closest: `anchorfs view jobs.py --symbol JobManager.start`",
  );
});

Deno.test("the outline runs from Deno's cache alone (--cached-only: no registry, no network)", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "jobs.py": SAMPLE });
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--cached-only", "-A", "--quiet", MAIN_TS, "view", "jobs.py", "--outline"],
    cwd: dir.path,
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
  assertStringIncludes(stdout, "jobs.py: Python, 37 lines, 8 declarations.");
});
