// `anchorfs jobs` from another terminal while a real MCP server runs the jobs: list, tail, wait
// (exit code of the job, 124 on timeout) and kill (the server records it as killed).

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { runCliProcess } from "../_harness.ts";
import {
  eventually,
  jobIdOf,
  livePidsMatching,
  startJobsServer,
  uniqueMarker,
} from "../mcp/_jobs_helpers.ts";
import { needing } from "../_requires.ts";
import { parseCommandLine } from "../../lib/core/shell/parse/mod.ts";

/** The words of a one-command line after the shell's quote removal. */
function commandWords(line: string): string[] {
  const parsed = parseCommandLine(line);
  assert(parsed.ok && parsed.commands.length === 1, `not one command: ${line}`);
  return parsed.commands[0]!.words.map((w) => w.value);
}

const needs = needing("bash", "proc", "signals");

Deno.test(
  needs("anchorfs jobs: list, tail, wait and kill work on a running server's jobs", async () => {
    await using s = await startJobsServer("v1", { window: 0.2 });
    const cli = (...args: string[]) => runCliProcess(["jobs", ...args, "--state-dir", s.stateDir]);

    const r = await s.server.call("shell", {
      command: "echo one; until [ -f go ]; do sleep 0.05; done; echo two; exit 3",
    });
    const id = jobIdOf(r.raw);
    const list = await cli();
    assertEquals(list.code, 0);
    assertStringIncludes(list.stdout, id);
    assertStringIncludes(list.stdout, "running");

    const early = await cli("wait", id, "--timeout", "0.2");
    assertEquals(early.code, 124);
    assertStringIncludes(early.stderr, "still running");
    assert(!early.stderr.includes("\r"), "a spinner was drawn without a TTY");
    // The suggested command names the same state dir, and is what waits for the job below.
    const again = /wait again with `([^`]+)`/.exec(early.stderr)?.[1];
    const words = again === undefined ? [] : commandWords(again);
    assertEquals(words, ["anchorfs", "jobs", "wait", id, "--state-dir", s.stateDir], early.stderr);
    await Deno.writeTextFile(`${s.dir}/go`, "");

    const waited = await runCliProcess(words.slice(1));
    assertEquals(waited.code, 3);
    assertStringIncludes(waited.stdout, "one\ntwo");
    assertStringIncludes(waited.stderr, "FAILED (exit 3)");

    const tail = await cli("tail", id, "--bytes", "4");
    assertEquals(tail.stdout, "two\n");
    assertStringIncludes(tail.stderr, "earlier bytes omitted");

    const marker = uniqueMarker();
    const long = await s.server.call("shell", { command: `sleep ${marker} & wait` });
    const longId = jobIdOf(long.raw);
    assert(await eventually(() => livePidsMatching(marker).length >= 1));
    const killed = await cli("kill", longId);
    assertEquals(killed.code, 0);
    assertStringIncludes(killed.stdout, `Killed job ${longId}`);
    assert(await eventually(() => livePidsMatching(marker).length === 0));
    await s.updated(`anchorfs://jobs/${longId}`);
    const read = await s.server.call("jobs", { action: "read", id: longId });
    assertStringIncludes(read.text, "KILLED");
  }),
);

Deno.test(needs("anchorfs jobs tail -f prints new output until the job ends", async () => {
  await using s = await startJobsServer("v1", { window: 0.2 });
  const r = await s.server.call("shell", {
    command: "echo before; until [ -f go ]; do sleep 0.05; done; echo after",
  });
  const id = jobIdOf(r.raw);
  const following = runCliProcess(["jobs", "tail", id, "-f", "--state-dir", s.stateDir]);
  await new Promise((resolve) => setTimeout(resolve, 300));
  await Deno.writeTextFile(`${s.dir}/go`, "");
  const out = await following;
  assertEquals(out.code, 0); // the job's exit code
  assertEquals(out.stdout, "before\nafter\n");
  assertEquals(out.stderr, `[job ${id}: succeeded (exit 0)]\n`);
}));

Deno.test(needs("anchorfs jobs: an unknown id and a missing id are explained", async () => {
  await using s = await startJobsServer("v1");
  const missing = await runCliProcess(["jobs", "tail", "12-34", "--state-dir", s.stateDir]);
  assertEquals(missing.code, 125); // its own code: 1 would read as a job that exited 1
  const waited = await runCliProcess(["jobs", "wait", "12-34", "--state-dir", s.stateDir]);
  assertEquals(waited.code, 125);
  assertStringIncludes(missing.stderr, `No job with id "12-34" in the state dir ${s.stateDir}.`);
  // The listing suggested reads the same state dir (a plain `anchorfs jobs` would list another).
  assertStringIncludes(
    missing.stderr,
    `hint: List the jobs with \`anchorfs jobs --state-dir ${s.stateDir}\``,
  );
  const usage = await runCliProcess(["jobs", "wait", "--state-dir", s.stateDir]);
  assertEquals(usage.code, 2);
  assertEquals(usage.stderr, "error: jobs wait needs a job ID\nhint: see `anchorfs jobs --help`\n");
}));

