// The repeated-context guard end to end: refused with the corrected call, nothing written, and
// applied as written with allow_repeat.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { startServer, tempDir, writeTree } from "../_harness.ts";

Deno.test("batch_edit refuses content that repeats the lines around its range; allow_repeat applies it", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "f.txt": "a\nb\nc\nd\ne\n" });
  await using server = await startServer({ client: "v1", args: ["--path", dir.path] });
  const view = await server.call("view", { path: "f.txt" });
  const id = /(3:[0-9a-f]{2})\|c/.exec(view.text)![1]!;
  const call = { path: "f.txt", operations: [{ op: "replace", start: id, content: "b\nC\nd" }] };
  const refused = await server.call("batch_edit", call);
  assert(refused.isError);
  assertStringIncludes(refused.text, "its first line repeats the line just before the range");
  assertStringIncludes(refused.text, `{"op":"replace","start":"${id}","content":"C"}`);
  assertEquals(await Deno.readTextFile(`${dir.path}/f.txt`), "a\nb\nc\nd\ne\n");
  const applied = await server.call("batch_edit", { ...call, allow_repeat: true });
  assert(!applied.isError, applied.text);
  assertEquals(await Deno.readTextFile(`${dir.path}/f.txt`), "a\nb\nb\nC\nd\nd\ne\n");
});
