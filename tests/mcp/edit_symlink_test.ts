// Edits through symlinks, through the real server and the CLI: the edit lands in the link's
// target and the link stays a link (as editors do); a dangling link is refused with what it
// points to and the call that works, never followed and never replaced.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { runCliProcess, startServer, tempDir, writeTree } from "../_harness.ts";
import { needing } from "../_requires.ts";

const needs = needing("posix-fs");

async function isLink(path: string): Promise<boolean> {
  return (await Deno.lstat(path)).isSymlink;
}

Deno.test(needs("edits through a file symlink change the target and keep the link", async () => {
  await using dir = await tempDir();
  const root = dir.path;
  await writeTree(root, { "real.txt": "one\ntwo\nthree\n", "src.txt": "copied\n" });
  await Deno.symlink("real.txt", `${root}/link.txt`);
  await using server = await startServer({ client: "v2", args: ["--path", root] });

  const replaced = await server.call("text_editor", {
    command: "str_replace",
    path: "link.txt",
    old_text: "two",
    new_text: "TWO",
  });
  assertEquals(replaced.isError, false, replaced.text);
  assertStringIncludes(replaced.text, "Edited link.txt (via symlink to");
  assertStringIncludes(replaced.text, `${root}/real.txt`);
  assert(await isLink(`${root}/link.txt`), "the link is still a link after str_replace");
  assertEquals(await Deno.readTextFile(`${root}/real.txt`), "one\nTWO\nthree\n");

  const batch = await server.call("batch_edit", {
    path: "link.txt",
    operations: [{ op: "insert", anchor: 0, content: "zero" }],
  });
  assertEquals(batch.isError, false, batch.text);
  assert(await isLink(`${root}/link.txt`), "the link is still a link after batch_edit");
  assertEquals(await Deno.readTextFile(`${root}/real.txt`), "zero\none\nTWO\nthree\n");

  const extracted = await server.call("extract_lines", {
    from_path: "src.txt",
    start: 1,
    end: 1,
    to_path: "link.txt",
    position: -1,
  });
  assertEquals(extracted.isError, false, extracted.text);
  assert(await isLink(`${root}/link.txt`), "the link is still a link after extract_lines");
  assertEquals(await Deno.readTextFile(`${root}/real.txt`), "zero\none\nTWO\nthree\ncopied\n");

  for (const expected of ["zero\none\nTWO\nthree\n", "one\nTWO\nthree\n", "one\ntwo\nthree\n"]) {
    const undone = await server.call("text_editor", { command: "undo_edit", path: "link.txt" });
    assertEquals(undone.isError, false, undone.text);
    assert(await isLink(`${root}/link.txt`), "the link is still a link after undo_edit");
    assertEquals(await Deno.readTextFile(`${root}/real.txt`), expected);
  }
  assertEquals(
    (await Array.fromAsync(Deno.readDir(root))).map((e) => e.name).sort(),
    ["link.txt", "real.txt", "src.txt"],
    "no temp files or new files left",
  );
}));

Deno.test(
  needs("edits through a symlinked file under --allow land in the checked target", async () => {
    await using dir = await tempDir();
    await using outside = await tempDir();
    const root = dir.path;
    await writeTree(root, { "real.txt": "a\n" });
    await writeTree(outside.path, { "secret.txt": "s\n" });
    await Deno.symlink(`${root}/real.txt`, `${root}/link.txt`);
    await Deno.symlink(`${outside.path}/secret.txt`, `${root}/out.txt`);
    await using server = await startServer({
      client: "v1",
      args: ["--path", root, "--allow", root, "--no-shell"],
    });
    const inside = await server.call("text_editor", {
      command: "str_replace",
      path: "link.txt",
      old_text: "a",
      new_text: "b",
    });
    assertEquals(inside.isError, false, inside.text);
    assert(await isLink(`${root}/link.txt`));
    assertEquals(await Deno.readTextFile(`${root}/real.txt`), "b\n");
    const out = await server.call("text_editor", {
      command: "str_replace",
      path: "out.txt",
      old_text: "s",
      new_text: "t",
    });
    assertEquals(out.isError, true, out.text);
    assertStringIncludes(out.text, "outside the directories");
    assert(await isLink(`${root}/out.txt`));
    assertEquals(await Deno.readTextFile(`${outside.path}/secret.txt`), "s\n");

    // A dangling link inside that would lead inside: refused for being dangling, not "outside",
    // and the offered call (its target, checked like any path) works.
    await Deno.symlink("later.txt", `${root}/dangle.txt`);
    const dangling = await server.call("text_editor", {
      command: "create",
      path: "dangle.txt",
      file_text: "x\n",
    });
    assertEquals(dangling.isError, true, dangling.text);
    assertStringIncludes(
      dangling.text,
      `"${root}/dangle.txt" is a symlink whose target does not exist`,
    );
    assert(!dangling.text.includes("outside the directories"), dangling.text);
    assertStringIncludes(dangling.text, `"path":"${root}/later.txt"`);
    const direct = await server.call("text_editor", {
      command: "create",
      path: `${root}/later.txt`,
      file_text: "x\n",
    });
    assertEquals(direct.isError, false, direct.text);
    assert(await isLink(`${root}/dangle.txt`));
  }),
);

