// Protocol tests for text_editor, batch_edit and extract_lines through the real stdio server,
// with both SDK client generations.

import { assert, assertEquals, assertNotIncludes, assertStringIncludes } from "../_assert.ts";
import { CLIENT_KINDS, startServer, tempDir, writeTree } from "../_harness.ts";
import { needing } from "../_requires.ts";

const needs = needing("posix-fs");

/** The id a result gave a line with this content (from a view or a diff). */
function idIn(text: string, content: string): string {
  for (const l of text.split("\n")) {
    const m = /^[ +]?([0-9]+:[0-9a-f]{2})\|(.*)$/.exec(l);
    if (m && m[2] === content) return m[1]!;
  }
  throw new Error(`no line ${JSON.stringify(content)} with an id in:\n${text}`);
}

for (const kind of CLIENT_KINDS) {
  Deno.test(`edit tools (${kind} client): listed with schemas free of null`, async () => {
    await using dir = await tempDir();
    await using server = await startServer({ client: kind, args: ["--path", dir.path] });
    const { tools } = await server.client.listTools();
    // deno-lint-ignore no-explicit-any
    const byName = new Map(tools.map((t: any) => [t.name, t]));
    for (const name of ["text_editor", "batch_edit", "extract_lines"]) {
      // deno-lint-ignore no-explicit-any
      const tool = byName.get(name) as any;
      assert(tool, `${name} is listed`);
      assertNotIncludes(JSON.stringify(tool.inputSchema), "null");
    }
  });

  Deno.test(`batch_edit (${kind} client): three chained calls using only ids from results`, async () => {
    await using dir = await tempDir();
    await writeTree(dir.path, { "app.ts": "function main() {\n  return 1;\n}\n" });
    await using server = await startServer({ client: kind, args: ["--path", dir.path] });
    const view = await server.call("view", { path: "app.ts" });
    assertEquals(view.isError, false, view.text);
    const r1 = await server.call("batch_edit", {
      path: "app.ts",
      operations: [{
        op: "replace",
        start: idIn(view.text, "  return 1;"),
        content: "  const a = 1;\n  return a;",
      }],
    });
    assertEquals(r1.isError, false, r1.text);
    const r2 = await server.call("batch_edit", {
      path: "app.ts",
      operations: [
        { op: "insert", anchor: idIn(r1.text, "  const a = 1;"), content: "  const b = 2;" },
        { op: "replace", start: idIn(r1.text, "  return a;"), content: "  return a + b;" },
      ],
    });
    assertEquals(r2.isError, false, r2.text);
    const r3 = await server.call("batch_edit", {
      path: "app.ts",
      operations: JSON.stringify([
        { op: "insert", anchor: 0, content: "// header" },
        { op: "replace", start: idIn(r2.text, "  return a + b;"), content: "  return a * b;" },
      ]),
    });
    assertEquals(r3.isError, false, r3.text);
    assertStringIncludes(r3.text, "+1:");
    assertEquals(
      await Deno.readTextFile(`${dir.path}/app.ts`),
      "// header\nfunction main() {\n  const a = 1;\n  const b = 2;\n  return a * b;\n}\n",
    );
  });

  Deno.test(`batch_edit (${kind} client): stale ids, changed interiors, overlaps and bare numbers fail with next steps`, async () => {
    await using dir = await tempDir();
    const path = `${dir.path}/g.ts`;
    await writeTree(dir.path, { "g.ts": "if (x) {\n  one();\n  two();\n}\n" });
    await using server = await startServer({ client: kind, args: ["--path", dir.path] });
    const view = await server.call("view", { path: "g.ts" });
    const first = idIn(view.text, "if (x) {");
    const last = idIn(view.text, "}");
    // Someone changes an interior line; both end ids still match by hash.
    await Deno.writeTextFile(path, "if (x) {\n  one();\n  TWO();\n}\n");
    const interior = await server.call("batch_edit", {
      path: "g.ts",
      operations: [{ op: "replace", start: first, end: last, content: "" }],
    });
    assert(interior.isError);
    assertStringIncludes(interior.text, "stale");
    assertStringIncludes(interior.text, "line 3 changed since you were shown it");
    assertStringIncludes(interior.text, "|  TWO();");
    assertEquals(await Deno.readTextFile(path), "if (x) {\n  one();\n  TWO();\n}\n");

    const stale = await server.call("batch_edit", {
      path: "g.ts",
      operations: [{ op: "replace", start: "2:00", content: "x" }],
    });
    assert(stale.isError);
    assertStringIncludes(stale.text, "nothing was written");
    assertStringIncludes(stale.text, "Next: Retry with the fresh ids");

    const overlap = await server.call("batch_edit", {
      path: "g.ts",
      operations: [
        { op: "replace", start: first, end: idIn(interior.text, "  one();"), content: "a" },
        { op: "replace", start: idIn(interior.text, "  one();"), content: "b" },
      ],
    });
    assert(overlap.isError);
    assertStringIncludes(overlap.text, "overlaps operations[1]");

    // A bare number where an id is needed: our message, not zod's.
    const bare = await server.call("batch_edit", {
      path: "g.ts",
      operations: [{ op: "replace", start: 2, content: "x" }],
    });
    assert(bare.isError);
    assertStringIncludes(bare.text, "a bare number is only a position");
    assertNotIncludes(bare.text, "invalid_type");
    const anchor = await server.call("batch_edit", {
      path: "g.ts",
      operations: [{ op: "insert", anchor: 3, content: "x" }],
    });
    assertStringIncludes(anchor.text, "only 0 (file start) and -1 (end of file)");
    // A wrong type that zod itself rejects still says what shape is expected.
    const wrongType = await server.call("batch_edit", {
      path: "g.ts",
      operations: [{ op: "replace", start: true, content: "x" }],
    });
    assert(wrongType.isError);
    assertStringIncludes(wrongType.text, 'ids are strings "N:hh" from view');
  });

  Deno.test(`text_editor (${kind} client): create, str_replace, ambiguity, no match, delete and undo`, async () => {
    await using dir = await tempDir();
    await using server = await startServer({ client: kind, args: ["--path", dir.path] });
    const created = await server.call("text_editor", {
      command: "create",
      path: "pkg/new.ts",
      file_text: "let a = 1;\nlet b = 1;\n",
    });
    assertEquals(created.isError, false, created.text);
    assertStringIncludes(created.text, "Created");
    const again = await server.call("text_editor", {
      command: "create",
      path: "pkg/new.ts",
      file_text: "x",
    });
    assert(again.isError);
    assertStringIncludes(again.text, "never overwrites");

    const ambiguous = await server.call("text_editor", {
      command: "str_replace",
      path: "pkg/new.ts",
      old_text: "= 1;",
      new_text: "= 2;",
    });
    assert(ambiguous.isError);
    assertStringIncludes(ambiguous.text, "matches 2 places");
    assertStringIncludes(ambiguous.text, "replace_all");

    const all = await server.call("text_editor", {
      command: "str_replace",
      path: "pkg/new.ts",
      old_text: "= 1;",
      new_text: "= 2;",
      replace_all: true,
    });
    assertEquals(all.isError, false, all.text);
    assertEquals(await Deno.readTextFile(`${dir.path}/pkg/new.ts`), "let a = 2;\nlet b = 2;\n");

    const escaped = await server.call("text_editor", {
      command: "str_replace",
      path: "pkg/new.ts",
      old_text: "let a = 2;\\nlet b = 2;",
      new_text: "let a = 3;\\nlet b = 3;",
    });
    assertEquals(escaped.isError, false, escaped.text);
    assertStringIncludes(escaped.text, "escape");
    assertEquals(await Deno.readTextFile(`${dir.path}/pkg/new.ts`), "let a = 3;\nlet b = 3;\n");

    const none = await server.call("text_editor", {
      command: "str_replace",
      path: "pkg/new.ts",
      old_text: "let c = 3;",
      new_text: "x",
    });
    assert(none.isError);
    assertStringIncludes(none.text, "was not found");
    assertStringIncludes(none.text, "Closest region");

    const undo = await server.call("text_editor", { command: "undo_edit", path: "pkg/new.ts" });
    assertEquals(undo.isError, false, undo.text);
    assertEquals(await Deno.readTextFile(`${dir.path}/pkg/new.ts`), "let a = 2;\nlet b = 2;\n");

    const del = await server.call("text_editor", { command: "delete", path: "pkg/new.ts" });
    // The op keeps the undo call as a step; the model reads it as a tool call.
    assertEquals(
      del.text,
      'Deleted pkg/new.ts (22 bytes). Undo with text_editor {"command":"undo_edit","path":' +
        '"pkg/new.ts"}.',
    );
    const back = await server.call("text_editor", { command: "undo_edit", path: "pkg/new.ts" });
    assertEquals(back.isError, false, back.text);
    assertEquals(await Deno.readTextFile(`${dir.path}/pkg/new.ts`), "let a = 2;\nlet b = 2;\n");

    const missing = await server.call("text_editor", {
      command: "str_replace",
      path: "pkg/new.ts",
      new_text: "x",
    });
    assert(missing.isError);
    assertStringIncludes(missing.text, "needs old_text");
  });

  Deno.test(
    needs(
      `text_editor (${kind} client): a CRLF file changes byte by byte and keeps CRLF`,
      async () => {
        await using dir = await tempDir();
        await writeTree(dir.path, { "w.txt": "alpha\r\nbeta\r\n" });
        await using server = await startServer({ client: kind, args: ["--path", dir.path] });
        const r = await server.call("text_editor", {
          command: "str_replace",
          path: "w.txt",
          old_text: "beta\n",
          new_text: "BETA\ngamma\n",
        });
        assertEquals(r.isError, false, r.text);
        assertEquals(
          [...await Deno.readFile(`${dir.path}/w.txt`)],
          [...new TextEncoder().encode("alpha\r\nBETA\r\ngamma\r\n")],
        );
        // The file mode survives the temp-file-and-rename write.
        await Deno.chmod(`${dir.path}/w.txt`, 0o750);
        const again = await server.call("text_editor", {
          command: "str_replace",
          path: "w.txt",
          old_text: "gamma",
          new_text: "delta",
        });
        assertEquals(again.isError, false, again.text);
        assertEquals((await Deno.stat(`${dir.path}/w.txt`)).mode! & 0o777, 0o750);
        const wrong = await server.call("text_editor", { command: "view", path: "w.txt" });
        assert(wrong.isError);
        assertStringIncludes(wrong.text, "use the view tool");
      },
    ),
  );

  Deno.test(`extract_lines (${kind} client): copies a verified range into a new file`, async () => {
    await using dir = await tempDir();
    await writeTree(dir.path, { "a.ts": "x\nfn() {\n  body\n}\ny\n" });
    await using server = await startServer({ client: kind, args: ["--path", dir.path] });
    const view = await server.call("view", { path: "a.ts" });
    const r = await server.call("extract_lines", {
      from_path: "a.ts",
      start: idIn(view.text, "fn() {"),
      end: idIn(view.text, "}"),
      to_path: "lib/b.ts",
      position: -1,
    });
    assertEquals(r.isError, false, r.text);
    assertEquals(await Deno.readTextFile(`${dir.path}/lib/b.ts`), "fn() {\n  body\n}\n");
    const bad = await server.call("extract_lines", {
      from_path: "a.ts",
      start: "2:00",
      to_path: "lib/b.ts",
      position: 0,
    });
    assert(bad.isError);
    assertStringIncludes(bad.text, "stale");
  });
}

