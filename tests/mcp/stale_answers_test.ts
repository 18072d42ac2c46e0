// Stale-id reports that say the real reason, never loop, and never invite a revert, through the
// real server: a range whose end line was never shown, an id the agent shifted itself after its
// own insert, "ids from your earlier views still work" only when true, a planned range that now
// holds the session's own edit, and the move a blank-line anchor most likely made.

import { assert, assertEquals, assertNotIncludes, assertStringIncludes } from "../_assert.ts";
import { startServer, tempDir, writeTree } from "../_harness.ts";
import { formatLineId } from "../../lib/core/edit/line_id.ts";

const valueLines = (n: number) =>
  Array.from({ length: n }, (_, i) => `  value_${i + 1} = compute(${i + 1})`);
const fileOf = (lines: readonly string[]) => lines.join("\n") + "\n";
const idIn = (text: string, line: number) =>
  new RegExp(`^[ +]?(${line}:[0-9a-f]{2})\\|`, "m").exec(text)![1]!;

Deno.test("a range whose end line was never shown says so first, names the view, and goes through after it", async () => {
  await using dir = await tempDir();
  const lines = valueLines(300);
  await writeTree(dir.path, { "f.py": fileOf(lines) });
  await using server = await startServer({ client: "v1", args: ["--path", dir.path] });
  await server.call("view", { path: "f.py", start: 200, end: 273 });
  const op = {
    op: "replace",
    start: formatLineId(202, lines[201]!),
    end: formatLineId(275, lines[274]!),
    content: "  replaced = 1",
  };
  const first = await server.call("batch_edit", { path: "f.py", operations: [op] });
  assertEquals(first.isError, true, first.text);
  assertStringIncludes(first.text, "lines you were never shown");
  assertStringIncludes(first.text, "no line you were shown changed");
  assertNotIncludes(first.text, "changed since you were shown");
  assertNotIncludes(first.text, "Retry with the fresh ids");
  const view = /view (\{"path":"f\.py","start":273,"end":276\})/.exec(first.text);
  assert(view, first.text);
  await server.call("view", JSON.parse(view[1]!));
  const again = await server.call("batch_edit", { path: "f.py", operations: [op] });
  assertEquals(again.isError, false, again.text);
  const now = (await Deno.readTextFile(`${dir.path}/f.py`)).split("\n");
  assertEquals(now.slice(200, 202), ["  value_201 = compute(201)", "  replaced = 1"]);
  assertEquals(now[202], "  value_276 = compute(276)");
});

Deno.test("an id the agent shifted itself after its own insert goes through the first time", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "f.py": fileOf(valueLines(40)) });
  await using server = await startServer({ client: "v2", args: ["--path", dir.path] });
  const v = await server.call("view", { path: "f.py" });
  const ins = await server.call("batch_edit", {
    path: "f.py",
    operations: [{ op: "insert", anchor: 0, content: "import a\nimport b\nimport c" }],
  });
  assertStringIncludes(ins.text, "after old line 0 by +3");
  // The agent moves its ids for lines 20-21 by +3 itself.
  const shift = (id: string) => id.replace(/^\d+/, (n) => String(Number(n) + 3));
  const e = await server.call("batch_edit", {
    path: "f.py",
    operations: [{
      op: "replace",
      start: shift(idIn(v.text, 20)),
      end: shift(idIn(v.text, 21)),
      content: "  value_20 = 20\n  value_21 = 21",
    }],
  });
  assertEquals(e.isError, false, e.text);
  const now = (await Deno.readTextFile(`${dir.path}/f.py`)).split("\n");
  assertEquals(now.slice(21, 25), [
    "  value_19 = compute(19)",
    "  value_20 = 20",
    "  value_21 = 21",
    "  value_22 = compute(22)",
  ]);
});

