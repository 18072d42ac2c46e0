// Ids survive the agent's own edits: an id from a view taken before this session's own edit is
// mapped to where its line is now (and the result says so); a change by anything else still
// fails as stale.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { startServer, tempDir, writeTree } from "../_harness.ts";

function idOf(text: string, content: string): string {
  const m = new RegExp(`(\\d+:[0-9a-f]{2})\\|${content}$`, "m").exec(text);
  if (!m) throw new Error(`no ${content} in ${text}`);
  return m[1]!;
}

Deno.test("two edits planned from one view: the second maps its ids through the first", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "f.txt": "a\nb\nc\nd\ne\n" });
  await using server = await startServer({ client: "v1", args: ["--path", dir.path] });
  const view = await server.call("view", { path: "f.txt" });
  const first = await server.call("batch_edit", {
    path: "f.txt",
    operations: [{ op: "insert", anchor: 0, content: "x\ny" }],
  });
  assert(!first.isError, first.text);
  assertStringIncludes(first.text, "Later line numbers moved: after old line 0 by +2");
  const second = await server.call("batch_edit", {
    path: "f.txt",
    operations: [
      { op: "replace", start: idOf(view.text, "c"), end: idOf(view.text, "d"), content: "C\nD" },
    ],
  });
  assert(!second.isError, second.text);
  assertStringIncludes(second.text, `${idOf(view.text, "c")} → 5:`);
  assertStringIncludes(second.text, "(moved by your edit at 1)");
  assertEquals(await Deno.readTextFile(`${dir.path}/f.txt`), "x\ny\na\nb\nC\nD\ne\n");
});

Deno.test("an id moved by another program's change still fails as stale", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "f.txt": "a\nb\nc\n" });
  await using server = await startServer({ client: "v1", args: ["--path", dir.path] });
  const view = await server.call("view", { path: "f.txt" });
  const first = await server.call("batch_edit", {
    path: "f.txt",
    operations: [{ op: "insert", anchor: 0, content: "x" }],
  });
  assert(!first.isError, first.text);
  // Someone else inserts a line too: the log no longer describes the file.
  await Deno.writeTextFile(
    `${dir.path}/f.txt`,
    `z\n${await Deno.readTextFile(`${dir.path}/f.txt`)}`,
  );
  const second = await server.call("batch_edit", {
    path: "f.txt",
    operations: [{ op: "replace", start: idOf(view.text, "c"), content: "C" }],
  });
  assert(second.isError, second.text);
  assertEquals(await Deno.readTextFile(`${dir.path}/f.txt`), "z\nx\na\nb\nc\n");
});
