// The text_editor use case (ops, memory backend): create, str_replace, delete and undo, with their
// refusals and next steps.

import { assert, assertEquals, assertRejects, assertStringIncludes } from "../../_assert.ts";
import { AnchorError } from "../../../lib/core/errors.ts";
import { runTextEditor } from "../../../lib/ops/edit/text_editor.ts";
import type { FileBackend, WriteOptions } from "../../../lib/ops/ports/file_backend.ts";
import { asText, editEnv } from "./_env.ts";
import { renderGuide, toolCallSyntax } from "../../../lib/core/next_step.ts";
import { cliStepSyntax } from "../../../lib/cli/step_command.ts";

const te = (env: ReturnType<typeof editEnv>, args: Parameters<typeof runTextEditor>[2]) =>
  asText(runTextEditor(env.services, env.session, args));

async function rejected(p: Promise<unknown>): Promise<AnchorError> {
  const e = await assertRejects(() => p);
  assert(e instanceof AnchorError, String(e));
  return e;
}

Deno.test("create makes parent folders, shows ids, and refuses to overwrite", async () => {
  const env = editEnv();
  const out = await te(env, { command: "create", path: "/a/b/new.ts", file_text: "x\ny\n" });
  assertStringIncludes(out, "Created a/b/new.ts (2 lines");
  assertStringIncludes(out, "\n1:26|x\n2:4a|y");
  assertEquals(await env.text("/a/b/new.ts"), "x\ny\n");
  const e = await rejected(te(env, { command: "create", path: "/a/b/new.ts", file_text: "z" }));
  assertEquals(e.code, "FILE_EXISTS");
  assertStringIncludes(e.message, "never overwrites");
  assertStringIncludes(e.hint!, "str_replace");
  assertStringIncludes(e.hint!, "batch_edit");
  assertStringIncludes(e.hint!, "view");
  assertEquals(await env.text("/a/b/new.ts"), "x\ny\n");
});

Deno.test("create with a path ending in / is refused, not turned into a file named after the folder", async () => {
  const env = editEnv();
  const e = await rejected(te(env, { command: "create", path: "newdir/", file_text: "x\n" }));
  assertEquals(e.code, "INVALID_ARGUMENT");
  assertEquals(
    e.message,
    'path "newdir/" ends with "/": create makes a file and needs its name; nothing was written.',
  );
  assertEquals(
    e.hint,
    "Folders are created automatically for a file inside them: text_editor " +
      '{"command":"create","path":"newdir/new_file.txt","file_text":"line one\\n"}',
  );
  assertEquals(await env.disk.stat("/newdir"), null);
});

Deno.test("create and delete count a single byte as 1 byte", async () => {
  const env = editEnv();
  assertStringIncludes(
    await te(env, { command: "create", path: "/one.txt", file_text: "x" }),
    "Created one.txt (1 line, 1 byte).",
  );
  const e = await rejected(te(env, { command: "create", path: "/one.txt", file_text: "y" }));
  assertStringIncludes(e.message, "already exists (1 byte)");
  assertStringIncludes(
    await te(env, { command: "delete", path: "/one.txt" }),
    "Deleted one.txt (1 byte).",
  );
});

Deno.test("str_replace on a CRLF file changes the bytes and keeps CRLF", async () => {
  const env = editEnv({ "/w.txt": "alpha\r\nbeta\r\ngamma\r\n" });
  const out = await te(env, {
    command: "str_replace",
    path: "/w.txt",
    old_text: "beta",
    new_text: "BETA\nbeta2",
  });
  assertStringIncludes(out, "CRLF kept");
  assertEquals(
    [...await env.bytes("/w.txt")],
    [...new TextEncoder().encode("alpha\r\nBETA\r\nbeta2\r\ngamma\r\n")],
  );
});

Deno.test("str_replace writes UTF-16 BE back as UTF-16 BE with its BOM", async () => {
  const body = "one\ntwo\n";
  const be = new Uint8Array(2 + body.length * 2);
  be.set([0xfe, 0xff]);
  for (let i = 0; i < body.length; i++) be[3 + 2 * i] = body.charCodeAt(i);
  const env = editEnv({ "/u16.txt": be });
  await te(env, { command: "str_replace", path: "/u16.txt", old_text: "two", new_text: "zwei" });
  const out = await env.bytes("/u16.txt");
  assertEquals([...out.subarray(0, 2)], [0xfe, 0xff]);
  assertEquals(new TextDecoder("utf-16be").decode(out.subarray(2)), "one\nzwei\n");
});