Deno.test(
  needs(
    "anchorfs jobs tail and view of a job that printed nothing say so (not an editable file)",
    async () => {
      await using s = await startJobsServer("v1");
      const ran = await s.server.call("shell", { command: "true" });
      const id = /· job (\S+)/.exec(ran.text)?.[1] ?? "";
      const tail = await runCliProcess(["jobs", "tail", id, "--state-dir", s.stateDir]);
      assertEquals(tail.code, 0, tail.stderr);
      assertEquals(tail.stdout, "");
      assertEquals(tail.stderr, `[job ${id}: succeeded (exit 0); it printed no output]\n`);
      const follow = await runCliProcess(["jobs", "tail", id, "-f", "--state-dir", s.stateDir]);
      assertEquals([follow.code, follow.stdout], [0, ""], follow.stderr);
      assertEquals(follow.stderr, `[job ${id}: succeeded (exit 0); it printed no output]\n`);
      const view = await runCliProcess(["view", `anchorfs://jobs/${id}`], {
        env: { ANCHORFS_STATE_DIR: s.stateDir },
      });
      assertEquals(view.code, 0, view.stderr);
      assertStringIncludes(view.stdout, `job ${id} (\`true\`) ended after`);
      assertStringIncludes(view.stdout, "with no output: succeeded (exit 0).");
      assertEquals(/batch|anchorfs edit|insert/.test(view.stdout), false, view.stdout);
    },
  ),
);

Deno.test(needs("anchorfs jobs with no jobs names the state dir it read", async () => {
  const dir = await Deno.makeTempDir({ prefix: "anchorfs-empty-state-" });
  try {
    const r = await runCliProcess(["jobs", "--state-dir", dir]);
    assertEquals(r.code, 0, r.stderr);
    assertStringIncludes(r.stdout, `No jobs recorded in ${dir}.`);
    assertStringIncludes(r.stdout, "pass the same one here");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}));

Deno.test(
  needs(
    "anchorfs jobs on a state dir that is not a directory says so (not an internal bug)",
    async () => {
      const dir = await Deno.makeTempDir({ prefix: "anchorfs-bad-state-" });
      try {
        await Deno.writeTextFile(`${dir}/file`, "x");
        const r = await runCliProcess(["jobs", "--state-dir", `${dir}/file`]);
        assertEquals(r.code, 1, r.stderr);
        assertStringIncludes(r.stderr, `error: Cannot read the job state dir "${dir}/file/jobs"`);
        assertStringIncludes(r.stderr, "hint: Make the state dir readable");
        assert(!r.stderr.includes("bug in anchorfs"), r.stderr);
        assert(!r.stderr.includes("    at "), `stack trace printed: ${r.stderr}`);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  ),
);

Deno.test(
  needs(
    "anchorfs jobs lists a dead server's job as lost (not running) and ends its group",
    async () => {
      const state = await Deno.makeTempDir({ prefix: "anchorfs-dead-state-" });
      const marker = uniqueMarker();
      // A job process group whose server is gone (SIGKILLed): a detached sleep, recorded as running.
      const orphan = new Deno.Command("setsid", {
        args: ["sleep", marker],
        stdout: "null",
        stderr: "null",
      }).spawn();
      try {
        assert(await eventually(() => livePidsMatching(marker).length === 1));
        const stat = Deno.readTextFileSync(`/proc/${orphan.pid}/stat`);
        const startTicks = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
        const id = "999998-1";
        await Deno.mkdir(`${state}/jobs/${id}`, { recursive: true });
        await Deno.writeTextFile(`${state}/jobs/${id}/output.log`, "partial\n");
        await Deno.writeTextFile(
          `${state}/jobs/${id}/record.json`,
          JSON.stringify({
            version: 1,
            id,
            command: `sleep ${marker}`,
            cwd: "/",
            pid: orphan.pid,
            pidStartTicks: startTicks,
            serverPid: 999998,
            serverStartTicks: 1,
            startedAt: Date.now() - 1000,
            status: "running",
            droppedBytes: 0,
            logCapBytes: 1024,
          }),
        );
        const list = await runCliProcess(["jobs", "--state-dir", state]);
        assertEquals(list.code, 0, list.stderr);
        assertStringIncludes(list.stdout, `${id}  lost`);
        assert(
          await eventually(() => livePidsMatching(marker).length === 0),
          "orphan group survived",
        );
        const tail = await runCliProcess(["jobs", "tail", id, "--state-dir", state]);
        assertStringIncludes(tail.stdout, "partial");
        assertStringIncludes(tail.stderr, "LOST");
      } finally {
        try {
          orphan.kill("SIGKILL");
        } catch {
          // already terminated by anchorfs, as it should be
        }
        await orphan.status;
        await Deno.remove(state, { recursive: true });
      }
    },
  ),
);
