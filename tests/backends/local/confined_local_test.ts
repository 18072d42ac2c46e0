// The confined view of the local disk (--allow, --roots on Linux): the FileBackend contract, both
// ways of opening beneath the allowed directories (openat2, and the openat walk of kernels
// without it), symlinks that stay inside (relative, absolute, into another allowed directory)
// followed as before, everything that leads outside refused with the confinement's wording,
// roots that change (descriptors of old ones kept a while), hard-linked files written in place,
// the enclosing repository's ignore rules above the allowed folder, and the refusal an operation
// gives when a directory was swapped for a symlink after the check.

import { AnchorError } from "../../../lib/core/errors.ts";
import { LocalBackend } from "../../../lib/backends/local/local_backend.ts";
import { Confinement } from "../../../lib/ops/confinement.ts";
import { Locations } from "../../../lib/ops/location.ts";
import { type FileBackend, HUGE_DIR_ENTRIES } from "../../../lib/ops/ports/file_backend.ts";
import { walkFiles } from "../../../lib/ops/tree/walk.ts";
import { newWalkStats } from "../../../lib/ops/tree/notices.ts";
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../../_assert.ts";
import { tempDir, writeTree } from "../../_harness.ts";
import { backendContract } from "../_contract.ts";
import { needing } from "../../_requires.ts";
import { exchange } from "../../../lib/backends/local/rename_exchange.ts";

const needs = needing("posix-fs", "proc", "linux-ffi");
const METHODS = ["openat2", "openat"] as const;
type Method = typeof METHODS[number];

const enc = new TextEncoder();
const dec = new TextDecoder();

/** A LocalBackend confined to `dirs` by `method`, and its confined view. */
function confined(
  dirs: { path: string; named?: string }[],
  method: Method,
): { local: LocalBackend; view: FileBackend; method: string } {
  if (method === "openat") Deno.env.set("ANCHORFS_BENEATH", "openat");
  try {
    const local = new LocalBackend();
    const got = local.confine(dirs, (path, real) =>
      new AnchorError({
        code: "OUTSIDE_ALLOWED",
        message: `${path} leads to ${real}`,
        hint: "test refusal",
      }))!;
    return { local, view: got.backend, method: got.method };
  } finally {
    Deno.env.delete("ANCHORFS_BENEATH");
  }
}

async function outside(fn: () => Promise<unknown>): Promise<string> {
  const e = await assertRejects(fn);
  assert(e instanceof AnchorError && e.code === "OUTSIDE_ALLOWED", String(e));
  return (e as AnchorError).message;
}

/** T/in (allowed, with links of every kind), T/in2 (allowed too), T/out (never reached). */
async function world(t: string): Promise<void> {
  await writeTree(t, {
    "in/a.txt": "inside a\n",
    "in/sub/b.txt": "inside b\n",
    "in2/c.txt": "inside c\n",
    "out/secret.txt": "SECRET\n",
  });
  await Deno.symlink("sub", `${t}/in/rel`); // relative, stays inside
  await Deno.symlink(`${t}/in/sub`, `${t}/in/abs`); // absolute, names a path inside
  await Deno.symlink("../in2", `${t}/in/other`); // into the other allowed directory
  await Deno.symlink("../out", `${t}/in/escape`); // relative, leads out
  await Deno.symlink(`${t}/out`, `${t}/in/absout`); // absolute, leads out
  await Deno.symlink("sub/../../out/secret.txt", `${t}/in/dotdot`); // climbs out
  await Deno.symlink("loop", `${t}/in/loop`);
}