Deno.test(
  needs(
    "create and str_replace on a dangling symlink say where it points and change nothing",
    async () => {
      await using dir = await tempDir();
      const root = dir.path;
      await Deno.symlink("nowhere.txt", `${root}/dangle.txt`);
      await Deno.symlink(`${root}/missing_dir`, `${root}/dlink`);
      await using server = await startServer({ client: "v2", args: ["--path", root] });

      const created = await server.call("text_editor", {
        command: "create",
        path: "dangle.txt",
        file_text: "x\n",
      });
      assertEquals(created.isError, true, created.text);
      assertStringIncludes(created.text, `"dangle.txt" is a symlink to "${root}/nowhere.txt"`);
      assertStringIncludes(
        created.text,
        "does not write through a symlink whose target is missing",
      );
      assertStringIncludes(
        created.text,
        `text_editor {"command":"create","path":"${root}/nowhere.txt"`,
      );
      assert(!created.text.includes("changed on disk"), created.text);

      const replaced = await server.call("text_editor", {
        command: "str_replace",
        path: "dangle.txt",
        old_text: "x",
        new_text: "y",
      });
      assertEquals(replaced.isError, true, replaced.text);
      assertStringIncludes(replaced.text, "symlink");

      const inDir = await server.call("text_editor", {
        command: "create",
        path: "dlink/a.txt",
        file_text: "x\n",
      });
      assertEquals(inDir.isError, true, inDir.text);
      assertStringIncludes(inDir.text, `"dlink/a.txt" goes through "dlink"`);
      assertStringIncludes(inDir.text, `${root}/missing_dir/a.txt`);

      await Deno.symlink("loop_b", `${root}/loop_a`);
      await Deno.symlink("loop_a", `${root}/loop_b`);
      const loop = await server.call("text_editor", {
        command: "create",
        path: "loop_a",
        file_text: "x\n",
      });
      assertEquals(loop.isError, true, loop.text);
      assertStringIncludes(loop.text, "a symlink that does not resolve (a loop");

      assert(await isLink(`${root}/dangle.txt`) && await isLink(`${root}/dlink`));
      assertEquals(
        (await Array.fromAsync(Deno.readDir(root))).map((e) => e.name).sort(),
        ["dangle.txt", "dlink", "loop_a", "loop_b"],
      );

      // The offered call works.
      const direct = await server.call("text_editor", {
        command: "create",
        path: `${root}/nowhere.txt`,
        file_text: "x\n",
      });
      assertEquals(direct.isError, false, direct.text);
      assertEquals(await Deno.readTextFile(`${root}/dangle.txt`), "x\n");
    },
  ),
);

Deno.test(needs("anchorfs edit through a symlink edits the target", async () => {
  await using dir = await tempDir();
  const root = dir.path;
  await writeTree(root, { "real.txt": "old\n" });
  await Deno.symlink("real.txt", `${root}/link.txt`);
  const out = await runCliProcess(["edit", "link.txt", "--old", "old", "--new", "new"], {
    cwd: root,
  });
  assertEquals(out.code, 0, out.stderr);
  assert(await isLink(`${root}/link.txt`));
  assertEquals(await Deno.readTextFile(`${root}/real.txt`), "new\n");
}));

Deno.test(needs({
  name: "a symlink whose name is not UTF-8 is edited through and named in the quoted form",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using dir = await tempDir();
    const root = dir.path;
    const made = await new Deno.Command("bash", {
      args: [
        "-c",
        `cd "$1" && printf 'old\\n' > "t$(printf '\\377').txt" && ` +
        `ln -s "t$(printf '\\377').txt" "l$(printf '\\377')" && ln -s "gone$(printf '\\376')" "d$(printf '\\377')"`,
        "-",
        root,
      ],
    }).output();
    assertEquals(made.code, 0, new TextDecoder().decode(made.stderr));
    await using server = await startServer({ client: "v2", args: ["--path", root] });
    const edited = await server.call("text_editor", {
      command: "str_replace",
      path: '"l\\xff"',
      old_text: "old",
      new_text: "new",
    });
    assertEquals(edited.isError, false, edited.text);
    assertStringIncludes(edited.text, `Edited "l\\xff" (via symlink to "${root}/t\\xff.txt")`);
    const check = await new Deno.Command("bash", {
      args: [
        "-c",
        `cd "$1" && test -L "l$(printf '\\377')" && cat "t$(printf '\\377').txt"`,
        "-",
        root,
      ],
    }).output();
    assertEquals(new TextDecoder().decode(check.stdout), "new\n");
    const dangling = await server.call("text_editor", {
      command: "create",
      path: '"d\\xff"',
      file_text: "x\n",
    });
    assertEquals(dangling.isError, true, dangling.text);
    assertStringIncludes(dangling.text, `"d\\xff" is a symlink`);
    assertStringIncludes(dangling.text, `remove the link "d\\xff" first with the shell`);
  },
}));
