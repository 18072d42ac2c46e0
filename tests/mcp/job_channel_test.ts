// Claude Code wakes the model on its experimental claude/channel notification, not on
// resources/updated: a pre-2026-07-28 connection gets one when a job ends, carrying what reading
// the job resource returns, and still gets resources/updated.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { startServer, tempDir } from "../_harness.ts";
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/types"
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { testNeeding } from "../_requires.ts";

const test = testNeeding("bash");

test("a job's end reaches a 2025-era client as notifications/claude/channel with the resource text", async () => {
  await using state = await tempDir();
  await using server = await startServer({
    client: "v1",
    args: ["--state-dir", state.path, "--foreground-window", "1"],
  });
  assert(server.client.getServerCapabilities()?.experimental?.["claude/channel"] !== undefined);
  // deno-lint-ignore no-explicit-any
  const seen: any[] = [];
  let arrived: () => void = () => {};
  const channel = new Promise<void>((resolve) => arrived = resolve);
  // deno-lint-ignore no-explicit-any
  server.client.fallbackNotificationHandler = (n: any) => {
    seen.push(n);
    if (n.method === "notifications/claude/channel") arrived();
    return Promise.resolve();
  };
  const updated = new Promise<void>((resolve) =>
    server.client.setNotificationHandler(
      ResourceUpdatedNotificationSchema,
      () => resolve(),
    )
  );
  const ran = await server.call("shell", {
    command: "for i in 1 2; do sleep 1; done; echo finished",
  });
  const id = /anchorfs:\/\/jobs\/([\w-]+)/.exec(JSON.stringify(ran.raw))![1]!;
  await channel;
  await updated;
  const note = seen.find((n) => n.method === "notifications/claude/channel");
  assertEquals(note.params.meta, { job: id });
  const read = await server.client.readResource({ uri: `anchorfs://jobs/${id}` });
  assertEquals(note.params.content, read.contents[0].text);
});

test("the shell description states the condition of the end-of-job notification", async () => {
  await using server = await startServer({ client: "v2" });
  const { tools } = await server.client.listTools();
  // deno-lint-ignore no-explicit-any
  const shell = tools.find((t: any) => t.name === "shell");
  assertStringIncludes(
    shell.description,
    "on a 2026-07-28 connection only while a subscriptions/listen stream is open",
  );
});