for (const method of METHODS) {
  Deno.test(
    needs(`the confined local backend meets the FileBackend contract (${method})`, async (t) => {
      await using dir = await tempDir();
      const root = await Deno.realPath(dir.path);
      const { local, view, method: used } = confined([{ path: root }], method);
      assertEquals(used, method);
      await backendContract(t, { backend: view, root, modes: true });
      await local.close();
    }),
  );

  Deno.test(
    needs(
      `symlinks that stay inside the allowed directories are followed (${method})`,
      async () => {
        await using dir = await tempDir();
        const t = await Deno.realPath(dir.path);
        await world(t);
        const { local, view } = confined([{ path: `${t}/in` }, { path: `${t}/in2` }], method);
        for (const path of ["rel/b.txt", "abs/b.txt"]) {
          assertEquals(dec.decode(await view.readFile(`${t}/in/${path}`)), "inside b\n", path);
        }
        assertEquals(dec.decode(await view.readFile(`${t}/in/other/c.txt`)), "inside c\n");
        assertEquals((await view.readDir(`${t}/in/abs`)).map((e) => e.name), ["b.txt"]);
        assertEquals((await view.stat(`${t}/in/rel`))?.type, "dir");
        await view.writeFileAtomic(`${t}/in/abs/new.txt`, enc.encode("n\n"), { expect: null });
        assertEquals(await Deno.readTextFile(`${t}/in/sub/new.txt`), "n\n");
        await view.mkdirp(`${t}/in/other/made/deep`);
        assert((await Deno.stat(`${t}/in2/made/deep`)).isDirectory);
        await local.close();
      },
    ),
  );

  Deno.test(
    needs(
      `paths that lead outside are refused, saying where they lead; nothing is read or written (${method})`,
      async () => {
        await using dir = await tempDir();
        const t = await Deno.realPath(dir.path);
        await world(t);
        const { local, view } = confined([{ path: `${t}/in` }], method);
        const to = (p: string) => `leads to ${t}/out/${p}`;
        assertStringIncludes(
          await outside(() => view.readFile(`${t}/in/escape/secret.txt`)),
          to("secret.txt"),
        );
        assertStringIncludes(
          await outside(() => view.readFile(`${t}/in/absout/secret.txt`)),
          to("secret.txt"),
        );
        assertStringIncludes(
          await outside(() => view.readFile(`${t}/in/dotdot`)),
          to("secret.txt"),
        );
        await outside(() => view.readDir(`${t}/in/escape`));
        await outside(() => view.stat(`${t}/in/escape/secret.txt`));
        await outside(() => view.readRange(`${t}/in/escape/secret.txt`, 0, 3));
        await outside(() => view.readFile(`${t}/out/secret.txt`));
        await outside(() =>
          view.writeFileAtomic(`${t}/in/escape/new.txt`, enc.encode("x"), { expect: null })
        );
        await outside(() => view.mkdirp(`${t}/in/escape/made`));
        await outside(() => view.removeFile(`${t}/in/escape/secret.txt`));
        const read = [];
        for await (const r of view.readFiles!([`${t}/in/escape/secret.txt`, `${t}/in/a.txt`])) {
          read.push(r.error instanceof AnchorError ? r.error.code : dec.decode(r.data));
        }
        assertEquals(read, ["OUTSIDE_ALLOWED", "inside a\n"]);
        const sums = [...view.summarizeFiles!([`${t}/in/escape/secret.txt`, `${t}/in/a.txt`], 64)];
        assertEquals(
          sums.map((s) => s.error instanceof AnchorError ? s.error.code : s.summary?.lines),
          [
            "OUTSIDE_ALLOWED",
            1,
          ],
        );
        const loop = await assertRejects(() => view.readFile(`${t}/in/loop`));
        assertEquals((loop as AnchorError).code, "SYMLINK_LOOP");
        assertEquals([...Deno.readDirSync(`${t}/out`)].map((e) => e.name), ["secret.txt"]);
        assertEquals(await Deno.readTextFile(`${t}/out/secret.txt`), "SECRET\n");
        await local.close();
      },
    ),
  );

  Deno.test(
    needs(
      `the held directories follow a change of roots; a root named through a symlink is placed by that name (${method})`,
      async () => {
        await using dir = await tempDir();
        const t = await Deno.realPath(dir.path);
        await world(t);
        await Deno.symlink(`${t}/in`, `${t}/alias`);
        const { local, view } = confined([{ path: `${t}/in`, named: `${t}/alias` }], method);
        assertEquals(dec.decode(await view.readFile(`${t}/alias/a.txt`)), "inside a\n");
        local.confine([{ path: `${t}/in2` }], () => new Error("unused"));
        assertEquals(dec.decode(await view.readFile(`${t}/in2/c.txt`)), "inside c\n");
        const e = await assertRejects(() => view.readFile(`${t}/in/a.txt`));
        assertEquals((e as Error).message, "unused");
        await local.close();
      },
    ),
  );

  Deno.test(
    needs(
      `names that are not UTF-8 are listed, read and written by their bytes (${method})`,
      async () => {
        await using dir = await tempDir();
        const t = await Deno.realPath(dir.path);
        const { local, view } = confined([{ path: t }], method);
        const odd = `${t}/odd\udcff.txt`; // the byte 0xFF, as path_quote.ts holds it
        await view.writeFileAtomic(odd, enc.encode("raw\n"), { expect: null });
        assertEquals((await view.readDir(t)).map((e) => e.name), ["odd\udcff.txt"]);
        assertEquals(dec.decode(await view.readFile(odd)), "raw\n");
        await view.writeFileAtomic(odd, enc.encode("raw 2\n"), {
          expect: { bytes: enc.encode("raw\n") },
        });
        assertEquals(dec.decode(await view.readFile(odd)), "raw 2\n");
        await view.removeFile(odd);
        assertEquals(await view.readDir(t), []);
        await local.close();
      },
    ),
  );

  Deno.test(
    needs(
      `a huge directory waits on whenHuge once, mid-read, and lists every entry (${method})`,
      async () => {
        await using dir = await tempDir();
        const t = await Deno.realPath(dir.path);
        const count = HUGE_DIR_ENTRIES * 2;
        for (let i = 0; i < count; i++) Deno.writeFileSync(`${t}/f${i}`, new Uint8Array());
        await writeTree(t, { "small/a.txt": "a\n" });
        const { local, view } = confined([{ path: t }], method);
        let waits = 0;
        let release!: () => void;
        const listing = view.readDir(t, {
          whenHuge: () => {
            waits++;
            return new Promise<void>((resolve) => (release = resolve));
          },
        });
        await new Promise((resolve) => setTimeout(resolve, 20));
        assertEquals(waits, 1);
        // Another listing answers while this one waits (it left the shared buffers).
        assertEquals((await view.readDir(`${t}/small`)).map((e) => e.name), ["a.txt"]);
        release();
        const names = (await listing).map((e) => e.name).sort();
        assertEquals(names.length, count + 1);
        assertEquals(new Set(names).size, count + 1);
        // A small directory never waits.
        await view.readDir(`${t}/small`, { whenHuge: () => Promise.resolve(waits++) });
        assertEquals(waits, 1);
        await local.close();
      },
    ),
  );
}

