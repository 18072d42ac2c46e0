// A small request cannot make a huge reply: 300,000 stray argument keys get one note naming a few
// and the count (not a note per key: that was a 51 MB reply), and a multi-megabyte search content
// is refused by its length instead of being quoted back in the result and its hints.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { tempDir, writeTree } from "../_harness.ts";
import { RawServer } from "./_raw_stdio.ts";

function toolCall(id: number, name: string, args: Record<string, unknown>): string {
  return `${
    JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: args },
    })
  }\n`;
}

function replyText(reply: { result?: Record<string, unknown> }): string {
  const content = (reply.result?.content ?? []) as { type: string; text?: string }[];
  return content.map((c) => c.text ?? "").join("\n");
}

Deno.test("300,000 unknown argument keys get one short note, and ping is answered meanwhile", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "a.txt": "alpha\n" });
  await using server = await RawServer.start(["--path", dir.path]);
  const args: Record<string, unknown> = { path: "a.txt" };
  for (let i = 0; i < 300_000; i++) args[`k${i}`] = 1;
  const line = toolCall(5, "view", args);
  assert(line.length < 4 * 1024 * 1024, `${line.length} bytes: under the message cap`);
  const from = server.messages.length;
  await server.write(line);
  const ping = await server.request(6, "ping", undefined, 120_000);
  assert(ping.result !== undefined, JSON.stringify(ping));
  const reply = await server.replyTo(5, from, 120_000);
  const text = replyText(reply);
  assertStringIncludes(text, "1:");
  assertStringIncludes(
    text,
    'Ignored 300,000 arguments this tool does not take: "k0", "k1", "k2", "k3", "k4" and ' +
      "299,995 more; this tool takes",
  );
  const bytes = JSON.stringify(reply).length;
  assert(bytes < 8192, `the reply is ${bytes} bytes`);
  assert(server.alive);
});

Deno.test("a 3 MB search content is refused by its length, not quoted back", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "a.txt": "alpha\n" });
  await using server = await RawServer.start(["--path", dir.path]);
  const from = server.messages.length;
  await server.write(toolCall(7, "view", { path: ".", content: `alpha${"x".repeat(3_000_000)}` }));
  const reply = await server.replyTo(7, from, 120_000);
  assertEquals(reply.result?.isError, true);
  const text = replyText(reply);
  assertStringIncludes(text, "content is 3,000,005 characters long");
  assertStringIncludes(text, "Nothing was searched");
  const bytes = JSON.stringify(reply).length;
  assert(bytes < 4096, `the reply is ${bytes} bytes`);
});
