// One hostile edit cannot freeze the server: str_replace with 200,000 newlines as old_text (25.7 s
// with ping blocked before) answers, and a ping sent right after it is answered too.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { startServer, tempDir, writeTree } from "../_harness.ts";

Deno.test("str_replace with 200,000 newlines answers NO_MATCH and ping is answered meanwhile (v1 client: ping is a legacy-era method)", async () => {
  await using dir = await tempDir("anchorfs-faults-ladder-");
  const file = Array.from({ length: 20 }, (_, i) => `line ${i + 1}\n`).join("");
  await writeTree(dir.path, { "f.txt": file });
  await using server = await startServer({ client: "v1", args: ["--path", dir.path] });
  const edit = server.call("text_editor", {
    command: "str_replace",
    path: "f.txt",
    old_text: "\n".repeat(200_000),
    new_text: "x",
  });
  // Sent once the server is inside the edit: before, it waited the edit's 25 s out.
  await new Promise((r) => setTimeout(r, 100));
  const ping = server.client.ping();
  const [reply] = await Promise.all([edit, ping]);
  assertEquals(reply.isError, true, reply.text);
  assertStringIncludes(reply.text, "not found");
  assert(await server.client.ping() !== undefined);
  assertEquals(await Deno.readTextFile(`${dir.path}/f.txt`), file);
});

Deno.test("replace_all over 30,000 lines replaces every one of them through the server", async () => {
  await using dir = await tempDir("anchorfs-faults-ladder-");
  await writeTree(dir.path, { "a.txt": "a\n".repeat(30_000) });
  await using server = await startServer({ client: "v2", args: ["--path", dir.path] });
  const reply = await server.call("text_editor", {
    command: "str_replace",
    path: "a.txt",
    old_text: "a",
    new_text: "b",
    replace_all: true,
  }, { timeout: 60_000 });
  assertEquals(reply.isError, false, reply.text);
  assertStringIncludes(reply.text, "30000 exact matches");
  assertEquals(await Deno.readTextFile(`${dir.path}/a.txt`), "b\n".repeat(30_000));
});

Deno.test("create with a path of 100,000 slashes answers at once (no backtracking regex)", async () => {
  await using dir = await tempDir("anchorfs-faults-ladder-");
  await using server = await startServer({ client: "v2", args: ["--path", dir.path] });
  const reply = await server.call("text_editor", {
    command: "create",
    path: `${"/".repeat(100_000)}x/`,
    file_text: "a\n",
  });
  assertEquals(reply.isError, true, reply.text.slice(0, 200));
  assertStringIncludes(reply.text, "create makes a file and needs its name");
});
