// Paths as agents paste them, through the real server: `path:N` and `path:N:M` show that line in
// context, `file://` URIs and forge blob URLs name the workspace file (and say so), scp's
// `host:/path` names the ssh:// URL, upper-case ids and Anthropic's old_str/new_str work.

import { assert, assertEquals, assertNotIncludes, assertStringIncludes } from "../_assert.ts";
import { startServer, tempDir, writeTree } from "../_harness.ts";

const numbered = (n: number) =>
  Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n") + "\n";

Deno.test("path:N and path:N:M show that line in context; a file really named so is read as itself", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "src/flask/app.py": numbered(900), "odd:7": "named with a colon\n" });
  await using server = await startServer({ client: "v1", args: ["--path", dir.path] });
  const r = await server.call("view", { path: "src/flask/app.py:623" });
  assertEquals(r.isError, false, r.text);
  assertStringIncludes(r.text, "|line 623\n");
  assertStringIncludes(r.text, "|line 613\n");
  assertStringIncludes(r.text, "|line 633");
  assertNotIncludes(r.text, "|line 612\n");
  assertStringIncludes(r.text, '"src/flask/app.py:623" read as line 623 of "src/flask/app.py"');
  const col = await server.call("view", { path: "src/flask/app.py:5:12" });
  assertEquals(col.isError, false, col.text);
  assertStringIncludes(col.text, "|line 5\n");
  assertStringIncludes(col.text, "read as line 5, column 12");
  const literal = await server.call("view", { path: "odd:7" });
  assertStringIncludes(literal.text, "|named with a colon");
  // The line a view shows around is editable by its ids as usual.
  const id = /(\d+:[0-9a-f]{2})\|line 623$/m.exec(r.text)![1]!;
  const e = await server.call("batch_edit", {
    path: "src/flask/app.py:623",
    operations: [{ op: "replace", start: id, content: "LINE 623" }],
  });
  assertEquals(e.isError, false, e.text);
  assertStringIncludes(await Deno.readTextFile(`${dir.path}/src/flask/app.py`), "\nLINE 623\n");
});

Deno.test("file:// URIs and forge blob URLs name the workspace file and say which; scp's host:/path names ssh://", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "README.md": "# readme\n", "src/x.py": numbered(40) });
  await using server = await startServer({ client: "v2", args: ["--path", dir.path] });
  const uri = await server.call("view", { path: `file://${dir.path}/README.md` });
  assertEquals(uri.isError, false, uri.text);
  assertStringIncludes(uri.text, "|# readme");
  const blob = await server.call("view", {
    path: "https://github.com/o/r/blob/feature/new/src/x.py#L20",
  });
  assertEquals(blob.isError, false, blob.text);
  assertStringIncludes(blob.text, "|line 20\n");
  assertStringIncludes(
    blob.text,
    `the github.com URL maps to the local file "${dir.path}/src/x.py"`,
  );
  const missing = await server.call("view", {
    path: "https://github.com/o/r/blob/main/src/nope.py",
  });
  assertEquals(missing.isError, true);
  assertStringIncludes(missing.text, "web page, which anchorfs does not fetch");
  assertStringIncludes(missing.text, 'view {"path":".","pattern":"**/nope.py"}');
  assertNotIncludes(missing.text, "https:/github.com");
  const scp = await server.call("view", { path: "devbox:/srv/x" });
  assertEquals(scp.isError, true);
  assertStringIncludes(scp.text, `view {"path":"ssh://devbox/srv/x"}`);
});

Deno.test("upper-case ids are the lower-case id; old_str/new_str are text_editor's old_text/new_text", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "a.txt": "alpha\nbeta\ngamma\n" });
  await using server = await startServer({ client: "v1", args: ["--path", dir.path] });
  const v = await server.call("view", { path: "a.txt" });
  const id = /(\d+):([0-9a-f]{2})\|beta/.exec(v.text)!;
  const upper = `${id[1]}:${id[2]!.toUpperCase()}`;
  assert(/[A-F]/.test(upper), upper);
  const e = await server.call("batch_edit", {
    path: "a.txt",
    operations: [{ op: "replace", start: upper, content: "BETA" }],
  });
  assertEquals(e.isError, false, e.text);
  const r = await server.call("text_editor", {
    command: "str_replace",
    path: "a.txt",
    old_str: "gamma",
    new_str: "GAMMA",
  });
  assertEquals(r.isError, false, r.text);
  assertNotIncludes(r.text, "Ignored");
  assertEquals(await Deno.readTextFile(`${dir.path}/a.txt`), "alpha\nBETA\nGAMMA\n");
});
