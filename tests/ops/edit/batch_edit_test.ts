// The batch_edit use case (ops, over the memory backend): chained edits with ids from the last
// result, stale ids and changed interiors refused with a report whose ids work for the retry.

import { assert, assertEquals, assertRejects, assertStringIncludes } from "../../_assert.ts";
import { AnchorError } from "../../../lib/core/errors.ts";
import { formatLineId, hashLine } from "../../../lib/core/edit/line_id.ts";
import { runBatchEdit } from "../../../lib/ops/edit/batch_edit.ts";
import { runTextEditor } from "../../../lib/ops/edit/text_editor.ts";
import { asText, editEnv, idIn } from "./_env.ts";

const be = (env: ReturnType<typeof editEnv>, path: string, operations: unknown) =>
  asText(runBatchEdit(env.services, env.session, { path, operations }));

async function rejected(p: Promise<unknown>): Promise<AnchorError> {
  const e = await assertRejects(() => p);
  assert(e instanceof AnchorError, String(e));
  return e;
}

Deno.test("three chained batch_edit calls work with ids taken only from the previous results", async () => {
  const env = editEnv({ "/s.ts": "function a() {\n  return 1;\n}\n" });
  await env.view("/s.ts");
  const r1 = await be(env, "/s.ts", [
    {
      op: "replace",
      start: formatLineId(2, "  return 1;"),
      content: "  const x = 1;\n  return x;",
    },
  ]);
  const r2 = await be(env, "/s.ts", [
    { op: "insert", anchor: idIn(r1, "  const x = 1;"), content: "  const y = 2;" },
    { op: "replace", start: idIn(r1, "  return x;"), content: "  return x + y;" },
  ]);
  const r3 = await be(env, "/s.ts", [
    {
      op: "replace",
      start: idIn(r2, "  const x = 1;"),
      end: idIn(r2, "  const y = 2;"),
      content: "",
    },
    { op: "replace", start: idIn(r2, "  return x + y;"), content: "  return 3;" },
  ]);
  assertStringIncludes(r3, "batch_edit, 2 operations");
  assertEquals(await env.text("/s.ts"), "function a() {\n  return 3;\n}\n");
});

Deno.test("a stale id fails the whole batch, writes nothing, and the report's ids work for the retry", async () => {
  const env = editEnv({ "/f.txt": "a\nb\nc\n" });
  await env.view("/f.txt");
  const oldB = formatLineId(2, "b");
  env.disk.put("/f.txt", new TextEncoder().encode("new\na\nb\nc\n")); // a formatter added a line
  const e = await rejected(be(env, "/f.txt", [
    { op: "insert", anchor: 0, content: "top" },
    { op: "replace", start: oldB, content: "B" },
  ]));
  assertEquals(e.code, "STALE_LINE_ID");
  assertEquals(await env.text("/f.txt"), "new\na\nb\nc\n");
  assertStringIncludes(e.detail!, `Content with hash ${oldB.split(":")[1]} is now at: 3:`);
  // One step: the fresh id from the report.
  await be(env, "/f.txt", [{ op: "replace", start: formatLineId(3, "b"), content: "B" }]);
  assertEquals(await env.text("/f.txt"), "new\na\nB\nc\n");
});

Deno.test("interior lines changed since the view fail the batch even when the end ids still match", async () => {
  const env = editEnv({ "/g.ts": "if (x) {\n  one();\n  two();\n}\n" });
  await env.view("/g.ts");
  env.disk.put("/g.ts", new TextEncoder().encode("if (x) {\n  one();\n  TWO();\n}\n"));
  const e = await rejected(be(env, "/g.ts", [
    { op: "replace", start: formatLineId(1, "if (x) {"), end: formatLineId(4, "}"), content: "" },
  ]));
  assertEquals(e.code, "STALE_LINE_ID");
  assertStringIncludes(e.detail!, "line 3 changed since you were shown it");
  assertEquals(await env.text("/g.ts"), "if (x) {\n  one();\n  TWO();\n}\n");
  // The report showed the range: retrying with the same ids is now a decision made on what was seen.
  await be(env, "/g.ts", [
    { op: "replace", start: formatLineId(1, "if (x) {"), end: formatLineId(4, "}"), content: "" },
  ]);
  assertEquals(await env.text("/g.ts"), "");
});

Deno.test("an edit through str_replace keeps ids of lines above it valid for batch_edit", async () => {
  const env = editEnv({ "/k.txt": "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\n" });
  await env.view("/k.txt");
  await runTextEditor(env.services, env.session, {
    command: "str_replace",
    path: "/k.txt",
    old_text: "l8",
    new_text: "l8a\nl8b",
  });
  await be(env, "/k.txt", [
    { op: "replace", start: formatLineId(1, "l1"), end: formatLineId(3, "l3"), content: "x" },
  ]);
  assertEquals(await env.text("/k.txt"), "x\nl4\nl5\nl6\nl7\nl8a\nl8b\n");
});

Deno.test("operations that change nothing are refused loudly", async () => {
  const env = editEnv({ "/z.txt": "same\n" });
  const e = await rejected(be(env, "/z.txt", [
    { op: "replace", start: formatLineId(1, "same"), content: "same" },
  ]));
  assertEquals(e.code, "NO_CHANGE");
});

Deno.test("batch_edit keeps BOM, CRLF and a missing final newline", async () => {
  const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode("a\r\nb")]);
  const env = editEnv({ "/bom.txt": bytes });
  await be(env, "/bom.txt", [{ op: "insert", anchor: -1, content: "c" }]);
  assertEquals(
    [...await env.bytes("/bom.txt")],
    [0xef, 0xbb, 0xbf, ...new TextEncoder().encode("a\r\nb\r\nc")],
  );
});

Deno.test("the ids listed for an ambiguous str_replace work for a batch_edit retry", async () => {
  const env = editEnv({ "/d.ts": "a\nif (r) {\n  go();\n}\nb\nif (r) {\n  go();\n}\n" });
  // Only the top of the file was viewed: the second match's lines were never shown before.
  env.session.shown.record("memory\u0000/d.ts", 1, [hashLine("a")]);
  const e = await rejected(runTextEditor(env.services, env.session, {
    command: "str_replace",
    path: "/d.ts",
    old_text: "if (r) {\n  go();\n}",
    new_text: "stop();",
  }));
  assertEquals(e.code, "AMBIGUOUS_MATCH");
  const m = /^Match 2: ([0-9]+:[0-9a-f]{2})\.\.([0-9]+:[0-9a-f]{2})$/m.exec(e.detail!);
  assert(m, e.detail);
  await be(env, "/d.ts", [{ op: "replace", start: m[1], end: m[2], content: "stop();" }]);
  assertEquals(await env.text("/d.ts"), "a\nif (r) {\n  go();\n}\nb\nstop();\n");
});
