// LocalBackend on real disk: the FileBackend contract, the content check of a write, temp files
// of dead writers cleaned (live ones and remote ones kept), fsyncs, and the other local rules.

import { AnchorError } from "../../../lib/core/errors.ts";
import { LocalBackend } from "../../../lib/backends/local/local_backend.ts";
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../../_assert.ts";
import { tempDir } from "../../_harness.ts";
import { backendContract } from "../_contract.ts";
import { needing } from "../../_requires.ts";

const needs = needing("posix-fs");

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

Deno.test(
  needs(
    "local reads refuse a FIFO and a device before opening them, naming what they are",
    async () => {
      await using dir = await tempDir();
      const fifo = `${dir.path}/pipe`;
      assert((await new Deno.Command("mkfifo", { args: [fifo] }).output()).success);
      const backend = new LocalBackend();
      assertEquals((await backend.stat(fifo))?.special, "fifo");
      assertEquals((await backend.stat("/dev/null"))?.special, "character device");
      for (
        const read of [() => backend.readFile(fifo), () => backend.readRange("/dev/zero", 0, 10)]
      ) {
        const e = await read().then(() => null, (e) => e);
        assert(e instanceof AnchorError && e.code === "NOT_A_REGULAR_FILE", String(e));
      }
      const got = [];
      for await (const item of backend.readFiles([fifo])) got.push(item);
      assert(got[0]?.error instanceof AnchorError);
    },
  ),
);

Deno.test("local readFiles with headBytes reads a head and reports the full size", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/big.txt`, "y".repeat(10_000));
  await Deno.writeTextFile(`${dir.path}/small.txt`, "abc");
  const out = new Map<string, { length: number; size: number | undefined }>();
  for await (
    const item of new LocalBackend().readFiles(
      [`${dir.path}/big.txt`, `${dir.path}/small.txt`],
      { headBytes: 1000 },
    )
  ) out.set(item.path.slice(dir.path.length + 1), { length: item.data!.length, size: item.size });
  assertEquals(out.get("big.txt"), { length: 1000, size: 10_000 });
  assertEquals(out.get("small.txt"), { length: 3, size: 3 });
});

Deno.test("local readFiles with skipLargerThan refuses bigger files unread and reads the rest whole", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/big.txt`, "y".repeat(10_000));
  await Deno.writeTextFile(`${dir.path}/small.txt`, "abc");
  const out = new Map<string, { data?: Uint8Array; error?: Error }>();
  for await (
    const item of new LocalBackend().readFiles(
      [`${dir.path}/big.txt`, `${dir.path}/small.txt`],
      { skipLargerThan: 1000 },
    )
  ) out.set(item.path.slice(dir.path.length + 1), item);
  const big = out.get("big.txt")!;
  assertEquals(big.data, undefined);
  assert(
    big.error instanceof AnchorError && big.error.code === "FILE_TOO_LARGE",
    String(big.error),
  );
  assertStringIncludes(big.error.message, "10,000 bytes");
  assertStringIncludes(big.error.hint ?? "", "--max-file-bytes");
  assertEquals(new TextDecoder().decode(out.get("small.txt")!.data), "abc");
});

Deno.test("the local backend reaches names that are not UTF-8 (Linux)", async (t) => {
  if (Deno.build.os !== "linux") {
    await t.step({ name: "skipped: byte names are handled on Linux only", ignore: true, fn() {} });
    return;
  }
  await using dir = await tempDir();
  const backend = new LocalBackend();
  // bash creates "bad<0xFF>dir/in<0xE9>.txt": Deno itself cannot name it.
  const made = await new Deno.Command("bash", {
    args: [
      "-c",
      'cd "$0" && mkdir "$(printf "bad\\377dir")" && printf "x\\n" > ' +
      '"$(printf "bad\\377dir/in\\351.txt")" && printf "decoy\\n" > "bad\uFFFDdir.txt"',
      dir.path,
    ],
  }).output();
  assertEquals(made.code, 0, new TextDecoder().decode(made.stderr));
  const top = await backend.readDir(dir.path);
  assertEquals(top.map((e) => e.name).sort(), ["bad\udcffdir", "bad\uFFFDdir.txt"]);
  const sub = `${dir.path}/bad\udcffdir`;
  assertEquals(await backend.readDir(sub), [{ name: "in\udce9.txt", type: "file" }]);
  const file = `${sub}/in\udce9.txt`;
  assertEquals(new TextDecoder().decode(await backend.readFile(file)), "x\n");
  assertEquals((await backend.stat(file))?.size, 2);
  assertEquals(await backend.realPath(file), file);
  await backend.writeFileAtomic(file, new TextEncoder().encode("y\n"), {
    expect: { bytes: enc.encode("x\n") },
  });
  assertEquals(new TextDecoder().decode(await backend.readRange(file, 0, 1)), "y");
  // The write checks hold for byte names too: content changed, or a new file that exists.
  for (const expect of [{ bytes: enc.encode("x\n") }, null]) {
    const e = await assertRejects(() =>
      backend.writeFileAtomic(file, enc.encode("z\n"), { expect })
    );
    assertEquals((e as AnchorError).code, "FILE_CHANGED");
  }
  assertEquals(new TextDecoder().decode(await backend.readFile(file)), "y\n");
  await backend.mkdirp(`${sub}/new\udcfe/deeper`);
  await backend.writeFileAtomic(`${sub}/new\udcfe/deeper/f`, new Uint8Array([1]), { expect: null });
  assertEquals((await backend.stat(`${sub}/new\udcfe/deeper/f`))?.size, 1);
  await backend.removeFile(`${sub}/new\udcfe/deeper/f`);
  assertEquals(await backend.stat(`${sub}/new\udcfe/deeper/f`), null);
  assertEquals((await backend.readDir(sub)).map((e) => e.name).sort(), [
    "in\udce9.txt",
    "new\udcfe",
  ]);
  // The decoy with a real U+FFFD is a different file.
  assertEquals(
    new TextDecoder().decode(await backend.readFile(`${dir.path}/bad\uFFFDdir.txt`)),
    "decoy\n",
  );
});

Deno.test({
  name: "a write as root keeps the replaced file's owner and group (and mode)",
  ignore: Deno.uid() !== 0,
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      const backend = new LocalBackend();
      const path = `${dir}/users_file.txt`;
      await Deno.writeTextFile(path, "a\n");
      await Deno.chown(path, 1234, 4321);
      await Deno.chmod(path, 0o640);
      await backend.writeFileAtomic(path, new TextEncoder().encode("b\n"), {
        expect: { bytes: new TextEncoder().encode("a\n") },
      });
      const info = await Deno.stat(path);
      assertEquals([info.uid, info.gid, info.mode! & 0o7777], [1234, 4321, 0o640]);
      assertEquals(await Deno.readTextFile(path), "b\n");
      // A new file is the writer's, as any new file.
      await backend.writeFileAtomic(`${dir}/new.txt`, new TextEncoder().encode("n\n"), {
        expect: null,
      });
      assertEquals((await Deno.stat(`${dir}/new.txt`)).uid, 0);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
