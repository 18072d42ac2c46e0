// Claude Code wakes the model on its experimental claude/channel notification, not on
// resources/updated: a pre-2026-07-28 connection gets one when a job the model was told is still
// running ends (short: status, failure lines, the call that reads it), and still gets
// resources/updated for every job.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { startServer, tempDir } from "../_harness.ts";
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/types"
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { needing } from "../_requires.ts";

const needs = needing("bash");

/** A v1 server whose claude/channel notifications are recorded; `next(id)` waits for one. */
async function channelServer() {
  const state = await tempDir();
  const server = await startServer({
    client: "v1",
    args: ["--state-dir", state.path, "--foreground-window", "1"],
  });
  // deno-lint-ignore no-explicit-any
  const notes: any[] = [];
  const waiters: { id: string; resolve: () => void }[] = [];
  // deno-lint-ignore no-explicit-any
  server.client.fallbackNotificationHandler = (n: any) => {
    if (n.method !== "notifications/claude/channel") return Promise.resolve();
    notes.push(n.params);
    for (const w of waiters.filter((w) => w.id === n.params.meta?.job)) w.resolve();
    return Promise.resolve();
  };
  return {
    server,
    notes,
    next: (id: string) =>
      notes.some((n) => n.meta?.job === id)
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiters.push({ id, resolve })),
    async [Symbol.asyncDispose]() {
      await server.close();
      await state[Symbol.asyncDispose]();
    },
  };
}

const jobOf = (raw: unknown) => /anchorfs:\/\/jobs\/([\w-]+)/.exec(JSON.stringify(raw))![1]!;

/** A command that runs until the test opens its gate (a file in `dir`): past any window, no sleep. */
const gated = (dir: string, name: string) => `until [ -f '${dir}/${name}' ]; do sleep 0.05; done`;
const open = (dir: string, name: string) => Deno.writeTextFile(`${dir}/${name}`, "");

Deno.test(
  needs(
    "a job's end reaches a 2025-era client as a short notifications/claude/channel, with resources/updated too",
    async () => {
      await using s = await channelServer();
      await using gates = await tempDir();
      assert(
        s.server.client.getServerCapabilities()?.experimental?.["claude/channel"] !== undefined,
      );
      const updated = new Promise<void>((resolve) =>
        s.server.client.setNotificationHandler(ResourceUpdatedNotificationSchema, () => resolve())
      );
      const ran = await s.server.call("shell", {
        command:
          `for i in $(seq 1 300); do echo "ok $i - case $i"; done; ${gated(gates.path, "end")}; ` +
          "echo 'not ok 301 - adds small numbers'; echo '# fail 1'; exit 1",
      });
      assertStringIncludes(ran.text, "still running");
      const id = jobOf(ran.raw);
      await open(gates.path, "end");
      await s.next(id);
      await updated;
      const note = s.notes.find((n) => n.meta?.job === id);
      assertEquals(note.meta, { job: id });
      // Status, the failure line, the call that reads the report: not the report again.
      assertStringIncludes(note.content, `Job ${id} (`);
      assertStringIncludes(note.content, "FAILED (exit 1)");
      assertStringIncludes(note.content, "not ok 301 - adds small numbers");
      assertStringIncludes(note.content, `jobs {"action":"read","id":"${id}"}`);
      assert(!note.content.includes("ok 299 - case 299"), note.content);
      const read = await s.server.client.readResource({ uri: `anchorfs://jobs/${id}` });
      assert(note.content.length < 600, `${note.content.length} characters`);
      assert(note.content.length < read.contents[0].text.length / 2);
    },
  ),
);

Deno.test(
  needs(
    "no claude/channel for a command that ended inside its call, a job the model killed or one a wait returned",
    async () => {
      await using s = await channelServer();
      await using gates = await tempDir();
      const quick = await s.server.call("shell", { command: "echo done here" });
      assertStringIncludes(quick.text, "succeeded (exit 0)");
      const killed = await s.server.call("shell", { command: gated(gates.path, "never") });
      const killedId = jobOf(killed.raw);
      await s.server.call("jobs", { action: "kill", id: killedId });
      const waited = await s.server.call("shell", {
        command: `${gated(gates.path, "waited")}; echo waited`,
      });
      const waitedId = jobOf(waited.raw);
      await open(gates.path, "waited");
      const w = await s.server.call("jobs", { action: "wait", id: waitedId });
      assertStringIncludes(w.text, "succeeded (exit 0)");
      // A job left alone is announced; by then the others' notes would have come first.
      const alone = await s.server.call("shell", {
        command: `${gated(gates.path, "alone")}; echo alone`,
      });
      const aloneId = jobOf(alone.raw);
      await open(gates.path, "alone");
      await s.next(aloneId);
      assertEquals(s.notes.map((n) => n.meta.job), [aloneId]);
    },
  ),
);

Deno.test(
  needs("the shell description states the condition of the end-of-job notification", async () => {
    await using server = await startServer({ client: "v2" });
    const { tools } = await server.client.listTools();
    // deno-lint-ignore no-explicit-any
    const shell = tools.find((t: any) => t.name === "shell");
    assertStringIncludes(
      shell.description,
      "on a 2026-07-28 connection only while a subscriptions/listen stream is open",
    );
  }),
);
