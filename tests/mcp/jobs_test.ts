// The jobs tool and job lifecycle through the real server: kill takes the whole tree, shutdown
// leaves no process behind and records it, wait times out without killing, records of a dead
// server become lost at start-up, the log cap drops bytes but keeps the job and the tail.

import { assert, assertEquals, assertMatch, assertStringIncludes } from "../_assert.ts";
import { startServer, tempDir } from "../_harness.ts";
import {
  eventually,
  jobIdOf,
  livePidsMatching,
  pause,
  startJobsServer,
  uniqueMarker,
} from "./_jobs_helpers.ts";
import { needing } from "../_requires.ts";

const needs = needing("bash", "proc", "signals");

async function readRecord(stateDir: string, id: string) {
  return JSON.parse(await Deno.readTextFile(`${stateDir}/jobs/${id}/record.json`));
}

Deno.test(
  needs(
    "jobs kill: terminates the command and every child it forked, reported as killed",
    async () => {
      await using s = await startJobsServer("v1", { window: 0.3 });
      const marker = uniqueMarker();
      const r = await s.server.call("shell", {
        command: `sleep ${marker} & (sleep ${marker} & wait) & echo started; wait`,
      });
      const id = jobIdOf(r.raw);
      // The shells carry the marker in their command line too: count at least the two sleeps.
      assert(
        await eventually(() => livePidsMatching(marker).length >= 3),
        "children did not start",
      );
      const killed = await s.server.call("jobs", { action: "kill", id });
      assertEquals(killed.isError, false);
      assertStringIncludes(killed.text, `Killed job ${id}`);
      assertStringIncludes(killed.text, "KILLED");
      assert(
        await eventually(() => livePidsMatching(marker).length === 0),
        "a child survived kill",
      );
      const read = await s.server.call("jobs", { action: "read", id });
      assertStringIncludes(read.text, "status: KILLED");
      assert(!read.text.includes("succeeded"));
      assertEquals((await readRecord(s.stateDir, id)).status, "killed");
    },
  ),
);

Deno.test(
  needs("server shutdown (stdin closed) leaves no job process behind and records it", async () => {
    await using dir = await tempDir();
    await using state = await tempDir();
    const marker = uniqueMarker();
    const server = await startServer({
      client: "v1",
      args: ["--path", dir.path, "--foreground-window", "0.3", "--state-dir", state.path],
    });
    const r = await server.call("shell", { command: `sleep ${marker} & sleep ${marker} & wait` });
    const id = jobIdOf(r.raw);
    assert(await eventually(() => livePidsMatching(marker).length >= 2));
    const serverPid = server.pid!;
    await server.close();
    assert(await eventually(() => livePidsMatching(marker).length === 0), "a job process survived");
    assert(
      await eventually(() => {
        try {
          const stat = Deno.readTextFileSync(`/proc/${serverPid}/stat`);
          return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
        } catch {
          return true;
        }
      }),
      "the server did not exit",
    );
    const record = await readRecord(state.path, id);
    assertEquals(record.status, "interrupted");
    assertMatch(record.endReason, /server shut down/);
  }),
);

Deno.test(
  needs("jobs wait: times out as still running without killing, then returns the end", async () => {
    await using s = await startJobsServer("v2", { window: 0.2 });
    const r = await s.server.call("shell", {
      command: "echo begun; until [ -f go ]; do sleep 0.05; done; echo finished",
    });
    const id = jobIdOf(r.raw);
    const early = await s.server.call("jobs", { action: "wait", id, timeout_seconds: 0.3 });
    assertEquals(early.isError, false);
    assertStringIncludes(early.text, "still running");
    assertStringIncludes(early.text, "Waiting did not stop it");
    assertStringIncludes(early.text, `{"action":"wait","id":"${id}"}`);
    await Deno.writeTextFile(`${s.dir}/go`, "");
    const done = await s.server.call("jobs", { action: "wait", id });
    assertStringIncludes(done.text, "succeeded (exit 0)");
    assertStringIncludes(done.text, "begun\nfinished");
  }),
);

Deno.test(
  needs("jobs: list and resources/list are newest first; bad ids get a clear error", async () => {
    await using s = await startJobsServer("v1");
    await s.server.call("shell", { command: "echo a" });
    await s.server.call("shell", { command: "echo b" });
    const list = await s.server.call("jobs", { action: "list" });
    assert(list.text.indexOf("echo b") < list.text.indexOf("echo a"));
    const resources = await s.server.client.listResources();
    assertStringIncludes(resources.resources[0].name, "echo b");
    const templates = await s.server.client.listResourceTemplates();
    assertEquals(templates.resourceTemplates[0].uriTemplate, "anchorfs://jobs/{id}");
    const missing = await s.server.call("jobs", { action: "read", id: "nope" });
    assert(missing.isError);
    assertStringIncludes(missing.text, 'No job with id "nope"');
    const noId = await s.server.call("jobs", { action: "wait" });
    assert(noId.isError);
    assertStringIncludes(noId.text, '{"action":"wait","id":');
  }),
);

