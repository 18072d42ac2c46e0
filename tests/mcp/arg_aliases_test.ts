// Calls written for other tools work unchanged: Octofs's argument names are aliases, "true" and
// "false" are booleans, and an argument we do not take is named in the result with the one meant.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { startServer, tempDir, writeTree } from "../_harness.ts";
import { needing } from "../_requires.ts";

const needs = needing("bash");

Deno.test(
  needs(
    "Octofs argument names and string booleans are accepted; ignored arguments are named",
    async () => {
      await using dir = await tempDir();
      await writeTree(dir.path, { "a.txt": "one\ntwo\nthree\n", "sub/.keep": "" });
      await using server = await startServer({ client: "v1", args: ["--path", dir.path] });

      // text_editor: content for file_text, as a list of lines.
      let r = await server.call("text_editor", {
        command: "create",
        path: "b.txt",
        content: ["alpha", "beta"],
      });
      assert(!r.isError, r.text);
      assertEquals(await Deno.readTextFile(`${dir.path}/b.txt`), "alpha\nbeta");

      // batch_edit: "operation" for "op", "start" as the insert anchor, content as lines.
      const view = await server.call("view", { path: "a.txt" });
      const id = /(\d+:[0-9a-f]{2})\|one/.exec(view.text)![1];
      r = await server.call("batch_edit", {
        path: "a.txt",
        operations: [{ operation: "insert", start: id, content: ["1a", "1b"] }],
      });
      assert(!r.isError, r.text);
      assertEquals(await Deno.readTextFile(`${dir.path}/a.txt`), "one\n1a\n1b\ntwo\nthree\n");

      // text_editor: replace_all as the string "true".
      r = await server.call("text_editor", {
        command: "str_replace",
        path: "b.txt",
        old_text: "a",
        new_text: "A",
        replace_all: "true",
      });
      assert(!r.isError, r.text);
      assertEquals(await Deno.readTextFile(`${dir.path}/b.txt`), "AlphA\nbetA");

      // extract_lines: from_start/from_end/append_path/append_line.
      r = await server.call("extract_lines", {
        from_path: "a.txt",
        from_start: 1,
        from_end: 2,
        append_path: "c.txt",
        append_line: -1,
      });
      assert(!r.isError, r.text);
      assertEquals(await Deno.readTextFile(`${dir.path}/c.txt`), "one\n1a\n");

      // workdir: reset true.
      await server.call("workdir", { action: "set", path: "sub" });
      r = await server.call("workdir", { reset: true });
      assert(!r.isError, r.text);
      assertEquals((await server.call("workdir", {})).text.includes("sub"), false);

      // Unknown arguments: one line naming what was ignored and the argument meant.
      r = await server.call("view", { path: "a.txt", start_line: 2 });
      assertStringIncludes(r.text, 'Ignored argument "start_line": did you mean "start"?');
      r = await server.call("shell", { command: "true", background: true, timeout: 30 });
      assertStringIncludes(r.text, 'Ignored argument "background": there is no background flag');
      assertStringIncludes(r.text, 'Ignored argument "timeout": the shell has no timeout');
    },
  ),
);
