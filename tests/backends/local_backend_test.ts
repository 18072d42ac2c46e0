import { AnchorError } from "../../lib/core/errors.ts";
import { LocalBackend } from "../../lib/backends/local/local_backend.ts";
import { LocalWriteLocks } from "../../lib/backends/local/write_lock.ts";
import { assertEquals, assertRejects, assertStringIncludes } from "../_assert.ts";
import { tempDir } from "../_harness.ts";
import { backendContract } from "./contract.ts";

Deno.test("the local backend meets the FileBackend contract", async (t) => {
  await using dir = await tempDir();
  await backendContract(t, { backend: new LocalBackend(), root: dir.path, modes: true });
});

const enc = new TextEncoder();

Deno.test("a same-size change that keeps the mtime is still FILE_CHANGED (content is compared)", async () => {
  await using dir = await tempDir();
  const b = new LocalBackend();
  const path = `${dir.path}/same.txt`;
  await Deno.writeTextFile(path, "alpha\n");
  const { mtime } = await Deno.stat(path);
  await Deno.writeTextFile(path, "omega\n");
  await Deno.utime(path, mtime!, mtime!);
  const e = await assertRejects(() =>
    b.writeFileAtomic(path, enc.encode("gamma\n"), { expect: { bytes: enc.encode("alpha\n") } })
  );
  assertEquals((e as AnchorError).code, "FILE_CHANGED");
  assertEquals(await Deno.readTextFile(path), "omega\n");
});

Deno.test("a write lock held by another holder waits a bounded time, then LOCK_TIMEOUT", async () => {
  await using dir = await tempDir();
  await using locks = await tempDir("anchorfs-locks-test-");
  const holder = new LocalWriteLocks({ dir: locks.path });
  const waiter = new LocalWriteLocks({ dir: locks.path, waitMs: 300 });
  const path = `${dir.path}/held.txt`;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  const held = holder.run(path, () => {
    entered();
    return gate;
  });
  await inside;
  const e = await assertRejects(() => waiter.run(path, () => Promise.resolve("no")));
  assertEquals((e as AnchorError).code, "LOCK_TIMEOUT");
  assertEquals((e as AnchorError).fault, "environment");
  assertStringIncludes((e as AnchorError).message, JSON.stringify(path));
  release();
  await held;
  // Released: the next holder gets it at once, and no lock file is left behind.
  assertEquals(await waiter.run(path, () => Promise.resolve("yes")), "yes");
  assertEquals([...Deno.readDirSync(locks.path)].length, 0);
});

Deno.test("the next write in a folder removes temp files of dead writers, not of live ones", async () => {
  await using dir = await tempDir();
  const b = new LocalBackend();
  const dead = `${dir.path}/.a.txt.anchorfs-${2 ** 30}-1.tmp`; // above Linux's pid_max
  const live = `${dir.path}/.b.txt.anchorfs-${Deno.ppid}-1.tmp`; // the test runner's parent
  const reused = `${dir.path}/.c.txt.anchorfs-${Deno.ppid}-2.tmp`; // live pid, but 2 h old
  const mine = `${dir.path}/.d.txt.anchorfs-${Deno.pid}-999999.tmp`; // ours, no write in flight
  const user = `${dir.path}/.e.txt.anchorfs-notes.tmp`; // not our pattern: the user's file
  for (const p of [dead, live, reused, mine, user]) await Deno.writeTextFile(p, "partial");
  const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
  await Deno.utime(reused, old, old);
  await b.writeFileAtomic(`${dir.path}/z.txt`, enc.encode("z\n"));
  const left = [...Deno.readDirSync(dir.path)].map((e) => e.name).sort();
  assertEquals(left, [
    ".b.txt.anchorfs-" + Deno.ppid + "-1.tmp",
    ".e.txt.anchorfs-notes.tmp",
    "z.txt",
  ]);
});

Deno.test("a write is fsynced: data, then the folder (the calls succeed on this disk)", async () => {
  // Durability cannot be observed without a power cut; this pins that the synced path runs and
  // leaves exactly the new file.
  await using dir = await tempDir();
  const b = new LocalBackend();
  await b.writeFileAtomic(`${dir.path}/d.txt`, enc.encode("one\n"), { expect: null });
  await b.writeFileAtomic(`${dir.path}/d.txt`, enc.encode("two\n"), {
    expect: { bytes: enc.encode("one\n") },
  });
  assertEquals([...Deno.readDirSync(dir.path)].map((e) => e.name), ["d.txt"]);
  assertEquals(await Deno.readTextFile(`${dir.path}/d.txt`), "two\n");
});

Deno.test("a recent temp file of a remote (SFTP) writer is kept: its pid is another machine's", async () => {
  await using dir = await tempDir();
  const remote = `${dir.path}/.r.txt.anchorfs-${2 ** 30}-${Date.now()}-1.tmp`;
  await Deno.writeTextFile(remote, "in flight over SFTP");
  await new LocalBackend().writeFileAtomic(`${dir.path}/z.txt`, enc.encode("z\n"));
  assertEquals((await Deno.stat(remote)).isFile, true);
});

Deno.test("lock files left by killed holders are swept when a process first locks; held ones stay", async () => {
  await using dir = await tempDir();
  await using locks = await tempDir("anchorfs-locks-test-");
  await Deno.writeTextFile(`${locks.path}/${"a".repeat(32)}.lock`, "");
  const holder = new LocalWriteLocks({ dir: locks.path });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  const held = holder.run(`${dir.path}/held.txt`, () => {
    entered();
    return gate;
  });
  await inside;
  // The orphan went with the holder's first lock; a second process's sweep keeps the held one.
  assertEquals([...Deno.readDirSync(locks.path)].length, 1);
  const other = new LocalWriteLocks({ dir: locks.path });
  assertEquals(await other.run(`${dir.path}/free.txt`, () => Promise.resolve(1)), 1);
  assertEquals([...Deno.readDirSync(locks.path)].length, 1);
  release();
  await held;
  assertEquals([...Deno.readDirSync(locks.path)].length, 0);
});
