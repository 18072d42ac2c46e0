// kill -9 of the real server while it writes a hard-linked file in place: the file is the old or
// the new content, or a whole recovery copy of the old one is beside it and the next edit reports
// it (INTERRUPTED_WRITE) with a command that puts it back into every name.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import {
  RawServer,
  replyIsError,
  replyText,
  sleep,
} from "../../scripts/bench/_reliability_server.ts";
import { startServer, tempDir } from "../_harness.ts";
import { needing } from "../_requires.ts";
import { recoveryCopyName } from "../../lib/core/path/write_temp_name.ts";

const needs = needing("posix-fs", "bash");

function bigText(lines: number, marker: string): string {
  const out: string[] = [];
  for (let n = 0; n < lines; n++) {
    if (n === 1000) out.push(marker);
    out.push(`${String(n).padStart(9, "0")} the quick brown fox jumps`);
  }
  return `${out.join("\n")}\n`;
}

const same = (a: Uint8Array, b: string) => new TextDecoder().decode(a) === b;

Deno.test(
  needs("kill -9 during an in-place write of a hard-linked file never loses the file", async () => {
    await using dir = await tempDir("anchorfs-faults-links-");
    await using state = await tempDir("anchorfs-faults-links-state-");
    const file = `${dir.path}/big.txt`;
    const twin = `${dir.path}/twin.txt`;
    const oldText = bigText(300_000, "MARKER_OLD"); // ~11 MB
    const newText = oldText.replace("MARKER_OLD", "MARKER_NEW_AND_LONGER");
    const args = ["--path", dir.path, "--state-dir", state.path, "--max-file-bytes", "64M"];
    for (let i = 0; i < 4; i++) {
      await Deno.remove(twin).catch(() => {});
      await Deno.writeTextFile(file, oldText);
      await Deno.link(file, twin);
      const server = await RawServer.start({ cwd: dir.path, args });
      const edit = server.call("text_editor", {
        command: "str_replace",
        path: "big.txt",
        old_text: "MARKER_OLD",
        new_text: "MARKER_NEW_AND_LONGER",
      }, 60_000);
      let done = false;
      edit.finally(() => done = true);
      // Aim at the write itself: kill a moment after the recovery copy appears.
      while (!done && !copiesIn(dir.path).length) await sleep(1);
      await sleep(i * 3); // how often this hits the overwrite itself depends on the machine
      server.kill();
      await server.close(100);
      await edit;
      const copies = copiesIn(dir.path);
      const now = await Deno.readFile(file);
      assert(same(await Deno.readFile(twin), new TextDecoder().decode(now)), "one inode, one text");
      if (same(now, oldText) || same(now, newText)) {
        for (const c of copies) {
          assert(same(await Deno.readFile(`${dir.path}/${c}`), oldText), "a copy is whole");
        }
      } else {
        assertEquals(copies.length, 1, "a half-written file has its recovery copy beside it");
        assert(same(await Deno.readFile(`${dir.path}/${copies[0]}`), oldText));
      }
      // The next edit: goes through when nothing is torn, else reports the copy and how to restore.
      const next = await RawServer.start({ cwd: dir.path, args });
      try {
        const r = await next.call("text_editor", {
          command: "str_replace",
          path: "twin.txt",
          old_text: "000000000 the quick brown fox jumps",
          new_text: "000000000 edited",
        }, 60_000);
        const text = replyText(r);
        // A copy beside the old or the complete new content is removed silently.
        const interrupted = copies.length > 0 && !same(now, oldText) && !same(now, newText);
        if (!interrupted) {
          assert(!replyIsError(r), text);
          assertEquals(copiesIn(dir.path), []);
          continue;
        }
        assert(replyIsError(r), text);
        assertStringIncludes(text, "may be half written");
        assertStringIncludes(text, copies[0]!);
        const command = /"command":("(?:[^"\\]|\\.)*")/.exec(text)?.[1];
        assert(command !== undefined, text);
        const restore = await new Deno.Command("bash", { args: ["-c", JSON.parse(command)] })
          .output();
        assert(restore.success, new TextDecoder().decode(restore.stderr));
        assert(same(await Deno.readFile(twin), oldText), "restored into every name");
        assertEquals(copiesIn(dir.path), []);
      } finally {
        await next.close();
      }
    }
  }),
);

function copiesIn(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.endsWith(".orig"));
}

Deno.test(
  needs(
    "a half-written hard-linked file is reported by the next edit, and its hint's call restores it",
    async () => {
      await using dir = await tempDir("anchorfs-faults-links-");
      const file = `${dir.path}/a.txt`;
      await Deno.writeTextFile(file, "NEW CONTENT HALFne two\nline three\n");
      await Deno.link(file, `${dir.path}/b.txt`);
      const gone = new Deno.Command("true").spawn();
      await gone.status;
      const ino = (await Deno.stat(file)).ino!;
      const written = { size: 99, fingerprint: 0 }; // what the killed write was putting there
      const copy = recoveryCopyName("a.txt", 1, { pid: gone.pid, ino, written });
      await Deno.writeTextFile(`${dir.path}/${copy}`, "line one\nline two\nline three\n");
      await using server = await startServer({ client: "v2", args: ["--path", dir.path] });
      const edit = await server.call("text_editor", {
        command: "str_replace",
        path: "b.txt",
        old_text: "line three",
        new_text: "LINE THREE",
      });
      assert(edit.isError, edit.text);
      assertStringIncludes(edit.text, `"${dir.path}/b.txt" may be half written`);
      assertStringIncludes(edit.text, copy);
      assertEquals(await Deno.readTextFile(file), "NEW CONTENT HALFne two\nline three\n");
      // The hint's first call, run as given through the server's own shell tool.
      const call = /shell (\{"command":"cp -- (?:[^"\\]|\\.)*"\})/.exec(edit.text)?.[1];
      assert(call !== undefined, edit.text);
      const restored = await server.call("shell", JSON.parse(call));
      assertEquals(restored.isError, false, restored.text);
      assertEquals(await Deno.readTextFile(file), "line one\nline two\nline three\n");
      assertEquals((await Deno.stat(file)).nlink, 2, "restored into the inode: still two names");
      const retry = await server.call("text_editor", {
        command: "str_replace",
        path: "b.txt",
        old_text: "line three",
        new_text: "LINE THREE",
      });
      assertEquals(retry.isError, false, retry.text);
      assertEquals(await Deno.readTextFile(file), "line one\nline two\nLINE THREE\n");
    },
  ),
);
