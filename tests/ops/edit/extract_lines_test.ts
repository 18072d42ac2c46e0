// The extract_lines use case (ops, memory backends for a local disk and an ssh:// host): verified
// ranges copied between files, targets created, stale ids refused.

import { assert, assertEquals, assertRejects, assertStringIncludes } from "../../_assert.ts";
import { AnchorError } from "../../../lib/core/errors.ts";
import { formatLineId } from "../../../lib/core/edit/line_id.ts";
import { runExtractLines } from "../../../lib/ops/edit/extract_lines.ts";
import { runTextEditor } from "../../../lib/ops/edit/text_editor.ts";
import { asText, editEnv } from "./_env.ts";

const SRC = "import x;\nfunction helper() {\n  return 42;\n}\nmain();\n";

async function rejected(p: Promise<unknown>): Promise<AnchorError> {
  const e = await assertRejects(() => p);
  assert(e instanceof AnchorError, String(e));
  return e;
}

Deno.test("extract_lines copies a verified range from a local file to a remote one", async () => {
  const env = editEnv({ "/src/a.ts": SRC });
  env.remote.put("/srv/b.ts", new TextEncoder().encode("// b\n"));
  const out = await asText(runExtractLines(env.services, env.session, {
    from_path: "/src/a.ts",
    start: formatLineId(2, "function helper() {"),
    end: formatLineId(4, "}"),
    to_path: "ssh://box/srv/b.ts",
    position: -1,
  }));
  assertStringIncludes(out, "Edited ssh://box/srv/b.ts (");
  assertEquals(
    await env.text("/srv/b.ts", env.remote),
    "// b\nfunction helper() {\n  return 42;\n}\n",
  );
  assertEquals(await env.text("/src/a.ts"), SRC); // the source is not changed
  // The copy is one undo step on the target.
  await runTextEditor(env.services, env.session, {
    command: "undo_edit",
    path: "ssh://box/srv/b.ts",
  });
  assertEquals(await env.text("/srv/b.ts", env.remote), "// b\n");
});

Deno.test("extract_lines creates a missing target with position 0 or -1, and accepts line numbers", async () => {
  const env = editEnv({ "/a.ts": SRC });
  await runExtractLines(env.services, env.session, {
    from_path: "/a.ts",
    start: 3,
    end: 3,
    to_path: "/new/dir/c.ts",
    position: 0,
  });
  assertEquals(await env.text("/new/dir/c.ts"), "  return 42;\n");
});

Deno.test("extract_lines inside one file inserts after an id of that file", async () => {
  const env = editEnv({ "/a.ts": SRC });
  await runExtractLines(env.services, env.session, {
    from_path: "/a.ts",
    start: formatLineId(1, "import x;"),
    to_path: "/a.ts",
    position: formatLineId(5, "main();"),
  });
  assertEquals(await env.text("/a.ts"), SRC + "import x;\n");
});

Deno.test("extract_lines refuses stale source ids and bare target line numbers", async () => {
  const env = editEnv({ "/a.ts": SRC, "/t.ts": "t\n" });
  const e = await rejected(runExtractLines(env.services, env.session, {
    from_path: "/a.ts",
    start: "2:00",
    to_path: "/t.ts",
    position: -1,
  }));
  assertEquals(e.code, "STALE_LINE_ID");
  assertStringIncludes(e.detail!, "|function helper() {");
  // end left out is start: one stale id, reported once (not "2 line ids" for one).
  assertStringIncludes(e.message, "Line id for a.ts is stale (first: start 2:00)");
  assertEquals(e.detail!.split("line 2 no longer has hash 00").length, 2, e.detail);
  const e2 = await rejected(runExtractLines(env.services, env.session, {
    from_path: "/a.ts",
    start: 1,
    to_path: "/t.ts",
    position: 1,
  }));
  assertEquals(e2.code, "INVALID_LINE_ID");
  assertStringIncludes(e2.message, "only 0 (file start) and -1 (end of file)");
  const e3 = await rejected(runExtractLines(env.services, env.session, {
    from_path: "/a.ts",
    start: 99,
    to_path: "/t.ts",
    position: -1,
  }));
  assertEquals(e3.code, "INVALID_RANGE");
  assertEquals(await env.text("/t.ts"), "t\n");
});

Deno.test("extract_lines refuses a line number past the end, naming the length and the corrected call", async () => {
  const env = editEnv({ "/e/x.txt": "1\n2\n3\n4\n5\n6\n" });
  const e = await rejected(runExtractLines(env.services, env.session, {
    from_path: "e/x.txt",
    start: 1,
    end: 99,
    to_path: "e/y.txt",
    position: -1,
  }));
  assertEquals(e.code, "INVALID_RANGE");
  assertEquals(
    e.message,
    'end 99 is past the end of "e/x.txt", which has 6 lines. Nothing was copied.',
  );
  assertEquals(
    e.hint,
    "Line numbers run from 1 to 6 (-1 is the last line), e.g. extract_lines " +
      '{"from_path":"e/x.txt","start":1,"end":6,"to_path":"e/y.txt","position":-1}',
  );
  assert(!e.message.includes(":00"), "no made-up id");
  assertEquals(await env.disk.stat("/e/y.txt"), null);
});

Deno.test("extract_lines counts negative line numbers from the end, like view", async () => {
  const env = editEnv({ "/x.txt": "1\n2\n3\n4\n5\n6\n" });
  const out = await asText(runExtractLines(env.services, env.session, {
    from_path: "/x.txt",
    start: -2,
    end: "-1",
    to_path: "/y.txt",
    position: -1,
  }));
  assertStringIncludes(out, "2 lines copied from x.txt:5-6");
  assertEquals(await env.text("/y.txt"), "5\n6\n");
  const e = await rejected(runExtractLines(env.services, env.session, {
    from_path: "/x.txt",
    start: -9,
    to_path: "/y.txt",
    position: -1,
  }));
  assertEquals(e.code, "INVALID_RANGE");
  assertStringIncludes(e.message, 'start -9 is before line 1 of "x.txt", which has 6 lines.');
  assertStringIncludes(e.hint!, '"start":1,"to_path"');
});
