// The edit tools driven the way an attacker would, through the real server: targets that are not
// regular files (FIFO, socket, directory, a 3 GB sparse file), names with a NUL, a newline or
// "..", a file swapped for a symlink between view and edit, a read-only folder. Every case answers
// with what happened and the call to make next, changes nothing, and the server keeps answering.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { startServer, tempDir, type TestServer, writeTree } from "../_harness.ts";
import { needing } from "../_requires.ts";

const needs = needing("posix-fs", "bash");

/** One call per edit tool (and command) aimed at `path`; src.txt is a readable source. */
function attempts(path: string): [string, Record<string, unknown>][] {
  return [
    ["text_editor", { command: "str_replace", path, old_text: "a", new_text: "b" }],
    ["batch_edit", { path, operations: [{ op: "insert", anchor: -1, content: "z" }] }],
    ["extract_lines", { from_path: path, start: 1, end: 1, to_path: "out.txt", position: -1 }],
    ["extract_lines", { from_path: "src.txt", start: 1, end: 1, to_path: path, position: -1 }],
    ["text_editor", { command: "create", path, file_text: "x\n" }],
    ["text_editor", { command: "delete", path }],
  ];
}

async function refusedEach(
  server: TestServer,
  path: string,
  expected: (tool: string, args: Record<string, unknown>) => string,
): Promise<void> {
  for (const [tool, args] of attempts(path)) {
    const r = await server.call(tool, args);
    const label = `${tool} ${JSON.stringify(args)}`;
    assertEquals(r.isError, true, `${label} was not refused:\n${r.text}`);
    assertStringIncludes(r.text, expected(tool, args), label);
    assertStringIncludes(r.text, "Next: ", `${label} gives no next step:\n${r.text}`);
  }
}

Deno.test(
  needs("FIFOs and sockets are refused by every edit tool, named as what they are", async () => {
    await using dir = await tempDir();
    const root = dir.path;
    await writeTree(root, { "src.txt": "s1\n", "out.txt": "o\n" });
    const fifo = await new Deno.Command("mkfifo", { args: [`${root}/pipe`] }).output();
    assert(fifo.success);
    using _sock = Deno.listen({ transport: "unix", path: `${root}/sock` });
    await using server = await startServer({ client: "v2", args: ["--path", root] });
    for (const [name, what] of [["pipe", "a FIFO (named pipe)"], ["sock", "a socket"]]) {
      await refusedEach(
        server,
        name!,
        (_, args) =>
          args.command === "create"
            ? `${JSON.stringify(name)} already exists as ${what}; create never replaces anything`
            : `is ${what}, not a regular file`,
      );
      // create's and delete's hints name the shell's rm; nothing was replaced.
      const created = await server.call("text_editor", {
        command: "create",
        path: name,
        file_text: "x\n",
      });
      assertStringIncludes(created.text, `rm -- ${name}`);
    }
    assert((await Deno.lstat(`${root}/pipe`)).isFifo);
    assert((await Deno.lstat(`${root}/sock`)).isSocket);
    assertEquals(await Deno.readTextFile(`${root}/out.txt`), "o\n");
  }),
);

Deno.test(
  needs(
    "a directory and a 3 GB sparse file are refused quickly and left as they were",
    async () => {
      await using dir = await tempDir();
      const root = dir.path;
      await writeTree(root, { "src.txt": "s1\n", "out.txt": "o\n", "d/x.txt": "x\n" });
      const big = await Deno.open(`${root}/big.log`, { write: true, create: true });
      await big.write(new TextEncoder().encode("a text head\n"));
      await big.truncate(3 * 1024 ** 3);
      big.close();
      await using server = await startServer({ client: "v2", args: ["--path", root] });
      await refusedEach(
        server,
        "d",
        (_, args) =>
          args.command === "create" ? '"d" is a directory; create makes files' : "is a directory",
      );
      await refusedEach(
        server,
        "big.log",
        (_, args) =>
          args.command === "create"
            ? '"big.log" already exists (3,221,225,472 bytes)'
            : args.command === "delete"
            ? "delete (which keeps the bytes for undo_edit) holds the whole file in memory"
            : "is a binary file",
      );
      assertEquals((await Deno.stat(`${root}/big.log`)).size, 3 * 1024 ** 3);
      assertEquals(await Deno.readTextFile(`${root}/d/x.txt`), "x\n");
      assertEquals(await Deno.readTextFile(`${root}/out.txt`), "o\n");
    },
  ),
);