Deno.test("'ids from your earlier views still work' only when true: not after an outside change, not for replaced lines", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "f.py": fileOf(valueLines(40)), "g.py": fileOf(valueLines(40)) });
  await using server = await startServer({ client: "v1", args: ["--path", dir.path] });
  const v = await server.call("view", { path: "f.py" });
  // Another program inserts a line below; the agent then inserts at the top.
  const lines = valueLines(40);
  lines.splice(30, 0, "  inserted_by_someone_else = 1");
  await Deno.writeTextFile(`${dir.path}/f.py`, fileOf(lines));
  const e = await server.call("batch_edit", {
    path: "f.py",
    operations: [{ op: "insert", anchor: idIn(v.text, 1), content: "  # note" }],
  });
  assertEquals(e.isError, false, e.text);
  assertNotIncludes(e.text, "still work");
  assertStringIncludes(e.text, "ids from your earlier views may be off");
  // The session's own edit replaces lines 5-8: their ids are not said to work.
  const g = await server.call("view", { path: "g.py" });
  const cut = await server.call("batch_edit", {
    path: "g.py",
    operations: [{
      op: "replace",
      start: idIn(g.text, 5),
      end: idIn(g.text, 8),
      content: "  merged = 1",
    }],
  });
  assertEquals(cut.isError, false, cut.text);
  assertStringIncludes(
    cut.text,
    "still work, except those of old lines 5-8 (this edit replaced them)",
  );
});

Deno.test("a planned range that now holds the session's own edit is reported as such, not silently reverted", async () => {
  await using dir = await tempDir();
  const original = fileOf(valueLines(30));
  await writeTree(dir.path, { "f.py": original });
  await using server = await startServer({ client: "v2", args: ["--path", dir.path] });
  const v = await server.call("view", { path: "f.py" });
  const first = await server.call("batch_edit", {
    path: "f.py",
    operations: [{
      op: "replace",
      start: idIn(v.text, 10),
      end: idIn(v.text, 11),
      content: "  value_10 = fixed(10)\n  value_11 = fixed(11)",
    }],
  });
  assertEquals(first.isError, false, first.text);
  const afterFirst = await Deno.readTextFile(`${dir.path}/f.py`);
  // The second edit was planned from the same view: its content has the old lines 10-11.
  const second = await server.call("batch_edit", {
    path: "f.py",
    operations: [{
      op: "replace",
      start: idIn(v.text, 9),
      end: idIn(v.text, 12),
      content: "  value_9 = compute(9)\n  value_10 = compute(10)\n  value_11 = compute(11)\n" +
        "  value_12 = renamed(12)",
    }],
  });
  assertEquals(second.isError, true, second.text);
  assertStringIncludes(second.text, "would undo your edit of a moment ago: lines 10-11 are");
  assertEquals(await Deno.readTextFile(`${dir.path}/f.py`), afterFirst);
});

Deno.test("a blank-line anchor's report lists first the candidate that moved as the lines around it did", async () => {
  await using dir = await tempDir();
  const src = [
    "def f1():",
    "    return 1",
    "",
    "def f2():",
    "    return 2",
    "",
    "def f3():",
    "    x = 3",
    "    return x",
    "",
    "def f4():",
    "    return 4",
  ];
  await writeTree(dir.path, { "m.py": fileOf(src) });
  await using server = await startServer({ client: "v1", args: ["--path", dir.path] });
  const v = await server.call("view", { path: "m.py" });
  // Another program adds two lines at the top: the blank line 10 is now line 12, and the blank
  // line 6 is now line 8, as near to 10 as 12 is.
  await Deno.writeTextFile(`${dir.path}/m.py`, fileOf(["import os", "import sys", ...src]));
  const e = await server.call("batch_edit", {
    path: "m.py",
    operations: [{ op: "insert", anchor: idIn(v.text, 10), content: "def f3b():\n    pass\n" }],
  });
  assertEquals(e.isError, true, e.text);
  const now = /Content with hash [0-9a-f]{2} is now at: (\d+):/.exec(e.text);
  assert(now, e.text);
  assertEquals(now[1], "12", e.text);
  assertStringIncludes(e.text, "line 12 first: the lines shown around it moved +2");
  const moved = /may have moved by ([+-]\d+) lines/.exec(e.text);
  assertEquals(moved?.[1], "+2", e.text);
});