Deno.test(
  needs(
    "an operation on a path checked inside, whose folder became a symlink to outside, is refused in the check's words",
    async () => {
      await using dir = await tempDir();
      const t = await Deno.realPath(dir.path);
      await world(t);
      const local = new LocalBackend();
      const locations = new Locations(local);
      const start = locations.localAt(`${t}/in`);
      const confinement = (await Confinement.create(locations, start, {
        allow: [`${t}/in`],
        roots: false,
      }))!;
      locations.setGuard(confinement);
      assertEquals(confinement.method, "openat2");
      const location = await locations.resolve("sub/b.txt", start);
      assert(location.backend !== local, "an approved path is used through the confined view");
      const before = await locations.resolve("sub/new.txt", start);
      // After the check: sub becomes a symlink to outside (what the racing process does).
      await Deno.rename(`${t}/in/sub`, `${t}/in/moved`);
      await Deno.symlink(`${t}/out`, `${t}/in/sub`);
      const e = await assertRejects(() => location.backend.readFile(location.path));
      assertEquals((e as AnchorError).code, "OUTSIDE_ALLOWED");
      assertStringIncludes(
        (e as AnchorError).message,
        `"${t}/in/sub/b.txt", which resolves to "${t}/out/b.txt" is outside the directories this ` +
          `server may use (--allow: "${t}/in"); nothing was read or written.`,
      );
      assertStringIncludes((e as AnchorError).hint ?? "", `Use a path inside "${t}/in"`);
      await assertRejects(() =>
        before.backend.writeFileAtomic(before.path, enc.encode("x\n"), { expect: null })
      );
      assertEquals([...Deno.readDirSync(`${t}/out`)].map((e) => e.name), ["secret.txt"]);
      // The shell's paths stay unconfined: locate gives the disk itself.
      assertEquals((await locations.locate(`${t}/out`, location)).backend, local);
      await local.close();
    },
  ),
);

Deno.test(
  needs(
    "a root no longer allowed keeps its descriptor open for the next 64 changes, then closes it",
    async () => {
      await using dir = await tempDir();
      const t = await Deno.realPath(dir.path);
      for (let i = 0; i <= 65; i++) await Deno.mkdir(`${t}/d${i}`);
      const local = new LocalBackend();
      local.confine([{ path: `${t}/d0` }], () => new Error("outside"));
      const fd = local.beneathConfig()!.roots[0]!.fd;
      const target = () => {
        try {
          return Deno.readLinkSync(`/proc/self/fd/${fd}`);
        } catch {
          return null;
        }
      };
      for (let i = 1; i <= 64; i++) {
        local.confine([{ path: `${t}/d${i}` }], () => new Error("outside"));
        assertEquals(target(), `${t}/d0`, `closed after ${i} changes`);
      }
      local.confine([{ path: `${t}/d65` }], () => new Error("outside"));
      assert(target() !== `${t}/d0`, "still open after 65 changes");
      await local.close();
    },
  ),
);