Deno.test("a Latin-1 file refuses characters it cannot store, and writes nothing", async () => {
  const env = editEnv({ "/l1.txt": new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]) });
  const e = await rejected(
    te(env, { command: "str_replace", path: "/l1.txt", old_text: "caf", new_text: "€" }),
  );
  assertEquals(e.code, "UNENCODABLE_TEXT");
  assertEquals([...await env.bytes("/l1.txt")], [0x63, 0x61, 0x66, 0xe9, 0x0a]);
});

Deno.test("binary files are refused with a reason and left alone", async () => {
  const env = editEnv({ "/bin": new Uint8Array([1, 0, 2, 3]) });
  const e = await rejected(
    te(env, { command: "str_replace", path: "/bin", old_text: "a", new_text: "b" }),
  );
  assertEquals(e.code, "BINARY_FILE");
});

Deno.test("delete is recoverable with undo_edit, mode included", async () => {
  const env = editEnv();
  env.disk.put("/keep.sh", new TextEncoder().encode("#!/bin/sh\n"), 0o755);
  assertStringIncludes(await te(env, { command: "delete", path: "/keep.sh" }), "Deleted keep.sh");
  assertEquals(await env.disk.stat("/keep.sh"), null);
  const out = await te(env, { command: "undo_edit", path: "/keep.sh" });
  assertStringIncludes(out, "Undid the last edit of keep.sh (delete)");
  assertEquals(await env.text("/keep.sh"), "#!/bin/sh\n");
  assertEquals((await env.disk.stat("/keep.sh"))!.mode, 0o755);
});

Deno.test("undo_edit reverts at least 10 levels, then says there is nothing left", async () => {
  const env = editEnv({ "/n.txt": "v0\n" });
  for (let i = 1; i <= 12; i++) {
    await te(env, {
      command: "str_replace",
      path: "/n.txt",
      old_text: `v${i - 1}`,
      new_text: `v${i}`,
    });
  }
  for (let i = 11; i >= 0; i--) {
    await te(env, { command: "undo_edit", path: "/n.txt" });
    assertEquals(await env.text("/n.txt"), `v${i}\n`);
  }
  const e = await rejected(te(env, { command: "undo_edit", path: "/n.txt" }));
  assertEquals(e.code, "NOTHING_TO_UNDO");
});

Deno.test("undo_edit with nothing to undo names the call: view the file, or its folder for a wrong name", async () => {
  const env = editEnv({ "/src/a.txt": "a\n" });
  const there = await rejected(te(env, { command: "undo_edit", path: "/src/a.txt" }));
  assertEquals(there.code, "NOTHING_TO_UNDO");
  assertEquals(there.next, [{ tool: "view", args: { path: "src/a.txt" } }]);
  const typo = await rejected(te(env, { command: "undo_edit", path: "/src/b.txt" }));
  assertEquals(typo.next, [{ tool: "view", args: { path: "src" } }]);
  const top = await rejected(te(env, { command: "undo_edit", path: "/nope.txt" }));
  assertEquals(top.next, [{ tool: "view", args: { path: "/" } }]);
});

Deno.test("undo_edit of a create removes the file; undo refuses to discard others' changes", async () => {
  const env = editEnv({ "/o.txt": "a\n" });
  await te(env, { command: "create", path: "/c.txt", file_text: "c\n" });
  await te(env, { command: "undo_edit", path: "/c.txt" });
  assertEquals(await env.disk.stat("/c.txt"), null);
  await te(env, { command: "str_replace", path: "/o.txt", old_text: "a", new_text: "b" });
  env.disk.put("/o.txt", new TextEncoder().encode("someone else\n"));
  const e = await rejected(te(env, { command: "undo_edit", path: "/o.txt" }));
  assertEquals(e.code, "UNDO_CONFLICT");
  assertEquals(await env.text("/o.txt"), "someone else\n");
});

