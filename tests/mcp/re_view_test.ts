// Re-views through the real server (v1 client): an unchanged file seen whole is one line, a changed
// one only its hunks; a file first seen by range is sent whole.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { startServer, tempDir } from "../_harness.ts";
import { renderLine } from "../../lib/core/edit/line_id.ts";

const lines = Array.from({ length: 60 }, (_, i) => `const v${i} = ${i};`);

Deno.test("a re-view of a file seen whole sends one line when unchanged, else only the changed hunks", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/a.js`;
  await Deno.writeTextFile(path, `${lines.join("\n")}\n`);
  await using server = await startServer({ client: "v1", args: ["--path", dir.path] });
  const first = await server.call("view", { path: "a.js" });
  assertStringIncludes(first.text, renderLine(60, lines[59]!));

  const same = await server.call("view", { path: "a.js" });
  assert(!same.isError, same.text);
  assertStringIncludes(same.text, "a.js is unchanged since you last viewed it (60 lines");
  assertEquals(same.text.split("\n").length, 1);

  // Changed by something else: only the hunk comes back, with fresh ids.
  const changed = lines.slice();
  changed.splice(30, 1, "const v30 = 'thirty';", "const extra = 1;");
  await Deno.writeTextFile(path, `${changed.join("\n")}\n`);
  const delta = await server.call("view", { path: "a.js" });
  assertStringIncludes(
    delta.text,
    "changed since you last viewed it (1 line removed, 2 lines added",
  );
  assertStringIncludes(delta.text, `+${renderLine(31, "const v30 = 'thirty';")}`);
  assertStringIncludes(delta.text, "-const v30 = 30;");
  assert(!delta.text.includes(lines[0]!), "lines far from the change are not sent");
  assert(delta.text.length < first.text.length / 3);

  // Every line counts as seen: an edit of a line the delta did not show is not refused.
  const edit = await server.call("batch_edit", {
    path: "a.js",
    operations: [{ op: "replace", start: renderLine(2, lines[1]!).split("|")[0], content: "x" }],
  });
  assert(!edit.isError, edit.text);

  // full: true sends the whole file; ranged views are never deltas.
  const full = await server.call("view", { path: "a.js", full: true });
  assertStringIncludes(full.text, renderLine(61, lines[59]!));
  const ranged = await server.call("view", { path: "a.js", start: 1, end: 3 });
  assertStringIncludes(ranged.text, renderLine(1, lines[0]!));
});

Deno.test("a file first viewed by range is sent whole on its first whole view", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/b.js`, `${lines.join("\n")}\n`);
  await using server = await startServer({ client: "v1", args: ["--path", dir.path] });
  await server.call("view", { path: "b.js", start: 1, end: 5 });
  const whole = await server.call("view", { path: "b.js" });
  assertStringIncludes(whole.text, renderLine(60, lines[59]!));
});
