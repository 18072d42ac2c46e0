// The shell tool through the real server and SDK clients: inline results, promotion to a job
// with a resource link, completion notifications (and their replay) in both protocol eras,
// the duplicate guard, tail-not-head output, heartbeats, long command lines.

import { assert, assertEquals, assertMatch, assertStringIncludes } from "../_assert.ts";
import { CLIENT_KINDS } from "../_harness.ts";
import { jobIdOf, pause, startJobsServer } from "./_jobs_helpers.ts";
import { needing } from "../_requires.ts";

const needs = needing("bash");

for (const kind of CLIENT_KINDS) {
  Deno.test(
    needs(
      `shell (${kind} client): a fast command returns its exit code and output inline`,
      async () => {
        await using s = await startJobsServer(kind);
        const r = await s.server.call("shell", { command: "echo out; echo err >&2; exit 3" });
        // A non-zero exit is an error result; its first line still states the outcome.
        assertEquals(r.isError, true);
        assertStringIncludes(r.text, "FAILED (exit 3)");
        assertStringIncludes(r.text, "out\nerr");
        // deno-lint-ignore no-explicit-any
        assert(!r.raw.content.some((c: any) => c.type === "resource_link"));
        const ok = await s.server.call("shell", { command: "pwd" });
        assertStringIncludes(ok.text, "succeeded (exit 0)");
        assertStringIncludes(ok.text, s.dir);
      },
    ),
  );

  Deno.test(
    needs(
      `shell (${kind} client): a slow command is promoted; the end is notified and readable`,
      async () => {
        await using s = await startJobsServer(kind, { window: 0.3 });
        const r = await s.server.call("shell", {
          command: `${pause(1)}; echo first; echo last-line; exit 4`,
        });
        assertEquals(r.isError, false);
        const id = jobIdOf(r.raw);
        const uri = `anchorfs://jobs/${id}`;
        assertMatch(r.text, new RegExp(`still running as job ${id}`));
        assertStringIncludes(r.text, "you will get a notification when it ends".slice(0, 20));
        // Its next steps are written as tool calls (the op keeps them as data).
        assertStringIncludes(
          r.text,
          `Meanwhile: read its output with jobs {"action":"read","id":"${id}"}; block until it ` +
            `ends with jobs {"action":"wait","id":"${id}"} (at most 50 s per call, never kills); ` +
            `stop it with jobs {"action":"kill","id":"${id}"}.`,
        );
        // deno-lint-ignore no-explicit-any
        const link = r.raw.content.find((c: any) => c.type === "resource_link");
        assertStringIncludes(link.name, "do sleep 0.1; done; echo first");
        if (kind === "v2") {
          // 2026-07-28: notifications arrive on a subscriptions/listen stream naming the job.
          await s.server.client.listen({ resourceSubscriptions: [uri] });
        }
        await s.updated(uri);
        const read = await s.server.client.readResource({ uri });
        const text = read.contents[0].text as string;
        assertStringIncludes(text, "FAILED (exit 4)");
        assertStringIncludes(text, "first\nlast-line");
        assertStringIncludes(text, "duration:");
      },
    ),
  );

  Deno.test(
    needs(
      `shell (${kind} client): subscribing after the job ended replays the notification`,
      async () => {
        await using s = await startJobsServer(kind, { window: 0.2 });
        const r = await s.server.call("shell", { command: `${pause(0.6)}; echo done` });
        const id = jobIdOf(r.raw);
        const uri = `anchorfs://jobs/${id}`;
        const waited = await s.server.call("jobs", { action: "wait", id });
        assertStringIncludes(waited.text, "succeeded (exit 0)");
        const before = s.updates.length;
        if (kind === "v1") await s.server.client.subscribeResource({ uri });
        else await s.server.client.listen({ resourceSubscriptions: [uri] });
        await s.updated(uri);
        // The replay arrived after the subscription, not only the unsolicited one before it.
        if (kind === "v2") assert(s.updates.length > before);
        else {
          const deadline = Date.now() + 5000;
          while (s.updates.length === before && Date.now() < deadline) {
            await new Promise((r) => setTimeout(r, 20));
          }
          assert(s.updates.length > before, "no replay after a late resources/subscribe");
        }
      },
    ),
  );
}

/** Runs until the test ends (the server's shutdown terminates it). */
const GATE = "until [ -f never-created ]; do sleep 0.05; done";

Deno.test(
  needs(
    "shell: the same command in the same directory is refused while it runs; others run",
    async () => {
      await using s = await startJobsServer("v1", { window: 0.2 });
      const first = await s.server.call("shell", { command: `${GATE};   echo one` });
      const id = jobIdOf(first.raw);
      const dup = await s.server.call("shell", { command: `  ${GATE}; echo one ` });
      assert(dup.isError);
      assertStringIncludes(dup.text, `anchorfs://jobs/${id}`);
      assertStringIncludes(dup.text, "done;   echo one");
      assertStringIncludes(dup.text, "Wait for its notification instead of starting a duplicate");
      assertStringIncludes(dup.text, "concurrently");
      const other = await s.server.call("shell", { command: `${GATE}; echo two` });
      assertEquals(other.isError, false);
      assert(jobIdOf(other.raw) !== id);
      const quick = await s.server.call("shell", { command: "echo three" });
      assertStringIncludes(quick.text, "three");
    },
  ),
);

