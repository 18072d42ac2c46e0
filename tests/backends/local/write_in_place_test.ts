// Writes of files with other hard links: the edit lands in the inode (every name), the mode and
// owner stay, and a recovery copy left by a writer that died mid-way is reported, never lost.

import { AnchorError } from "../../../lib/core/errors.ts";
import { LocalBackend } from "../../../lib/backends/local/local_backend.ts";
import { recoveryCopyName } from "../../../lib/core/path/write_temp_name.ts";
import { verifyWritten } from "../../../lib/backends/local/write_in_place.ts";
import { fnv1a32 } from "../../../lib/core/edit/line_id.ts";
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../../_assert.ts";
import { tempDir } from "../../_harness.ts";
import { needing } from "../../_requires.ts";

const needs = needing("posix-fs");
const enc = new TextEncoder();

/** A pid that ran and is gone (a finished child of this process). */
async function deadPid(): Promise<number> {
  const child = new Deno.Command("true").spawn();
  await child.status;
  return child.pid;
}

/** What a recovery copy's name records for a write of `text` into `path` by `pid`. */
function copyOf(pid: number, path: string, text: string) {
  const bytes = enc.encode(text);
  return {
    pid,
    ino: Deno.statSync(path).ino!,
    written: { size: bytes.length, fingerprint: fnv1a32(bytes) },
  };
}

Deno.test(
  needs("a write of a hard-linked file lands in every name, keeping inode and mode", async () => {
    await using dir = await tempDir();
    const b = new LocalBackend();
    const a = `${dir.path}/a.txt`;
    const other = `${dir.path}/other-name.txt`;
    await Deno.writeTextFile(a, "one\ntwo\n");
    await Deno.chmod(a, 0o640);
    await Deno.link(a, other);
    const ino = (await Deno.stat(a)).ino;
    await b.writeFileAtomic(a, enc.encode("one\nTWO\nthree\n"), {
      expect: { bytes: enc.encode("one\ntwo\n") },
    });
    assertEquals(await Deno.readTextFile(other), "one\nTWO\nthree\n");
    assertEquals((await Deno.stat(a)).ino, ino);
    assertEquals((await Deno.stat(a)).nlink, 2);
    assertEquals((await Deno.stat(a)).mode! & 0o777, 0o640);
    // Shorter content is cut to its length (no tail of the old content left).
    await b.writeFileAtomic(other, enc.encode("x\n"), {
      expect: { bytes: enc.encode("one\nTWO\nthree\n") },
    });
    assertEquals(await Deno.readTextFile(a), "x\n");
    // Nothing left beside it: no recovery copy, no temp file.
    assertEquals([...Deno.readDirSync(dir.path)].map((e) => e.name).sort(), [
      "a.txt",
      "other-name.txt",
    ]);
  }),
);

Deno.test(
  needs(
    "a hard-linked file changed since it was read is FILE_CHANGED, written nowhere",
    async () => {
      await using dir = await tempDir();
      const b = new LocalBackend();
      const a = `${dir.path}/a.txt`;
      await Deno.writeTextFile(a, "theirs\n");
      await Deno.link(a, `${dir.path}/b.txt`);
      const e = await assertRejects(() =>
        b.writeFileAtomic(a, enc.encode("mine\n"), { expect: { bytes: enc.encode("ours\n") } })
      );
      assertEquals((e as AnchorError).code, "FILE_CHANGED");
      assertEquals(await Deno.readTextFile(`${dir.path}/b.txt`), "theirs\n");
      assertEquals([...Deno.readDirSync(dir.path)].length, 2);
    },
  ),
);

Deno.test(needs("an explicit mode (undo) is applied to the linked inode", async () => {
  await using dir = await tempDir();
  const b = new LocalBackend();
  const a = `${dir.path}/a.sh`;
  await Deno.writeTextFile(a, "echo hi\n");
  await Deno.link(a, `${dir.path}/b.sh`);
  await b.writeFileAtomic(a, enc.encode("echo ho\n"), { mode: 0o755 });
  assertEquals((await Deno.stat(`${dir.path}/b.sh`)).mode! & 0o777, 0o755);
  assertEquals(await Deno.readTextFile(`${dir.path}/b.sh`), "echo ho\n");
}));