Deno.test("concurrent edits of one file through the server are serialized and all land", async () => {
  await using dir = await tempDir();
  const names = ["a", "b", "c", "d", "e", "f"];
  await writeTree(dir.path, { "c.txt": names.map((n) => `${n}\n`).join("") });
  await using server = await startServer({ client: "v2", args: ["--path", dir.path] });
  const results = await Promise.all(
    names.map((n) =>
      server.call("text_editor", {
        command: "str_replace",
        path: "c.txt",
        old_text: `${n}\n`,
        new_text: `${n}${n}\n`,
      })
    ),
  );
  for (const r of results) assertEquals(r.isError, false, r.text);
  assertEquals(
    await Deno.readTextFile(`${dir.path}/c.txt`),
    names.map((n) => `${n}${n}\n`).join(""),
  );
  // Six levels of undo, in reverse order of application.
  for (let i = 0; i < names.length; i++) {
    const u = await server.call("text_editor", { command: "undo_edit", path: "c.txt" });
    assertEquals(u.isError, false, u.text);
  }
  assertEquals(await Deno.readTextFile(`${dir.path}/c.txt`), names.map((n) => `${n}\n`).join(""));
});

for (const kind of CLIENT_KINDS) {
  Deno.test(`edit error paths (${kind} client): each names what failed and writes nothing`, async () => {
    await using dir = await tempDir();
    await writeTree(dir.path, {
      "same.txt": "keep\n",
      "bin.dat": new Uint8Array([0, 1, 2, 3]),
      "latin.txt": new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]),
      "sub/x.txt": "x\n",
    });
    await using server = await startServer({ client: kind, args: ["--path", dir.path] });
    const expectError = async (tool: string, args: Record<string, unknown>, ...parts: string[]) => {
      const r = await server.call(tool, args);
      assert(r.isError, `${tool} ${JSON.stringify(args)} should fail:\n${r.text}`);
      for (const p of parts) assertStringIncludes(r.text, p);
    };
    await expectError(
      "text_editor",
      { command: "undo_edit", path: "same.txt" },
      "No edit of",
      "to undo",
    );
    const view = await server.call("view", { path: "same.txt" });
    await expectError(
      "batch_edit",
      {
        path: "same.txt",
        operations: [{ op: "replace", start: idIn(view.text, "keep"), content: "keep" }],
      },
      "unchanged",
    );
    await expectError(
      "text_editor",
      { command: "str_replace", path: "bin.dat", old_text: "a", new_text: "b" },
      "binary file",
    );
    await expectError(
      "text_editor",
      { command: "str_replace", path: "nope/missing.txt", old_text: "a", new_text: "b" },
      "missing.txt",
    );
    await expectError(
      "text_editor",
      { command: "create", path: "sub", file_text: "x" },
      "is a directory",
    );
    await expectError(
      "text_editor",
      { command: "str_replace", path: "latin.txt", old_text: "caf", new_text: "€" },
      "Latin-1",
      "nothing was written",
    );
    await expectError(
      "extract_lines",
      { from_path: "same.txt", start: 1, to_path: "sub/x.txt", position: 1 },
      "only 0 (file start) and -1 (end of file)",
    );
    // Undo refuses to discard a change made by another program after the edit.
    const ok = await server.call("text_editor", {
      command: "str_replace",
      path: "sub/x.txt",
      old_text: "x",
      new_text: "y",
    });
    assertEquals(ok.isError, false, ok.text);
    await Deno.writeTextFile(`${dir.path}/sub/x.txt`, "someone else\n");
    await expectError(
      "text_editor",
      { command: "undo_edit", path: "sub/x.txt" },
      "changed after the last edit",
    );
    assertEquals(await Deno.readTextFile(`${dir.path}/sub/x.txt`), "someone else\n");
    assertEquals(await Deno.readTextFile(`${dir.path}/same.txt`), "keep\n");
    assertEquals([...await Deno.readFile(`${dir.path}/bin.dat`)], [0, 1, 2, 3]);
  });
}

Deno.test("MCP next steps stay tool calls: a directory and a stale id read as before", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "src/a.txt": "x\n", "x.txt": "a\nb\n" });
  await using server = await startServer({ client: "v2", args: ["--path", dir.path] });
  const onDir = await server.call("text_editor", {
    command: "str_replace",
    path: "src",
    old_text: "x",
    new_text: "y",
  });
  assertEquals(onDir.isError, true);
  assertStringIncludes(
    onDir.text,
    `Next: view {"path":"${dir.path}/src"} lists its files; name one of them.`,
  );
  const stale = await server.call("batch_edit", {
    path: "x.txt",
    operations: [{ op: "replace", start: "1:00", content: "z" }],
  });
  assertEquals(stale.isError, true);
  assertStringIncludes(stale.text, 'To see more: view {"path":"x.txt","start":1,"end":2}');
  assertNotIncludes(stale.text, "anchorfs view");
});