Deno.test(
  needs(
    "start-up marks records of a dead server lost and terminates their process group",
    async () => {
      await using state = await tempDir();
      const marker = uniqueMarker();
      // A job process group whose server is gone: a detached sleep, recorded as running.
      const orphan = new Deno.Command("setsid", {
        args: ["sleep", marker],
        stdout: "null",
        stderr: "null",
      })
        .spawn();
      const pid = orphan.pid;
      assert(await eventually(() => livePidsMatching(marker).length === 1));
      const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
      const startTicks = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
      const id = "999999-1";
      await Deno.mkdir(`${state.path}/jobs/${id}`, { recursive: true });
      await Deno.writeTextFile(`${state.path}/jobs/${id}/output.log`, "partial output\n");
      await Deno.writeTextFile(
        `${state.path}/jobs/${id}/record.json`,
        JSON.stringify({
          version: 1,
          id,
          command: `sleep ${marker}`,
          cwd: "/",
          pid,
          pidStartTicks: startTicks,
          serverPid: 999999,
          serverStartTicks: 1,
          startedAt: Date.now() - 1000,
          status: "running",
          droppedBytes: 0,
          logCapBytes: 1024,
        }),
      );
      await using server = await startServer({ client: "v1", args: ["--state-dir", state.path] });
      assert(
        await eventually(() => livePidsMatching(marker).length === 0),
        "orphan group survived",
      );
      await orphan.status;
      assert(
        await eventually(() => {
          try {
            return JSON.parse(Deno.readTextFileSync(`${state.path}/jobs/${id}/record.json`))
              .status === "lost";
          } catch {
            return false;
          }
        }),
        "the record was not marked lost",
      );
      const read = await server.call("jobs", { action: "read", id });
      assertStringIncludes(read.text, "LOST");
      assertStringIncludes(read.text, "partial output");
      assertEquals((await readRecord(state.path, id)).status, "lost");
    },
  ),
);

Deno.test(
  needs(
    "the log cap drops bytes but the job runs on, keeps its tail, and is not a success",
    async () => {
      await using s = await startJobsServer("v1", {
        window: 0.2,
        env: { ANCHORFS_JOB_LOG_CAP: String(1024 * 1024) },
      });
      const r = await s.server.call("shell", {
        command: `for i in $(seq 1 40); do head -c 500000 /dev/zero | tr '\\0' a; echo; ${
          pause(0.05)
        }; done; echo FINAL-LINE`,
      });
      const id = jobIdOf(r.raw);
      const done = await s.server.call("jobs", { action: "wait", id });
      assertStringIncludes(done.text, "OUTPUT CAPPED");
      assertStringIncludes(done.text, "FINAL-LINE");
      const record = await readRecord(s.stateDir, id);
      assertEquals(record.status, "output_capped");
      assert(record.droppedBytes > 10_000_000, `dropped only ${record.droppedBytes}`);
      // Counted exactly unless a write lands in the microseconds between measuring and cutting
      // (then the count is a slight undercount, never an overcount).
      const written = 40 * 500_001 + "FINAL-LINE\n".length;
      assert(
        record.outputBytes <= written && record.outputBytes > written * 0.99,
        `${record.outputBytes}`,
      );
      const size = (await Deno.stat(`${s.stateDir}/jobs/${id}/output.log`)).size;
      assert(size <= 1024 * 1024 + 600_000, `log is ${size} bytes`);
    },
  ),
);

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test(needs(`server ${signal}: jobs are terminated and recorded as interrupted`, async () => {
    await using dir = await tempDir();
    await using state = await tempDir();
    const marker = uniqueMarker();
    await using server = await startServer({
      client: "v1",
      args: ["--path", dir.path, "--foreground-window", "0.3", "--state-dir", state.path],
    });
    const r = await server.call("shell", { command: `sleep ${marker} & wait` });
    const id = jobIdOf(r.raw);
    assert(await eventually(() => livePidsMatching(marker).length >= 1));
    Deno.kill(server.pid!, signal);
    assert(await eventually(() => livePidsMatching(marker).length === 0), "a job survived");
    assert(
      await eventually(() => {
        try {
          return JSON.parse(Deno.readTextFileSync(`${state.path}/jobs/${id}/record.json`))
            .status === "interrupted";
        } catch {
          return false;
        }
      }),
      "the end was not recorded",
    );
  }));
}

Deno.test(
  needs(
    "a 2026-07-28 client listening for list changes learns when a job starts and ends",
    async () => {
      await using s = await startJobsServer("v2", { window: 0.2 });
      let changes = 0;
      s.server.client.setNotificationHandler("notifications/resources/list_changed", () => {
        changes++;
      });
      await s.server.client.listen({ resourcesListChanged: true });
      const r = await s.server.call("shell", { command: `${pause(0.5)}; echo x` });
      jobIdOf(r.raw);
      assert(await eventually(() => changes >= 2), `saw ${changes} list changes`);
      const list = await s.server.client.listResources();
      assertStringIncludes(list.resources[0].description, "succeeded");
    },
  ),
);

Deno.test(
  needs("jobs: an out-of-range timeout_seconds or bytes says the allowed range", async () => {
    await using server = await startServer({ client: "v1" });
    const zero = await server.call("jobs", { action: "wait", id: "1-1", timeout_seconds: 0 });
    assert(zero.isError);
    assertStringIncludes(
      zero.text,
      "timeout_seconds must be a number of seconds above 0 and at most 3600",
    );
    assertStringIncludes(zero.text, "got number 0");
    const big = await server.call("jobs", { action: "read", id: "1-1", bytes: 5_000_000 });
    assert(big.isError);
    assertStringIncludes(big.text, "bytes must be a whole number of bytes from 1 to 1048576");
  }),
);

Deno.test("jobs without an id says which call to make, written as tool calls", async () => {
  await using server = await startServer({ client: "v2" });
  const missing = await server.call("jobs", { action: "wait" });
  assert(missing.isError);
  assertEquals(
    missing.text,
    'jobs action "wait" needs the job id.\n\nNext: Pass it, e.g. ' +
      'jobs {"action":"wait","id":"1234-1"}; list the jobs with jobs {"action":"list"}.',
  );
});