Deno.test(
  needs(
    "a file with other hard links is written in place through the confined view: every name sees the edit",
    async () => {
      await using dir = await tempDir();
      const t = await Deno.realPath(dir.path);
      await Deno.writeTextFile(`${t}/a.txt`, "one\n");
      await Deno.link(`${t}/a.txt`, `${t}/b.txt`);
      const { local, view } = confined([{ path: t }], "openat2");
      await view.writeFileAtomic(`${t}/a.txt`, enc.encode("two\n"), {
        expect: { bytes: enc.encode("one\n") },
      });
      assertEquals(await Deno.readTextFile(`${t}/b.txt`), "two\n");
      const stale = await assertRejects(() =>
        view.writeFileAtomic(`${t}/a.txt`, enc.encode("three\n"), {
          expect: { bytes: enc.encode("one\n") },
        })
      );
      assertEquals((stale as AnchorError).code, "FILE_CHANGED");
      assertEquals([...Deno.readDirSync(t)].map((e) => e.name).sort(), ["a.txt", "b.txt"]);
      await local.close();
    },
  ),
);

Deno.test(
  needs(
    "the confined write lock is taken beneath the allowed directory: a path whose folder leads outside is refused, its body never run",
    async () => {
      await using dir = await tempDir();
      const t = await Deno.realPath(dir.path);
      await world(t);
      const { local, view } = confined([{ path: `${t}/in` }], "openat2");
      let ran = false;
      await outside(() =>
        view.withWriteLock(`${t}/in/escape/secret.txt`, () => {
          ran = true; // the lock would be the flock of the outside folder
          return Promise.resolve();
        })
      );
      assertEquals(ran, false);
      // A folder create is about to make: the lock is its nearest existing folder, inside.
      assertEquals(await view.withWriteLock(`${t}/in/new/deep/x.txt`, () => Promise.resolve(7)), 7);
      await local.close();
    },
  ),
);

Deno.test(
  needs(
    "a confined write whose folder was swapped for another after its lock was taken is FILE_CHANGED; neither folder is written",
    async () => {
      await using dir = await tempDir();
      const t = await Deno.realPath(dir.path);
      await writeTree(t, { "in/sub/f.txt": "one\n", "in/sub2/f.txt": "one\n" });
      const { local, view } = confined([{ path: `${t}/in` }], "openat2");
      const e = await assertRejects(() =>
        view.withWriteLock(`${t}/in/sub/f.txt`, async () => {
          // Another program trades the locked folder for another of the same content.
          assertEquals(exchange(`${t}/in/sub`, `${t}/in/sub2`), { done: true });
          await view.writeFileAtomic(`${t}/in/sub/f.txt`, enc.encode("two\n"), {
            expect: { bytes: enc.encode("one\n") },
          });
        })
      );
      assertEquals((e as AnchorError).code, "FILE_CHANGED");
      for (const sub of ["sub", "sub2"]) {
        assertEquals(await Deno.readTextFile(`${t}/in/${sub}/f.txt`), "one\n", sub);
        assertEquals([...Deno.readDirSync(`${t}/in/${sub}`)].map((e) => e.name), ["f.txt"], sub);
      }
      // Unswapped, the same write goes through under its lock.
      await view.withWriteLock(
        `${t}/in/sub/f.txt`,
        () =>
          view.writeFileAtomic(`${t}/in/sub/f.txt`, enc.encode("two\n"), {
            expect: { bytes: enc.encode("one\n") },
          }),
      );
      assertEquals(await Deno.readTextFile(`${t}/in/sub/f.txt`), "two\n");
      await local.close();
    },
  ),
);

Deno.test(
  needs(
    "a walk through the confined view still applies the enclosing repository's .gitignore above the allowed folder",
    async () => {
      await using dir = await tempDir();
      const t = await Deno.realPath(dir.path);
      await writeTree(t, {
        ".git/config": "[core]\n",
        ".gitignore": "*.log\n",
        "pkg/keep.ts": "k\n",
        "pkg/drop.log": "d\n",
      });
      const { local, view } = confined([{ path: `${t}/pkg` }], "openat2");
      const names: string[] = [];
      for await (
        const item of walkFiles(view, `${t}/pkg`, { includeHidden: false }, newWalkStats())
      ) {
        names.push(item.rel);
      }
      assertEquals(names, ["keep.ts"]);
      await local.close();
    },
  ),
);