Deno.test(
  needs(
    "shell: the output returned is the tail, with the omitted byte count and how to read more",
    async () => {
      await using s = await startJobsServer("v1");
      const r = await s.server.call("shell", { command: "seq 1 200000" });
      assertStringIncludes(r.text, "\n200000");
      assert(!r.text.includes("\n1\n2\n3\n"), "the head of the output was returned");
      assertMatch(r.text, /\[\d{1,3}(,\d{3})* earlier bytes omitted/);
      assertStringIncludes(r.text, '"path":"anchorfs://jobs/');
      assertStringIncludes(r.text, '"start":-200}');
      assert(r.text.length < 6 * 1024);
    },
  ),
);

Deno.test(
  needs(
    "shell: heartbeats keep the client's request timeout from firing during a long call",
    async () => {
      // Heartbeats every 0.3 s (test-only, lib/test_timing.ts) against a 1.5 s request timeout: the
      // 5 s window answers only because each beat resets the timeout. (A 1 s timeout with 0.2 s
      // beats failed under load: a loaded machine can hold one beat back for over a second.)
      await using s = await startJobsServer("v1", {
        window: 5,
        env: { ANCHORFS_TEST_HEARTBEAT_MS: "300" },
      });
      const messages: string[] = [];
      const raw = await s.server.client.callTool(
        { name: "shell", arguments: { command: `echo working; ${GATE}` } },
        undefined,
        {
          // deno-lint-ignore no-explicit-any
          onprogress: (p: any) => messages.push(p.message ?? ""),
          timeout: 1500,
          resetTimeoutOnProgress: true,
        },
      );
      const r = {
        isError: raw.isError === true,
        // deno-lint-ignore no-explicit-any
        text: raw.content.map((c: any) => c.text ?? "").join("\n"),
      };
      assertEquals(r.isError, false);
      assertStringIncludes(r.text, "still running as job");
      assert(messages.length >= 1, "no progress notification arrived");
      for (const m of messages) assert(m.length <= 200, `progress message too long: ${m.length}`);
      assertStringIncludes(messages.at(-1)!, "working");
    },
  ),
);

Deno.test(needs("shell: a 200 KB command line runs", async () => {
  await using s = await startJobsServer("v1");
  const command = `echo begin; : ${"x".repeat(200 * 1024)}; echo end-of-long`;
  const r = await s.server.call("shell", { command });
  assertEquals(r.isError, false);
  assertStringIncludes(r.text, "succeeded (exit 0)");
  assertStringIncludes(r.text, "begin\nend-of-long");
}));

Deno.test(
  needs(
    "shell: a command with a NUL byte is the caller's error, and no job is recorded",
    async () => {
      await using s = await startJobsServer("v1");
      const r = await s.server.call("shell", { command: "echo a\u0000b > nul.txt" });
      assert(r.isError);
      assertStringIncludes(r.text, "contains a NUL byte (character 7)");
      assertStringIncludes(r.text, `shell {"command":"printf 'a\\\\0b' > file.bin"}`);
      // It used to reach the spawn, which failed with "the command itself was fine".
      assertEquals(r.text.includes("itself was fine"), false);
      assertStringIncludes((await s.server.call("jobs", { action: "list" })).text, "No jobs");
    },
  ),
);

Deno.test(needs("shell: a missing cwd is refused with the directory named", async () => {
  await using s = await startJobsServer("v1");
  const r = await s.server.call("shell", { command: "true", cwd: "no/such" });
  assert(r.isError);
  assertStringIncludes(r.text, `${s.dir}/no/such`);
  const sub = await s.server.call("shell", { command: "pwd", cwd: "." });
  assertStringIncludes(sub.text, s.dir);
}));

Deno.test(needs("shell: a command the shell policy refuses runs nothing", async () => {
  await using s = await startJobsServer("v1");
  const r = await s.server.call("shell", { command: "touch ran.txt; sleep 5" });
  assert(r.isError);
  assertStringIncludes(r.text, "Nothing was run");
  let exists = true;
  try {
    await Deno.stat(`${s.dir}/ran.txt`);
  } catch {
    exists = false;
  }
  assertEquals(exists, false);
  assertStringIncludes((await s.server.call("jobs", { action: "list" })).text, "No jobs");
}));

Deno.test(
  needs(
    "shell (v2 client): heartbeats reach a 2026-07-28 client that passed onprogress",
    async () => {
      await using s = await startJobsServer("v2", {
        window: 1,
        env: { ANCHORFS_TEST_HEARTBEAT_MS: "200" },
      });
      const messages: string[] = [];
      const r = await s.server.call("shell", { command: `echo tick; ${GATE}` }, {
        // deno-lint-ignore no-explicit-any
        onprogress: (p: any) => messages.push(p.message ?? ""),
      });
      assertStringIncludes(r.text, "still running as job");
      assert(messages.length >= 1, "no progress notification arrived");
      assertStringIncludes(messages[0]!, "tick");
    },
  ),
);
