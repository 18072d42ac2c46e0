// The session survives any single message: every malformed input gets the JSON-RPC 2.0 reply it
// is owed and the server answers a ping and a tool call afterwards; a message past the size cap
// is answered (naming the limit and the way forward), dropped without being held, and a running
// job survives it. Raw bytes on the real server's stdin, no SDK client in between.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { tempDir } from "../_harness.ts";
import { MALFORMED_INPUTS } from "./_malformed_inputs.ts";
import { type RawReply, RawServer } from "./_raw_stdio.ts";
import { needing } from "../_requires.ts";

const needs = needing("bash");

let nextId = 1;

/** Writes `bytes`, then a ping; returns every reply that arrived before the ping's. */
async function repliesTo(server: RawServer, bytes: Uint8Array): Promise<RawReply[]> {
  const from = server.messages.length;
  const pingId = `ping-${nextId++}`;
  await server.write(bytes);
  await server.write(`{"jsonrpc":"2.0","id":"${pingId}","method":"ping"}\n`);
  await server.replyTo(pingId, from);
  const at = server.messages.findIndex((m, i) => i >= from && m.id === pingId);
  return server.messages.slice(from, at).filter((m) => "result" in m || "error" in m);
}

async function assertAnswers(server: RawServer): Promise<void> {
  assertEquals((await server.request(nextId++, "ping")).result, {});
  const call = await server.request(nextId++, "tools/call", {
    name: "view",
    arguments: { path: "." },
  });
  assert(call.result !== undefined, `view failed: ${JSON.stringify(call)}`);
}

Deno.test("every malformed input gets the reply JSON-RPC owes it, and the server goes on", async () => {
  assert(MALFORMED_INPUTS.length >= 30, "the table covers at least 30 kinds of input");
  await using dir = await tempDir();
  await using server = await RawServer.start(["--path", dir.path]);
  const wrong: string[] = [];
  for (const input of MALFORMED_INPUTS) {
    const replies = await repliesTo(server, input.bytes);
    const got = replies.map((r) => ({ id: r.id ?? null, code: r.error?.code }));
    const owed = input.owed.map((o) => ({ id: o.id, code: o.code }));
    // Owed "any reply" matches a result or an error with that id.
    const matches = got.length === owed.length &&
      owed.every((o, i) =>
        got[i]!.id === o.id && (o.code === undefined || got[i]!.code === o.code)
      );
    if (!matches) {
      wrong.push(`${input.name}: owed ${JSON.stringify(owed)}, got ${JSON.stringify(got)}`);
    }
    for (const r of replies) {
      if (r.error) assert(r.error.message !== "", `${input.name}: a reply says what was wrong`);
    }
  }
  assertEquals(wrong, []);
  await assertAnswers(server);
  assertEquals(server.strayLines, [], "stdout carries only JSON-RPC messages");
  assert(server.alive);
});

Deno.test("a message past the cap is answered with its id, the limit and the way forward", async () => {
  await using dir = await tempDir();
  await using server = await RawServer.start(["--path", dir.path, "--max-message-bytes", "64K"]);
  // The SDK clients put the id after the params: it must be recovered from the end of the line.
  const message = JSON.stringify({
    method: "tools/call",
    params: {
      name: "text_editor",
      arguments: { command: "create", path: "big.txt", file_text: "x\n".repeat(100_000) },
    },
    jsonrpc: "2.0",
    id: 77,
  });
  await server.write(`${message}\n`);
  const reply = await server.replyTo(77);
  assertEquals(reply.error?.code, -32600);
  const text = reply.error!.message;
  assertStringIncludes(text, "65,536 bytes");
  assertStringIncludes(text, `${message.length.toLocaleString("en-US")} bytes`);
  assertStringIncludes(text, "--max-message-bytes");
  assertStringIncludes(text, '"anchor":-1');
  assertStringIncludes(text, "shell");
  assertEquals(reply.error?.data, { maxMessageBytes: 65536, messageBytes: message.length });
  assertEquals(await Deno.stat(`${dir.path}/big.txt`).catch(() => null), null);
  // No id to be read (an array): answered with id null.
  const from = server.messages.length;
  await server.write(`[${"1,".repeat(40_000)}1]\n`);
  assertEquals((await server.replyTo(null, from)).error?.code, -32600);
  await assertAnswers(server);
});

Deno.test(needs("a running job survives an oversized message and finishes normally", async () => {
  await using dir = await tempDir();
  await using state = await tempDir();
  await using server = await RawServer.start([
    "--path",
    dir.path,
    "--state-dir",
    state.path,
    "--foreground-window",
    "0.2",
    "--max-message-bytes",
    "64K",
  ]);
  await Deno.writeTextFile(`${dir.path}/go`, "");
  // The job waits for a file the test creates after the oversized message.
  const started = await server.request(nextId++, "tools/call", {
    name: "shell",
    arguments: { command: "while [ ! -e release ]; do sleep 0.1; done; echo job-survived" },
  });
  const startedText = JSON.stringify(started.result);
  const jobId = /job (\d+-\d+)/.exec(startedText)?.[1];
  assert(jobId, `the command became a job: ${startedText}`);
  await Deno.remove(`${dir.path}/go`);
  const big = `{"jsonrpc":"2.0","id":501,"method":"tools/call","params":{"name":"text_editor",` +
    `"arguments":{"command":"create","path":"f","file_text":"${"y".repeat(200_000)}"}}}\n`;
  await server.write(big);
  assertEquals((await server.replyTo(501)).error?.code, -32600);
  await Deno.writeTextFile(`${dir.path}/release`, "");
  const waited = await server.request(nextId++, "tools/call", {
    name: "jobs",
    arguments: { action: "wait", id: jobId, timeout_seconds: 30 },
  });
  const text = JSON.stringify(waited.result);
  assertStringIncludes(text, "job-survived");
  assertStringIncludes(text, "succeeded (exit 0)");
}));

Deno.test("a message twice the default cap is answered and dropped without growing memory", async () => {
  await using dir = await tempDir();
  await using server = await RawServer.start(["--path", dir.path]);
  await assertAnswers(server);
  const before = await server.memoryKb();
  // 8 MiB (twice the default cap of 4 MiB), then 64 MiB: held whole, either would show in RSS.
  for (const [id, mib] of [[601, 8], [602, 64]] as const) {
    await server.write(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"x":"`);
    const chunk = new TextEncoder().encode("z".repeat(1024 * 1024));
    for (let i = 0; i < mib; i++) await server.write(chunk);
    await server.write('"}}\n');
    const reply = await server.replyTo(id);
    assertStringIncludes(reply.error!.message, "4,194,304 bytes");
  }
  const after = await server.memoryKb();
  // The default cap bounds what one message may hold (4 MiB); allow generous noise over that.
  assert(
    after.peak - before.peak < 40 * 1024,
    `peak RSS grew by ${after.peak - before.peak} kB (from ${before.peak} kB)`,
  );
  await assertAnswers(server);
});
