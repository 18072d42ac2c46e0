// fast_dir.ts (getdents64 through FFI): lists what Deno.readDirSync lists on real directories,
// leaves errors to the usual listing, and reads a huge directory in steps with turns between.

import { assert, assertEquals } from "../../_assert.ts";
import { tempDir, writeTree } from "../../_harness.ts";
import { needing } from "../../_requires.ts";
import { fastListDir, fastListDirInTurns } from "../../../lib/backends/local/fast_dir.ts";
import { type DirEntry, HUGE_DIR_ENTRIES } from "../../../lib/ops/ports/file_backend.ts";

const needsPosixFs = needing("posix-fs");

function viaDeno(path: string): DirEntry[] {
  return [...Deno.readDirSync(path)].map((e) => ({
    name: e.name,
    type: e.isFile ? "file" : e.isDirectory ? "dir" : e.isSymlink ? "symlink" : "other",
  }));
}

const byName = (a: DirEntry, b: DirEntry) => (a.name < b.name ? -1 : 1);

Deno.test(needsPosixFs(
  "fastListDir lists what Deno.readDirSync lists, over many reads of entries",
  async () => {
    await using dir = await tempDir();
    const files: Record<string, string> = {
      ".hidden": "h",
      "é accentué.txt": "x",
      "日本語.md": "y",
      "sub/inner.txt": "z",
    };
    // Enough long names for several 64 KiB getdents64 reads.
    for (let i = 0; i < 3000; i++) files[`${"n".repeat(60)}-${i}.txt`] = "";
    await writeTree(dir.path, files);
    await Deno.symlink(`${dir.path}/sub`, `${dir.path}/link`);
    const mkfifo = await new Deno.Command("mkfifo", { args: [`${dir.path}/pipe`] }).output();
    assert(mkfifo.success, "mkfifo");
    const fast = fastListDir(dir.path);
    if (fast === null) {
      // No FFI on this runner (or not Linux): the backend uses Deno.readDirSync, tested elsewhere.
      assert(Deno.build.os !== "linux", "fastListDir answers on Linux with FFI allowed");
      return;
    }
    assertEquals(fast.sort(byName), viaDeno(dir.path).sort(byName));
    assertEquals(fast.find((e) => e.name === "link")?.type, "symlink");
    assertEquals(fast.find((e) => e.name === "pipe")?.type, "other");
    assertEquals(fastListDir(`${dir.path}/sub`), [{ name: "inner.txt", type: "file" }]);
  },
));

Deno.test("fastListDir leaves errors to the usual listing (null)", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "f.txt": "x" });
  assertEquals(fastListDir(`${dir.path}/missing`), null);
  assertEquals(fastListDir(`${dir.path}/f.txt`), null);
  const empty = `${dir.path}/empty`;
  await Deno.mkdir(empty);
  const listed = fastListDir(empty);
  assert(listed === null || listed.length === 0);
});

Deno.test(needsPosixFs(
  "fastListDirInTurns reads a huge directory in steps with turns between, and lists the same",
  async () => {
    await using dir = await tempDir();
    const count = 5000;
    for (let i = 0; i < count; i++) Deno.writeFileSync(`${dir.path}/f${i}`, new Uint8Array());
    let turns = 0;
    // A listing running meanwhile uses the shared buffers: the stepped one must not mind.
    const listed = await fastListDirInTurns(dir.path, {
      turn: async () => {
        turns++;
        fastListDir(`${dir.path}/..`);
        await new Promise((resolve) => setTimeout(resolve, 0));
      },
      perTurn: 1000,
    });
    if (listed === null) {
      assert(Deno.build.os !== "linux", "fastListDirInTurns answers on Linux with FFI allowed");
      return;
    }
    // Each read of entries holds ~2,700 of these names: the steps are reads, not single entries.
    assert(turns >= 2, `${turns} turns`);
    assertEquals(listed.length, count);
    assertEquals(listed.sort(byName), viaDeno(dir.path).sort(byName));
    // A small directory is read at once, without a turn, and answered as it is (no promise: a
    // walk lists every directory here).
    let small = 0;
    const parent = fastListDirInTurns(`${dir.path}/..`, {
      turn: () => Promise.resolve(small++),
      perTurn: 1000,
      whenHuge: () => Promise.resolve(small++),
    });
    assertEquals(small, 0);
    assert(Array.isArray(parent), "a directory read in one step is not a promise");
    assertEquals(parent.sort(byName), viaDeno(`${dir.path}/..`).sort(byName));
  },
));

Deno.test(needsPosixFs(
  "a directory past HUGE_DIR_ENTRIES waits on whenHuge once, holding no more than its first step",
  async () => {
    await using dir = await tempDir();
    const count = HUGE_DIR_ENTRIES * 3;
    for (let i = 0; i < count; i++) Deno.writeFileSync(`${dir.path}/f${i}`, new Uint8Array());
    let huge = 0;
    let turnsBefore = -1;
    let turns = 0;
    let release!: () => void;
    const listing = fastListDirInTurns(dir.path, {
      turn: () => Promise.resolve(turns++),
      perTurn: HUGE_DIR_ENTRIES,
      whenHuge: () => {
        huge++;
        turnsBefore = turns;
        return new Promise<void>((resolve) => (release = resolve));
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (huge === 0) {
      assert((await listing) === null && Deno.build.os !== "linux", "answers on Linux");
      return;
    }
    // Held at the wait: nothing past the first step was read, and other listings still answer
    // (the waiting one left the shared buffers).
    assertEquals([huge, turnsBefore, turns], [1, 0, 0]);
    assertEquals(fastListDir(`${dir.path}/..`)!.length > 0, true);
    release();
    const listed = (await listing)!;
    assertEquals(huge, 1);
    assert(turns >= 2, `${turns} turns after the wait`);
    assertEquals(listed.sort(byName), viaDeno(dir.path).sort(byName));
  },
));