Deno.test(
  needs(
    "a dead writer's recovery copy: equal to the file, it is removed and the write goes on",
    async () => {
      await using dir = await tempDir();
      const b = new LocalBackend();
      const a = `${dir.path}/a.txt`;
      await Deno.writeTextFile(a, "old\n");
      await Deno.link(a, `${dir.path}/b.txt`);
      const copy = `${dir.path}/${
        recoveryCopyName("a.txt", 1, copyOf(await deadPid(), a, "new\n"))
      }`;
      await Deno.writeTextFile(copy, "old\n"); // killed before the overwrite began
      await b.writeFileAtomic(a, enc.encode("new\n"), { expect: { bytes: enc.encode("old\n") } });
      assertEquals(await Deno.readTextFile(`${dir.path}/b.txt`), "new\n");
      assert(!(await Deno.stat(copy).then(() => true, () => false)), "the copy is gone");
    },
  ),
);

Deno.test(
  needs(
    "a dead writer's recovery copy that differs from the file: INTERRUPTED_WRITE, both kept",
    async () => {
      await using dir = await tempDir();
      const b = new LocalBackend();
      const a = `${dir.path}/a.txt`;
      await Deno.writeTextFile(a, "NEW HALFold line two\n"); // torn: a prefix of the new content
      await Deno.link(a, `${dir.path}/b.txt`);
      const pid = await deadPid();
      const name = recoveryCopyName("a.txt", 7, copyOf(pid, a, "NEW CONTENT\n"));
      await Deno.writeTextFile(`${dir.path}/${name}`, "old line one\nold line two\n");
      // Found through the file's other name too: the copy's name carries the inode.
      const e = await assertRejects(() =>
        b.writeFileAtomic(`${dir.path}/b.txt`, enc.encode("edit\n"), {
          expect: { bytes: enc.encode("NEW HALFold line two\n") },
        })
      ) as AnchorError;
      assertEquals(e.code, "INTERRUPTED_WRITE");
      assertStringIncludes(e.message, `a write in place by anchorfs process ${pid} did not finish`);
      assertStringIncludes(e.message, JSON.stringify(`${dir.path}/${name}`));
      const hint = e.hint ?? "";
      assertStringIncludes(
        hint,
        `cp -- ${dir.path}/${name} ${dir.path}/b.txt && rm -- ${dir.path}/${name}`,
      );
      assertEquals(await Deno.readTextFile(a), "NEW HALFold line two\n");
      assertEquals(await Deno.readTextFile(`${dir.path}/${name}`), "old line one\nold line two\n");
      // The hint's command restores every name; then the write goes through.
      const cp = await new Deno.Command("bash", {
        args: ["-c", `cp -- ${dir.path}/${name} ${a} && rm -- ${dir.path}/${name}`],
      }).output();
      assert(cp.success);
      assertEquals(await Deno.readTextFile(`${dir.path}/b.txt`), "old line one\nold line two\n");
      await b.writeFileAtomic(a, enc.encode("edit\n"), {
        expect: { bytes: enc.encode("old line one\nold line two\n") },
      });
      assertEquals(await Deno.readTextFile(`${dir.path}/b.txt`), "edit\n");
    },
  ),
);

