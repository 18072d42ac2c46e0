// undo_edit gives back what the file was, through the real server: a deleted symlink comes back
// as the same symlink, modes and owners stay, hard links keep sharing the content, and an undo
// over someone else's change is refused with the current content and the call that proceeds.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { startServer, tempDir, writeTree } from "../_harness.ts";
import { needing } from "../_requires.ts";

const needs = needing("posix-fs");

Deno.test(
  needs(
    "delete of a symlink + undo_edit recreates the symlink with the same target text",
    async () => {
      await using dir = await tempDir();
      const root = dir.path;
      await writeTree(root, { "sub/real.txt": "one\ntwo\n" });
      await Deno.symlink("sub/real.txt", `${root}/link.txt`);
      await Deno.symlink("missing.txt", `${root}/dangling.txt`);
      await using server = await startServer({ client: "v2", args: ["--path", root] });

      const deleted = await server.call("text_editor", { command: "delete", path: "link.txt" });
      assertEquals(deleted.isError, false, deleted.text);
      assertStringIncludes(deleted.text, 'symlink to "sub/real.txt"');
      assert(!(await exists(`${root}/link.txt`)), "the link is gone");
      assertEquals(
        await Deno.readTextFile(`${root}/sub/real.txt`),
        "one\ntwo\n",
        "target untouched",
      );

      const undone = await server.call("text_editor", { command: "undo_edit", path: "link.txt" });
      assertEquals(undone.isError, false, undone.text);
      assert((await Deno.lstat(`${root}/link.txt`)).isSymlink, "a symlink again, not a file");
      assertEquals(await Deno.readLink(`${root}/link.txt`), "sub/real.txt");

      // A dangling link can be deleted and brought back too (its target is never read).
      const gone = await server.call("text_editor", { command: "delete", path: "dangling.txt" });
      assertEquals(gone.isError, false, gone.text);
      const back = await server.call("text_editor", { command: "undo_edit", path: "dangling.txt" });
      assertEquals(back.isError, false, back.text);
      assertEquals(await Deno.readLink(`${root}/dangling.txt`), "missing.txt");
    },
  ),
);

Deno.test(
  needs("undo of a symlink's delete refuses when something was put at its name", async () => {
    await using dir = await tempDir();
    const root = dir.path;
    await writeTree(root, { "real.txt": "one\n" });
    await Deno.symlink("real.txt", `${root}/link.txt`);
    await using server = await startServer({ client: "v2", args: ["--path", root] });
    await server.call("text_editor", { command: "delete", path: "link.txt" });
    await Deno.writeTextFile(`${root}/link.txt`, "a new file\n");
    const undone = await server.call("text_editor", { command: "undo_edit", path: "link.txt" });
    assertEquals(undone.isError, true, undone.text);
    assertStringIncludes(undone.text, "changed after the last edit");
    assertEquals(await Deno.readTextFile(`${root}/link.txt`), "a new file\n");
  }),
);

Deno.test(
  needs(
    "delete + undo and edit + undo keep the mode (and the owner, when run as root)",
    async () => {
      await using dir = await tempDir();
      const root = dir.path;
      await writeTree(root, { "run.sh": "echo one\n", "conf.txt": "a=1\n" });
      await Deno.chmod(`${root}/run.sh`, 0o755);
      await Deno.chmod(`${root}/conf.txt`, 0o640);
      const asRoot = Deno.uid() === 0;
      if (asRoot) await Deno.chown(`${root}/conf.txt`, 4321, 4322);
      await using server = await startServer({ client: "v2", args: ["--path", root] });

      await server.call("text_editor", { command: "delete", path: "run.sh" });
      const back = await server.call("text_editor", { command: "undo_edit", path: "run.sh" });
      assertEquals(back.isError, false, back.text);
      assertEquals((await Deno.stat(`${root}/run.sh`)).mode! & 0o7777, 0o755);
      assertEquals(await Deno.readTextFile(`${root}/run.sh`), "echo one\n");

      const edited = await server.call("text_editor", {
        command: "str_replace",
        path: "conf.txt",
        old_text: "a=1",
        new_text: "a=2",
      });
      assertEquals(edited.isError, false, edited.text);
      const undone = await server.call("text_editor", { command: "undo_edit", path: "conf.txt" });
      assertEquals(undone.isError, false, undone.text);
      const info = await Deno.stat(`${root}/conf.txt`);
      assertEquals(info.mode! & 0o7777, 0o640);
      if (asRoot) assertEquals([info.uid, info.gid], [4321, 4322]);
      assertEquals(await Deno.readTextFile(`${root}/conf.txt`), "a=1\n");
    },
  ),
);

Deno.test(needs("an edit and its undo reach every hard link of the file", async () => {
  await using dir = await tempDir();
  const root = dir.path;
  await writeTree(root, { "a.txt": "one\ntwo\n" });
  await Deno.link(`${root}/a.txt`, `${root}/b.txt`);
  await using server = await startServer({ client: "v2", args: ["--path", root] });
  const edited = await server.call("text_editor", {
    command: "str_replace",
    path: "a.txt",
    old_text: "two",
    new_text: "TWO",
  });
  assertEquals(edited.isError, false, edited.text);
  assertEquals(await Deno.readTextFile(`${root}/b.txt`), "one\nTWO\n");
  const undone = await server.call("text_editor", { command: "undo_edit", path: "a.txt" });
  assertEquals(undone.isError, false, undone.text);
  assertEquals(await Deno.readTextFile(`${root}/b.txt`), "one\ntwo\n");
  assertEquals((await Deno.stat(`${root}/a.txt`)).nlink, 2);
}));

Deno.test(
  needs(
    "undo over someone else's change is refused with the current lines and the call to proceed",
    async () => {
      await using dir = await tempDir();
      const root = dir.path;
      await writeTree(root, { "a.txt": "one\ntwo\nthree\n" });
      await using server = await startServer({ client: "v2", args: ["--path", root] });
      const edited = await server.call("text_editor", {
        command: "str_replace",
        path: "a.txt",
        old_text: "two",
        new_text: "TWO",
      });
      assertEquals(edited.isError, false, edited.text);
      await Deno.writeTextFile(`${root}/a.txt`, "one\nTWO\nthree\nfour (theirs)\n");
      const undone = await server.call("text_editor", { command: "undo_edit", path: "a.txt" });
      assertEquals(undone.isError, true, undone.text);
      assertStringIncludes(undone.text, "changed after the last edit");
      // What undo would do to the file as it is now, with ids of the current lines...
      assertStringIncludes(undone.text, "Current lines the undo would change:\n2:");
      assertStringIncludes(undone.text, "TWO");
      assertStringIncludes(undone.text, "four (theirs)");
      // ... and the call that makes the undo's change while keeping theirs.
      assertStringIncludes(undone.text, 'batch_edit {"path":"a.txt","operations":[{"op":"replace"');
      assertEquals(await Deno.readTextFile(`${root}/a.txt`), "one\nTWO\nthree\nfour (theirs)\n");
      // The call works as given (its ids were shown in the error).
      const call = /batch_edit (\{.*?\}\]\})/.exec(undone.text)?.[1];
      assert(call !== undefined, undone.text);
      const proceeded = await server.call("batch_edit", JSON.parse(call));
      assertEquals(proceeded.isError, false, proceeded.text);
      assertEquals(await Deno.readTextFile(`${root}/a.txt`), "one\ntwo\nthree\n");
    },
  ),
);

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}
