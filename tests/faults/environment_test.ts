// What the world can do to a call, through the real server: the working directory deleted under
// it (a create must not bring it back), a directory deeper than the system's path limit (the
// listing says so), the process out of file descriptors (EMFILE: an environment error with what
// to do, from a first listing that cannot load its module too, and from the listing's walk once
// it has), and text a file cannot hold (a lone surrogate: refused, not written as U+FFFD).

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { startServer, tempDir, writeTree } from "../_harness.ts";
import { needing } from "../_requires.ts";

const needsProc = needing("proc");
const needsPosixFs = needing("posix-fs");

Deno.test("create refuses to re-create a working directory that was deleted, and says how to go on", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "proj/sub/a.txt": "a\n" });
  await using server = await startServer({ client: "v2", args: ["--path", `${dir.path}/proj`] });
  await server.call("workdir", { action: "set", path: "sub" });
  await Deno.remove(`${dir.path}/proj/sub`, { recursive: true });
  const out = await server.call("text_editor", {
    command: "create",
    path: "b.txt",
    file_text: "b\n",
  });
  assert(out.isError, out.text);
  assertStringIncludes(out.text, `The working directory "${dir.path}/proj/sub" no longer exists`);
  assertStringIncludes(out.text, 'workdir {"action":"reset"}');
  assertEquals(await Deno.stat(`${dir.path}/proj/sub`).catch(() => null), null);
  // An absolute path still makes the folders it needs.
  const again = await server.call("text_editor", {
    command: "create",
    path: `${dir.path}/proj/sub/b.txt`,
    file_text: "b\n",
  });
  assertEquals(again.isError, false, again.text);
});

Deno.test("file_text with a lone surrogate is refused with where it is; nothing is written", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "a.txt": "one\n" });
  await using server = await startServer({ client: "v1", args: ["--path", dir.path] });
  const out = await server.call("text_editor", {
    command: "create",
    path: "s.txt",
    file_text: "ok\nab\ud800cd\n",
  });
  assert(out.isError, out.text);
  assertStringIncludes(out.text, "lone surrogate U+D800 on line 2, column 3");
  assertEquals(await Deno.stat(`${dir.path}/s.txt`).catch(() => null), null);
  const edit = await server.call("text_editor", {
    command: "str_replace",
    path: "a.txt",
    old_text: "one",
    new_text: "\udc00",
  });
  assert(edit.isError, edit.text);
  assertEquals(await Deno.readTextFile(`${dir.path}/a.txt`), "one\n");
  // A whole pair is a character like any other.
  const pair = await server.call("text_editor", {
    command: "create",
    path: "p.txt",
    file_text: "\ud83d\ude00\n",
  });
  assertEquals(pair.isError, false, pair.text);
  assertEquals(await Deno.readTextFile(`${dir.path}/p.txt`), "😀\n");
});

Deno.test(needsPosixFs(
  "a tree deeper than the path limit is listed with a note on the directory it could not read",
  async () => {
    await using dir = await tempDir();
    // 2,100 levels of "d/": past Linux's 4,096-byte path limit, made by walking down with chdir.
    const back = Deno.cwd();
    try {
      Deno.chdir(dir.path);
      Deno.mkdirSync("deep");
      Deno.chdir("deep");
      for (let i = 0; i < 2100; i++) {
        Deno.mkdirSync("d");
        Deno.chdir("d");
      }
      Deno.writeTextFileSync("leaf.txt", "x\n");
    } finally {
      Deno.chdir(back);
    }
    await using server = await startServer({ client: "v2", args: ["--path", dir.path] });
    for (const args of [{ path: "deep" }, { path: "deep", content: "x" }]) {
      const out = await server.call("view", args);
      assertStringIncludes(out.text, "1 directory could not be read:", out.text);
      assertStringIncludes(out.text, "levels deep: its path is longer than the system allows");
      assert(out.text.length < 2000, `${out.text.length} characters`);
    }
    await new Deno.Command("rm", { args: ["-rf", `${dir.path}/deep`] }).output();
  },
));

Deno.test(needsProc(
  "out of file descriptors (EMFILE), every tool says it is the environment and what to do",
  async () => {
    await using dir = await tempDir();
    await writeTree(dir.path, { "a.txt": "alpha\n", "b.txt": "beta\n" });
    await using server = await startServer({ client: "v1", args: ["--path", dir.path] });
    await server.call("view", { path: "a.txt" });
    const pid = server.pid!;
    const limit = (soft: number) =>
      new Deno.Command("prlimit", { args: [`--pid=${pid}`, `--nofile=${soft}:4096`] }).output();
    // No descriptor left: a soft limit of 3 leaves no number free above stdio. (A limit at the
    // count the server holds left gaps below it free whenever a descriptor had closed, and the
    // listing then succeeded: 1 run in 3 under load.)
    assert((await limit(3)).success);
    try {
      const file = await server.call("view", { path: "b.txt" });
      const create = await server.call("text_editor", {
        command: "create",
        path: "c.txt",
        file_text: "c\n",
      });
      // The first listing: its module loads on first use, and cannot (first_use_emfile_test.ts).
      const listing = await server.call("view", { path: "." });
      for (const out of [file, create, listing]) {
        assert(out.isError, out.text);
        assertStringIncludes(out.text, "this server has reached its limit of open files (EMFILE");
        assertStringIncludes(out.text, "The arguments are fine: retry the same call in a moment");
        assertStringIncludes(out.text, "ulimit -n 4096");
      }
    } finally {
      await limit(4096);
    }
    // With descriptors back, the same calls work.
    assertEquals((await server.call("view", { path: "b.txt" })).isError, false);
    assertEquals((await server.call("view", { path: "." })).isError, false);
    // With its module loaded, a listing out of descriptors says which directory it could not read.
    assert((await limit(3)).success);
    try {
      const listing = await server.call("view", { path: "." });
      assertStringIncludes(listing.text, "the server has no file descriptor left (EMFILE");
    } finally {
      await limit(4096);
    }
  },
));