Deno.test(
  needs(
    "a writer holding the file's lock is waited for; a copy left by a live process is reported",
    async () => {
      await using dir = await tempDir();
      const b = new LocalBackend();
      const a = `${dir.path}/a.txt`;
      await Deno.writeTextFile(a, "old\n");
      await Deno.link(a, `${dir.path}/b.txt`);
      // Another writer of the inode (through any name) holds its flock: the write waits for it.
      const other = await Deno.open(`${dir.path}/b.txt`, { read: true });
      await other.lock(true);
      let done = false;
      const write = b.writeFileAtomic(a, enc.encode("new\n"), {
        expect: { bytes: enc.encode("old\n") },
      })
        .then(() => done = true);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assertEquals([done, await Deno.readTextFile(a)], [false, "old\n"]);
      await other.unlock();
      other.close();
      await write;
      assertEquals(await Deno.readTextFile(`${dir.path}/b.txt`), "new\n");
      // A copy whose process still runs but holds no lock was left behind (a failed restore).
      const copy = `${dir.path}/${recoveryCopyName("a.txt", 1, copyOf(Deno.ppid, a, "other\n"))}`;
      await Deno.writeTextFile(copy, "something else\n");
      const e = await assertRejects(() =>
        b.writeFileAtomic(a, enc.encode("newer\n"), { expect: { bytes: enc.encode("new\n") } })
      ) as AnchorError;
      assertEquals(e.code, "INTERRUPTED_WRITE");
      assertEquals(await Deno.readTextFile(copy), "something else\n");
      assertEquals(await Deno.readTextFile(a), "new\n");
    },
  ),
);

Deno.test(
  needs(
    "a dead writer's copy beside exactly what it was writing is removed: that write finished",
    async () => {
      await using dir = await tempDir();
      const b = new LocalBackend();
      const a = `${dir.path}/a.txt`;
      await Deno.writeTextFile(a, "written\n"); // killed after the overwrite, before the copy went
      await Deno.link(a, `${dir.path}/b.txt`);
      const copy = `${dir.path}/${
        recoveryCopyName("a.txt", 1, copyOf(await deadPid(), a, "written\n"))
      }`;
      await Deno.writeTextFile(copy, "before\n");
      await b.writeFileAtomic(a, enc.encode("next\n"), {
        expect: { bytes: enc.encode("written\n") },
      });
      assertEquals(await Deno.readTextFile(`${dir.path}/b.txt`), "next\n");
      assert(!(await Deno.stat(copy).then(() => true, () => false)), "the copy is gone");
    },
  ),
);

Deno.test(
  needs(
    "a file whose name is near the 255-byte limit is written, with or without other links",
    async () => {
      await using dir = await tempDir();
      const b = new LocalBackend();
      for (const name of ["n".repeat(250), "é".repeat(125)]) {
        const path = `${dir.path}/${name}`;
        await Deno.writeTextFile(path, "one\n");
        await b.writeFileAtomic(path, enc.encode("two\n"), {
          expect: { bytes: enc.encode("one\n") },
        });
        assertEquals(await Deno.readTextFile(path), "two\n");
        await Deno.link(path, `${dir.path}/link`);
        await b.writeFileAtomic(path, enc.encode("three\n"), {
          expect: { bytes: enc.encode("two\n") },
        });
        assertEquals(await Deno.readTextFile(`${dir.path}/link`), "three\n");
        await Deno.remove(`${dir.path}/link`);
      }
      assertEquals([...Deno.readDirSync(dir.path)].length, 2, "no temp file or copy left");
    },
  ),
);

Deno.test("a read-back that another program's later write explains is not undone; one it does not is a failure", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/f.txt`;
  const target = { open: path, dir: dir.path, base: "f.txt", shown: path, shownDir: dir.path };
  const data = enc.encode("ours\n");
  await Deno.writeFile(path, data);
  const after = Deno.statSync(path);
  verifyWritten(target, data, after); // exactly ours
  await Deno.writeTextFile(path, "appended\n", { append: true });
  verifyWritten(target, data, after); // ours, then a program appended
  await Deno.writeTextFile(path, "theirs\n"); // a program rewrote it after ours: its size moved
  verifyWritten(target, data, after);
  // Same size and times as right after our write, yet not our bytes: our write did not land.
  await Deno.writeTextFile(path, "OURS\n");
  await Deno.utime(path, after.atime!, after.mtime!);
  const now = Deno.statSync(path);
  const e = (() => {
    try {
      verifyWritten(target, data, now);
    } catch (e) {
      return e;
    }
  })();
  assert(e instanceof Error && e.message.includes("read back differs"), String(e));
});