Deno.test(
  needs(
    "a NUL or a too-long name is the caller's mistake; newlines and '..' are names like others",
    async () => {
      await using dir = await tempDir();
      const root = dir.path;
      await writeTree(root, { "a.txt": "one\n", "d/keep.txt": "k\n" });
      await using server = await startServer({ client: "v2", args: ["--path", root] });
      for (const path of ["a.txt\0", "nul\0x.txt", "\0"]) {
        for (const [tool, args] of attempts(path).slice(0, 2)) {
          const r = await server.call(tool, args);
          assertEquals(r.isError, true, r.text);
          assertStringIncludes(r.text, "holds a NUL character (\\u0000), which no file name");
          assert(!r.text.includes("retry"), `a NUL is not worth a retry:\n${r.text}`);
        }
      }
      const long = await server.call("text_editor", {
        command: "create",
        path: `${"n".repeat(300)}.txt`,
        file_text: "x\n",
      });
      assertEquals(long.isError, true, long.text);
      assertStringIncludes(long.text, "longer than the file system allows");
      assertStringIncludes(long.text, "Next: Use a shorter path");
      const fixed = await server.call("text_editor", {
        command: "str_replace",
        path: "nul\0x.txt",
        old_text: "x",
        new_text: "y",
      });
      assertStringIncludes(fixed.text, 'Name the file without it: "nulx.txt".');
      const created = await server.call("text_editor", {
        command: "create",
        path: "two\nlines.txt",
        file_text: "x\n",
      });
      assertEquals(created.isError, false, created.text);
      assertStringIncludes(created.text, 'Created "two\\nlines.txt"');
      assertEquals(await Deno.readTextFile(`${root}/two\nlines.txt`), "x\n");
      const edited = await server.call("text_editor", {
        command: "str_replace",
        path: "d/../a.txt",
        old_text: "one",
        new_text: "ONE",
      });
      assertEquals(edited.isError, false, edited.text);
      assertEquals(await Deno.readTextFile(`${root}/a.txt`), "ONE\n");
      assertEquals([...Deno.readDirSync(root)].map((e) => e.name).sort(), [
        "a.txt",
        "d",
        "two\nlines.txt",
      ]);
    },
  ),
);

Deno.test(
  needs(
    "a file swapped for a symlink to outside --allow between view and edit is not written",
    async () => {
      await using dir = await tempDir();
      const root = dir.path;
      await writeTree(root, { "proj/a.txt": "same\ntext\n", "outside/secret.txt": "same\ntext\n" });
      await using server = await startServer({
        client: "v2",
        args: ["--path", `${root}/proj`, "--allow", `${root}/proj`],
      });
      const view = await server.call("view", { path: "a.txt" });
      const id = /^(1:[0-9a-f]{2})\|same$/m.exec(view.text)?.[1];
      assert(id !== undefined, view.text);
      await Deno.remove(`${root}/proj/a.txt`);
      await Deno.symlink(`${root}/outside/secret.txt`, `${root}/proj/a.txt`);
      const batch = await server.call("batch_edit", {
        path: "a.txt",
        operations: [{ op: "replace", start: id, content: "OWNED" }],
      });
      assertEquals(batch.isError, true, batch.text);
      assertStringIncludes(batch.text, "is outside the directories this server may use");
      const replaced = await server.call("text_editor", {
        command: "str_replace",
        path: "a.txt",
        old_text: "same",
        new_text: "OWNED",
      });
      assertEquals(replaced.isError, true, replaced.text);
      assertEquals(await Deno.readTextFile(`${root}/outside/secret.txt`), "same\ntext\n");
      assert(
        (await Deno.lstat(`${root}/proj/a.txt`)).isSymlink,
        "the link was not replaced either",
      );
    },
  ),
);

