// view through the real server (SDK clients over stdio): argument errors in anchorfs's own words
// (a fractional line number) and the rendered text.

import { assert, assertEquals, assertNotIncludes, assertStringIncludes } from "../_assert.ts";
import { CLIENT_KINDS, startServer, tempDir, writeTree } from "../_harness.ts";
import { hashLine, renderLine } from "../../lib/core/edit/line_id.ts";

const id = (n: number, content: string) =>
  `${n}:${hashLine(content).toString(16).padStart(2, "0")}`;

const fixture = {
  ".gitignore": "dist/\n*.log\n",
  "src/app.ts": "import x from './x';\nexport function parseConfig() {\n  return 1;\n}\n",
  "src/app_test.ts": "parseConfig();\n",
  "src/util.ts": "// TODO: parseConfig caching\nexport const u = 1;\n",
  "tests/a.ts": "parseConfig\n",
  "dist/app.js": "parseConfig\n",
  "debug.log": "parseConfig\n",
  "notes.txt": Array.from({ length: 30 }, (_, i) => `note ${i + 1}`).join("\n") + "\n",
};

for (const kind of CLIENT_KINDS) {
  Deno.test(`view (${kind} client): files, ranges, ids, listings, searches and errors`, async () => {
    await using dir = await tempDir();
    await writeTree(dir.path, fixture);
    await using server = await startServer({ client: kind, args: ["--path", dir.path] });

    const listed = await server.client.listTools();
    // deno-lint-ignore no-explicit-any
    const tool = listed.tools.find((t: any) => t.name === "view");
    assertEquals(tool.annotations.readOnlyHint, true);
    assertNotIncludes(JSON.stringify(tool.inputSchema), "null");
    assertStringIncludes(tool.description, "N:hh|content");

    const file = await server.call("view", { path: "src/app.ts" });
    assertEquals(file.isError, false);
    assert(file.text.startsWith(`${renderLine(1, "import x from './x';")}\n`));

    const byNumber = await server.call("view", { path: "notes.txt", start: "10", end: 11 });
    assert(
      byNumber.text.startsWith(`${renderLine(10, "note 10")}\n${renderLine(11, "note 11")}\n`),
    );
    const byId = await server.call("view", {
      path: "notes.txt",
      start: id(29, "note 29"),
      end: -1,
    });
    assert(byId.text.startsWith(`${renderLine(29, "note 29")}\n${renderLine(30, "note 30")}`));

    const stale = await server.call("view", { path: "notes.txt", start: id(29, "note 28") });
    assert(stale.isError);
    assertStringIncludes(stale.text, "stale");
    assertStringIncludes(
      stale.text,
      `Content with hash ${id(29, "note 28").slice(3)} is now at: ${renderLine(28, "note 28")}`,
    );

    const listing = await server.call("view", { path: "." });
    assertStringIncludes(listing.text, "src/app.ts\t4 lines\t~");
    assertNotIncludes(listing.text, "dist/app.js");
    assertNotIncludes(listing.text, "debug.log");
    const filtered = await server.call("view", { path: ".", pattern: "*.ts|!*_test.ts" });
    assertNotIncludes(filtered.text, "app_test.ts");
    assertNotIncludes(filtered.text, "notes.txt");

    const literal = await server.call("view", { path: "src|tests", content: "parseConfig" });
    assertStringIncludes(literal.text, 'in "src", "tests"');
    assertStringIncludes(
      literal.text,
      `src/app.ts (line 2)\n${renderLine(2, "export function parseConfig() {")}`,
    );
    assertStringIncludes(literal.text, "tests/a.ts (line 1)");
    assertNotIncludes(literal.text, "dist/");

    const regex = await server.call("view", {
      path: ".",
      content: "(?i)^// todo",
      regex: true,
      context: 1,
    });
    assertStringIncludes(
      regex.text,
      `src/util.ts (line 1)\n${renderLine(1, "// TODO: parseConfig caching")}\n${
        renderLine(2, "export const u = 1;")
      }`,
    );

    const none = await server.call("view", { path: "src", content: "nowhere-to-be-found" });
    assertEquals(none.isError, false);
    assertStringIncludes(
      none.text,
      'No matches for literal "nowhere-to-be-found" in "src": searched 3 files',
    );

    const badRegex = await server.call("view", { path: ".", content: "(", regex: true });
    assert(badRegex.isError);
    assertStringIncludes(badRegex.text, 'regex "(" does not compile as RE2 syntax');

    const missing = await server.call("view", { path: "src/gone.ts" });
    assert(missing.isError);
    assertStringIncludes(missing.text, `nearest existing parent is "${dir.path}/src"`);
    assertStringIncludes(missing.text, `Next: view {"path":"${dir.path}/src"}`);

    const badPattern = await server.call("view", { path: ".", pattern: "a#b" });
    assert(badPattern.isError);
    assertStringIncludes(badPattern.text, "\\#");
  });
}

Deno.test("view (v2 client): a fractional line number gets anchorfs's own message", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "a.txt": "one\ntwo\n" });
  await using server = await startServer({ client: "v2", args: ["--path", dir.path] });
  const r = await server.call("view", { path: "a.txt", start: 1.5 });
  assert(r.isError);
  assertStringIncludes(r.text, "start 1.5 is neither a line number nor a line id");
  const stringy = await server.call("view", { path: "a.txt", start: "2", include_hidden: "true" });
  assertEquals(stringy.text, `${renderLine(2, "two")}\n\n[Showing lines 2-2 of 2 lines.]`);
});
