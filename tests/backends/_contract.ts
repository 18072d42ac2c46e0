// The one contract every FileBackend must meet (memory, local, sftp), run as steps of one test
// so a backend with a real server behind it is set up once. Each backend's *_test.ts calls it.

import { AnchorError } from "../../lib/core/errors.ts";
import type { FileBackend, TreeEntry } from "../../lib/ops/ports/file_backend.ts";
import { assert, assertEquals, assertRejects } from "../_assert.ts";

export interface ContractFixture {
  backend: FileBackend;
  /** An existing, empty directory on the backend to work in. */
  root: string;
  /** Whether the backend reports real permission bits (memory and local do; so does SFTP). */
  modes: boolean;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

function code(e: unknown): string {
  return e instanceof AnchorError ? e.code : `not an AnchorError: ${e}`;
}

async function rejectsWith(fn: () => Promise<unknown>, expected: string): Promise<void> {
  await assertRejects(fn, (e) => assertEquals(code(e), expected));
}

async function walkWithReadDir(b: FileBackend, root: string, rel = ""): Promise<TreeEntry[]> {
  const out: TreeEntry[] = [];
  for (const e of await b.readDir(rel === "" ? root : `${root}/${rel}`)) {
    const path = rel === "" ? e.name : `${rel}/${e.name}`;
    const info = e.type === "file" ? await b.stat(`${root}/${path}`) : null;
    out.push({ path, type: e.type, size: info?.size ?? 0 });
    if (e.type === "dir") out.push(...await walkWithReadDir(b, root, path));
  }
  return out;
}

export async function backendContract(t: Deno.TestContext, f: ContractFixture): Promise<void> {
  const { backend: b, root } = f;

  await t.step("stat returns null for a missing path and for a path through a file", async () => {
    assertEquals(await b.stat(`${root}/missing`), null);
    await b.writeFileAtomic(`${root}/plain.txt`, enc.encode("x"));
    assertEquals(await b.stat(`${root}/plain.txt/child`), null);
  });

  await t.step("a written file reads back byte for byte with its size", async () => {
    const data = new Uint8Array(200_000).map((_, i) => (i * 31) % 251);
    await b.writeFileAtomic(`${root}/blob.bin`, data);
    assertEquals(await b.readFile(`${root}/blob.bin`), data);
    const info = await b.stat(`${root}/blob.bin`);
    assertEquals([info?.type, info?.size], ["file", 200_000]);
    assertEquals(await b.readRange(`${root}/blob.bin`, 100_000, 5), data.slice(100_000, 100_005));
    assertEquals((await b.readRange(`${root}/blob.bin`, 199_998, 10)).length, 2);
    await b.writeFileAtomic(`${root}/empty.txt`, new Uint8Array(0));
    assertEquals((await b.readFile(`${root}/empty.txt`)).length, 0);
  });

  await t.step("readFile with maxBytes reads at most one byte past it", async () => {
    const data = new Uint8Array(100_000).map((_, i) => i % 253);
    await b.writeFileAtomic(`${root}/bounded.bin`, data);
    // One byte more than asked tells the caller the file holds more (FILE_TOO_LARGE).
    assertEquals(await b.readFile(`${root}/bounded.bin`, { maxBytes: 1000 }), data.slice(0, 1001));
    assertEquals(await b.readFile(`${root}/bounded.bin`, { maxBytes: 100_000 }), data);
    assertEquals(await b.readFile(`${root}/bounded.bin`, { maxBytes: 99_999 }), data);
  });

  await t.step("an overwrite keeps the file's mode unless a mode is given", async () => {
    if (!f.modes) return;
    await b.writeFileAtomic(`${root}/run.sh`, enc.encode("#!/bin/sh\n"), { mode: 0o750 });
    assertEquals((await b.stat(`${root}/run.sh`))?.mode, 0o750);
    await b.writeFileAtomic(`${root}/run.sh`, enc.encode("#!/bin/sh\necho hi\n"));
    assertEquals((await b.stat(`${root}/run.sh`))?.mode, 0o750);
    assertEquals(dec.decode(await b.readFile(`${root}/run.sh`)), "#!/bin/sh\necho hi\n");
  });

  await t.step(
    "expect refuses with FILE_CHANGED when the content moved on, writing nothing",
    async () => {
      await b.writeFileAtomic(`${root}/e.txt`, enc.encode("one\n"));
      await rejectsWith(
        () =>
          b.writeFileAtomic(`${root}/e.txt`, enc.encode("two\n"), {
            expect: { bytes: enc.encode("one\n\n") },
          }),
        "FILE_CHANGED",
      );
      // Same size, other content: size and mtime could not tell, the content does.
      await rejectsWith(
        () =>
          b.writeFileAtomic(`${root}/e.txt`, enc.encode("two\n"), {
            expect: { bytes: enc.encode("0ne\n") },
          }),
        "FILE_CHANGED",
      );
      await rejectsWith(
        () =>
          b.writeFileAtomic(`${root}/gone.txt`, enc.encode("x"), {
            expect: { bytes: enc.encode("x") },
          }),
        "FILE_CHANGED",
      );
      await rejectsWith(
        () => b.writeFileAtomic(`${root}/e.txt`, enc.encode("two\n"), { expect: null }),
        "FILE_CHANGED",
      );
      assertEquals(dec.decode(await b.readFile(`${root}/e.txt`)), "one\n");
      await b.writeFileAtomic(`${root}/e.txt`, enc.encode("three\n"), {
        expect: { bytes: enc.encode("one\n") },
      });
      assertEquals(dec.decode(await b.readFile(`${root}/e.txt`)), "three\n");
      await b.writeFileAtomic(`${root}/new.txt`, enc.encode("n\n"), { expect: null });
      // No temporary files are left behind, whether the write succeeded or was refused.
      const names = (await b.readDir(root)).map((e) => e.name);
      assert(!names.some((n) => n.includes(".tmp")), `leftover temp file in ${names}`);
    },
  );

  await t.step(
    "withWriteLock runs one body at a time per path, and releases on a throw",
    async () => {
      const path = `${root}/locked.txt`;
      const order: string[] = [];
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const first = b.withWriteLock(path, async () => {
        order.push("first in");
        await gate;
        order.push("first out");
        return 1;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const second = b.withWriteLock(path, () => {
        order.push("second");
        return Promise.resolve(2);
      });
      // Another path is not held up by the first body.
      assertEquals(
        await b.withWriteLock(`${root}/other.txt`, () => Promise.resolve("free")),
        "free",
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      release();
      assertEquals([await first, await second], [1, 2]);
      assertEquals(order, ["first in", "first out", "second"]);
      await assertRejects(() => b.withWriteLock(path, () => Promise.reject(new Error("boom"))));
      assertEquals(await b.withWriteLock(path, () => Promise.resolve("again")), "again");
      const names = (await b.readDir(root)).map((e) => e.name);
      assert(!names.some((n) => n.includes("lock")), `lock litter in ${names}`);
    },
  );

  await t.step("writing into a missing directory is NOT_FOUND", async () => {
    await rejectsWith(
      () => b.writeFileAtomic(`${root}/no/such/x.txt`, enc.encode("x")),
      "NOT_FOUND",
    );
  });

  await t.step("mkdirp creates parents and tolerates an existing directory", async () => {
    await b.mkdirp(`${root}/d1/d2/d3`);
    await b.mkdirp(`${root}/d1/d2/d3`);
    assertEquals((await b.stat(`${root}/d1/d2/d3`))?.type, "dir");
  });

  await t.step("readDir lists names with types, without . and ..", async () => {
    await b.mkdirp(`${root}/list/sub`);
    await b.writeFileAtomic(`${root}/list/a.txt`, enc.encode("a"));
    const entries = (await b.readDir(`${root}/list`)).sort((x, y) => x.name.localeCompare(y.name));
    assertEquals(entries, [{ name: "a.txt", type: "file" }, { name: "sub", type: "dir" }]);
    await rejectsWith(() => b.readDir(`${root}/nothing`), "NOT_FOUND");
  });

  await t.step(
    "reading a missing file is NOT_FOUND and reading a directory IS_A_DIRECTORY",
    async () => {
      await rejectsWith(() => b.readFile(`${root}/missing.txt`), "NOT_FOUND");
      await rejectsWith(() => b.readFile(`${root}/list`), "IS_A_DIRECTORY");
      await rejectsWith(() => b.realPath(`${root}/missing.txt`), "NOT_FOUND");
    },
  );

  await t.step("removeFile deletes a file; a missing one is NOT_FOUND", async () => {
    await b.writeFileAtomic(`${root}/gone.txt`, enc.encode("x"));
    await b.removeFile(`${root}/gone.txt`);
    assertEquals(await b.stat(`${root}/gone.txt`), null);
    await rejectsWith(() => b.removeFile(`${root}/gone.txt`), "NOT_FOUND");
  });

  await t.step(
    "symlink, when offered, makes a link holding the text given; removeFile removes the link",
    async () => {
      if (!b.symlink || !b.readLink) return;
      await b.writeFileAtomic(`${root}/linked.txt`, enc.encode("target\n"));
      await b.symlink("linked.txt", `${root}/link.txt`);
      assertEquals(await b.readLink(`${root}/link.txt`), "linked.txt");
      assertEquals(dec.decode(await b.readFile(`${root}/link.txt`)), "target\n");
      await b.symlink("nowhere.txt", `${root}/dangling.txt`);
      assertEquals(await b.readLink(`${root}/dangling.txt`), "nowhere.txt");
      assertEquals(await b.readLink(`${root}/linked.txt`), null, "a file is not a link");
      // Anything at the name, even a dangling link, is FILE_CHANGED: never replaced.
      await rejectsWith(() => b.symlink!("x", `${root}/linked.txt`), "FILE_CHANGED");
      await rejectsWith(() => b.symlink!("x", `${root}/dangling.txt`), "FILE_CHANGED");
      await b.removeFile(`${root}/link.txt`);
      await b.removeFile(`${root}/dangling.txt`);
      assertEquals(await b.readLink(`${root}/link.txt`), null);
      assertEquals(dec.decode(await b.readFile(`${root}/linked.txt`)), "target\n");
    },
  );

  await t.step("realPath and homeDir return absolute paths", async () => {
    assertEquals(await b.realPath(`${root}/list/a.txt`), `${root}/list/a.txt`);
    assert((await b.homeDir()).startsWith("/"));
  });

  await t.step("listTree, when offered, lists what a readDir walk finds", async () => {
    if (!b.listTree) return;
    await b.mkdirp(`${root}/tree/x/y`);
    await b.writeFileAtomic(`${root}/tree/top.txt`, enc.encode("top"));
    await b.writeFileAtomic(`${root}/tree/x/y/deep.txt`, enc.encode("deeper"));
    const sort = (list: TreeEntry[]) =>
      list.map((e) => ({ ...e, size: e.type === "file" ? e.size : 0 })).sort((p, q) =>
        p.path.localeCompare(q.path)
      );
    assertEquals(
      sort(await b.listTree(`${root}/tree`, undefined)),
      sort(await walkWithReadDir(b, `${root}/tree`)),
    );
    assertEquals(
      sort(await b.listTree(`${root}/tree`, 1)).map((e) => e.path),
      ["top.txt", "x"],
    );
    await rejectsWith(() => b.listTree!(`${root}/no-tree`, undefined), "NOT_FOUND");
  });

  await t.step("listTree can list hidden directories without entering them", async () => {
    if (!b.listTree) return;
    await b.mkdirp(`${root}/hid/.cache/deep`);
    await b.mkdirp(`${root}/hid/src`);
    await b.writeFileAtomic(`${root}/hid/.cache/deep/blob`, enc.encode("x"));
    await b.writeFileAtomic(`${root}/hid/.gitignore`, enc.encode("*.log\n"));
    await b.writeFileAtomic(`${root}/hid/src/.env`, enc.encode("A=1\n"));
    await b.writeFileAtomic(`${root}/hid/src/a.ts`, enc.encode("a\n"));
    const paths = (list: TreeEntry[]) => list.map((e) => e.path).sort();
    assertEquals(
      paths(await b.listTree(`${root}/hid`, undefined, { skipHiddenDirContents: true })),
      [".cache", ".gitignore", "src", "src/.env", "src/a.ts"],
    );
    assertEquals(
      paths(await b.listTree(`${root}/hid`, undefined)),
      [".cache", ".cache/deep", ".cache/deep/blob", ".gitignore", "src", "src/.env", "src/a.ts"],
    );
  });

  await t.step(
    "readFiles, when offered, returns each file once and errors for missing ones",
    async () => {
      if (!b.readFiles) return;
      await b.mkdirp(`${root}/tree/x/y`);
      await b.writeFileAtomic(`${root}/tree/top.txt`, enc.encode("top"));
      await b.writeFileAtomic(`${root}/tree/x/y/deep.txt`, enc.encode("deeper"));
      const paths = [
        `${root}/tree/top.txt`,
        `${root}/tree/x/y/deep.txt`,
        `${root}/tree/missing.txt`,
      ];
      const got = new Map<string, string>();
      for await (const r of b.readFiles(paths)) {
        assert(!got.has(r.path), `${r.path} came twice`);
        got.set(r.path, r.data ? dec.decode(r.data) : `error:${code(r.error)}`);
      }
      assertEquals(Object.fromEntries(got), {
        [paths[0]!]: "top",
        [paths[1]!]: "deeper",
        [paths[2]!]: "error:NOT_FOUND",
      });
    },
  );

  await t.step(
    "readFiles honours headBytes and skipLargerThan, in bulk and one by one",
    async () => {
      if (!b.readFiles) return;
      // 20 files: enough for a bulk path (ssh's tar stream starts at 16).
      await b.mkdirp(`${root}/bounded`);
      const paths: string[] = [];
      for (let i = 0; i < 20; i++) {
        const path = `${root}/bounded/f${i}.txt`;
        await b.writeFileAtomic(path, enc.encode(`${i}`.padEnd(i < 3 ? 5000 : 50, "x")));
        paths.push(path);
      }
      const read = async (
        list: string[],
        options: { headBytes?: number; skipLargerThan?: number },
      ) => {
        const got = new Map<string, string>();
        for await (const r of b.readFiles!(list, options)) {
          assert(!got.has(r.path), `${r.path} came twice`);
          got.set(r.path, r.data ? `${r.data.length}/${r.size}` : `error:${code(r.error)}`);
        }
        return got;
      };
      for (const list of [paths, [paths[0]!, paths[5]!]]) {
        const heads = await read(list, { headBytes: 100 });
        assertEquals(heads.get(paths[0]!), "100/5000");
        assertEquals(heads.get(paths[5]!), "50/50");
        assertEquals(heads.size, list.length);
        const small = await read(list, { skipLargerThan: 1000 });
        assertEquals(small.get(paths[0]!), "error:FILE_TOO_LARGE");
        assertEquals(small.get(paths[5]!), "50/50");
        const both = await read(list, { headBytes: 10, skipLargerThan: 1000 });
        assertEquals(both.get(paths[0]!), "error:FILE_TOO_LARGE");
        assertEquals(both.get(paths[5]!), "10/50");
      }
    },
  );

  await t.step(
    "learnCase, when offered, never throws, and keys two spellings as the store treats them",
    async () => {
      if (!b.learnCase) return;
      await b.mkdirp(`${root}/Cased`);
      await b.writeFileAtomic(`${root}/Cased/Name.txt`, enc.encode("upper"));
      await b.writeFileAtomic(`${root}/Cased/name.txt`, enc.encode("lower"));
      await b.learnCase(`${root}/Cased/Name.txt`);
      await b.learnCase(`${root}/missing/deeper/x.txt`);
      await b.learnCase("relative/x.txt");
      // Two files (a case-sensitive disk) must key apart; one file written twice (APFS, NTFS)
      // must key alike: the probe found what the store does.
      const keepsCase = dec.decode(await b.readFile(`${root}/Cased/Name.txt`)) === "upper";
      assertEquals(b.paths.foldsIn(`${root}/Cased`), !keepsCase);
      const apart = b.paths.key(`${root}/Cased/Name.txt`) !== b.paths.key(`${root}/Cased/name.txt`);
      assertEquals(apart, keepsCase);
    },
  );
}