/** A launcher under which root cannot write a 0555 folder (capabilities dropped), or null. */
async function readOnlyLauncher(folder: string): Promise<string[] | null> {
  const launcher = Deno.uid() === 0
    ? [
      "setpriv",
      "--inh-caps=-dac_override,-dac_read_search",
      "--bounding-set=-dac_override,-dac_read_search",
    ]
    : [];
  const probe = await new Deno.Command(launcher[0] ?? "touch", {
    args: [...launcher.slice(1), ...(launcher.length > 0 ? ["touch"] : []), `${folder}/probe`],
    stdout: "null",
    stderr: "null",
  }).output().catch(() => ({ success: true }));
  return probe.success ? null : launcher;
}

Deno.test(
  needs(
    "a file in a read-only folder (plain or hard-linked) is refused whole, nothing left",
    async (t) => {
      await using dir = await tempDir();
      const root = dir.path;
      await writeTree(root, { "ro/a.txt": "one\n", "ro/linked.txt": "two\n" });
      await Deno.link(`${root}/ro/linked.txt`, `${root}/other-name.txt`);
      await Deno.chmod(`${root}/ro`, 0o555);
      try {
        const launcher = await readOnlyLauncher(`${root}/ro`);
        if (launcher === null) {
          await t.step({
            name: "skipped: this user writes a 0555 folder anyway",
            ignore: true,
            fn() {},
          });
          return;
        }
        await using server = await startServer({ client: "v2", args: ["--path", root], launcher });
        for (const [path, old] of [["ro/a.txt", "one"], ["ro/linked.txt", "two"]]) {
          const r = await server.call("text_editor", {
            command: "str_replace",
            path,
            old_text: old,
            new_text: "CHANGED",
          });
          assertEquals(r.isError, true, r.text);
          assertStringIncludes(r.text, `Permission denied: cannot write "${root}/${path}"`);
          assertStringIncludes(r.text, "Next: ");
        }
        assertEquals(await Deno.readTextFile(`${root}/ro/a.txt`), "one\n");
        assertEquals(await Deno.readTextFile(`${root}/other-name.txt`), "two\n");
        assertEquals([...Deno.readDirSync(`${root}/ro`)].map((e) => e.name).sort(), [
          "a.txt",
          "linked.txt",
        ]);
      } finally {
        await Deno.chmod(`${root}/ro`, 0o755);
      }
    },
  ),
);

Deno.test(
  needing("proc")(
    "a file on /proc is refused as not writable there, not as missing",
    async () => {
      await using dir = await tempDir();
      await using server = await startServer({ client: "v2", args: ["--path", dir.path] });
      const r = await server.call("text_editor", {
        command: "str_replace",
        path: "/proc/version",
        old_text: "Linux",
        new_text: "X",
      });
      assertEquals(r.isError, true, r.text);
      assertStringIncludes(
        r.text,
        'Cannot write "/proc/version": no new file can be made in its folder',
      );
      assert(!r.text.includes("No file or directory"), r.text);
    },
  ),
);

Deno.test(needs("a 3 MB new_text is written whole and answered with a bounded result", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "a.txt": "one\ntwo\n" });
  await using server = await startServer({ client: "v2", args: ["--path", dir.path] });
  const huge = "x".repeat(3_000_000);
  const r = await server.call("text_editor", {
    command: "str_replace",
    path: "a.txt",
    old_text: "two",
    new_text: huge,
  });
  assertEquals(r.isError, false, r.text.slice(0, 500));
  assert(r.text.length < 10_000, `the result is ${r.text.length} characters`);
  assertStringIncludes(r.text, "[line cut: 3,000,000 characters");
  assertEquals(await Deno.readTextFile(`${dir.path}/a.txt`), `one\n${huge}\n`);
}));