Deno.test("a change on disk between read and write fails in the stale-id style; nothing written", async () => {
  const env = editEnv({ "/race.txt": "one\ntwo\nthree\n" });
  // Another program writes the file right before our rename.
  const disk = env.disk;
  const original = disk.writeFileAtomic.bind(disk);
  (disk as FileBackend).writeFileAtomic = (path: string, data: Uint8Array, o?: WriteOptions) => {
    disk.put(path, new TextEncoder().encode("zero\none\ntwo\nthree\n"));
    return original(path, data, o);
  };
  const e = await rejected(
    te(env, { command: "str_replace", path: "/race.txt", old_text: "two", new_text: "2" }),
  );
  assertEquals(e.code, "FILE_CHANGED");
  assertStringIncludes(e.message, "nothing was written");
  assertStringIncludes(e.detail!, "|zero");
  assertEquals(await env.text("/race.txt"), "zero\none\ntwo\nthree\n");
});

Deno.test("edits of one file are serialized: concurrent str_replace calls all land", async () => {
  const env = editEnv({ "/c.txt": "a\nb\nc\nd\n" });
  await Promise.all(
    ["a", "b", "c", "d"].map((x) =>
      te(env, { command: "str_replace", path: "/c.txt", old_text: `${x}\n`, new_text: `${x}!\n` })
    ),
  );
  assertEquals(await env.text("/c.txt"), "a!\nb!\nc!\nd!\n");
});

Deno.test("missing arguments name the argument and give the full call", async () => {
  const env = editEnv({ "/f": "x\n" });
  const e = await rejected(te(env, { command: "str_replace", path: "/f", new_text: "y" }));
  assertEquals(e.code, "MISSING_ARGUMENT");
  assertStringIncludes(e.hint!, '"command":"str_replace"');
  const e2 = await rejected(
    te(env, { command: "str_replace", path: "/nope", old_text: "a", new_text: "b" }),
  );
  assertEquals(e2.code, "NOT_FOUND");
});

Deno.test("create and the undo of a delete answer with counts and a short head, not the file", async () => {
  const env = editEnv();
  const text = Array.from({ length: 300 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
  const out = await te(env, { command: "create", path: "/big.md", file_text: text });
  assertStringIncludes(out, "Created big.md (300 lines");
  assertStringIncludes(out, '[… 295 more lines not shown: view {"path":"big.md","start":6}]');
  assert(!out.includes("line 6"), out);
  await te(env, { command: "delete", path: "/big.md" });
  const undo = await te(env, { command: "undo_edit", path: "/big.md" });
  assertStringIncludes(undo, "Restored 300 lines (");
  assertStringIncludes(undo, "line 5\n[… 295 more lines not shown");
  assert(undo.length < 600, `${undo.length} characters`);
  assertEquals(await env.text("/big.md"), text);
});

Deno.test("edit results carry their suggested calls as steps, written per syntax by the adapters", async () => {
  // A change every sixth line: 150 hunks, a diff past its 400 lines.
  const lines = Array.from({ length: 900 }, (_, i) => i % 6 === 0 ? "k" : `l${i}`);
  const env = editEnv({ "/big.txt": lines.join("\n") });
  const call = { command: "str_replace", path: "/big.txt", old_text: "k", new_text: "K" } as const;
  const edited = await runTextEditor(env.services, env.session, { ...call, replace_all: true });
  assertEquals(edited.next, [{ tool: "view", args: { path: "big.txt" } }]);
  assertStringIncludes(
    renderGuide(edited, toolCallSyntax),
    '... diff cut at 400 lines; view {"path":"big.txt"} for the rest.',
  );
  assertStringIncludes(
    renderGuide(edited, cliStepSyntax),
    "... diff cut at 400 lines; `anchorfs view big.txt` for the rest.",
  );
  const deleted = await runTextEditor(env.services, env.session, {
    command: "delete",
    path: "/big.txt",
  });
  assertEquals(deleted.next, [
    { tool: "text_editor", args: { command: "undo_edit", path: "big.txt" } },
  ]);
  const undone = await runTextEditor(env.services, env.session, {
    command: "undo_edit",
    path: "/big.txt",
  });
  assertEquals(undone.next, [{ tool: "view", args: { path: "big.txt", start: 6 } }]);
  assertStringIncludes(
    renderGuide(undone, cliStepSyntax),
    "[… 895 more lines not shown: `anchorfs view big.txt --start 6`]",
  );
});
