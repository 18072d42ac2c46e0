// The SFTP backend against a real OpenSSH sshd on 127.0.0.1: the FileBackend contract, bulk reads
// and their request counts, the case probe, and a walk reading core.ignorecase on the host.

import { AnchorError } from "../../../lib/core/errors.ts";
import { createSshWorld, startSshd } from "./_sshd.ts";
import { assert, assertEquals } from "../../_assert.ts";
import { tempDir } from "../../_harness.ts";
import { backendContract } from "../_contract.ts";
import { needing } from "../../_requires.ts";
import { walkFiles } from "../../../lib/ops/tree/walk.ts";
import { newWalkStats } from "../../../lib/ops/tree/notices.ts";

const needs = needing("sshd", "posix-fs");

Deno.test(
  needs("the SFTP backend meets the FileBackend contract against a real sshd", async (t) => {
    await using world = await createSshWorld({
      config: (port) => `Host box\n  HostName 127.0.0.1\n  Port ${port}\n`,
    });
    await using dir = await tempDir();
    const pool = world.pool();
    try {
      const backend = await pool.openSftp({ host: "box" });
      await backendContract(t, { backend, root: dir.path, modes: true });
    } finally {
      await pool.close();
    }
  }),
);

Deno.test(
  needs(
    "bulk reads through the remote tar helper handle long names, missing files and many files",
    async () => {
      await using world = await createSshWorld({
        config: (port) => `Host box\n  HostName 127.0.0.1\n  Port ${port}\n`,
      });
      await using dir = await tempDir();
      const long = `${dir.path}/${"deep-folder-name/".repeat(8)}${"x".repeat(120)}.txt`;
      await Deno.mkdir(long.slice(0, long.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(long, "long name\n");
      const paths = [long, `${dir.path}/missing.txt`];
      for (let i = 0; i < 300; i++) {
        await Deno.writeTextFile(`${dir.path}/f${i}.txt`, `file ${i}\n`.repeat(i));
        paths.push(`${dir.path}/f${i}.txt`);
      }
      await Deno.symlink(`${dir.path}/f1.txt`, `${dir.path}/link.txt`);
      paths.push(`${dir.path}/link.txt`);
      const pool = world.pool();
      try {
        const backend = await pool.openSftp({ host: "box" });
        backend.tarMinFiles = 1;
        const before = backend.stats.requests;
        const got = new Map<string, string>();
        for await (const r of backend.readFiles(paths)) {
          assert(!got.has(r.path), `${r.path} came twice`);
          got.set(
            r.path,
            r.data ? new TextDecoder().decode(r.data) : `error:${(r.error as AnchorError).code}`,
          );
        }
        assertEquals(got.size, paths.length);
        assertEquals(got.get(long), "long name\n");
        assertEquals(got.get(`${dir.path}/missing.txt`), "error:NOT_FOUND");
        assertEquals(got.get(`${dir.path}/f299.txt`), "file 299\n".repeat(299));
        assertEquals(got.get(`${dir.path}/link.txt`), "file 1\n");
        // One helper start, one tar request, and one SFTP read for the missing file (its error).
        const used = backend.stats.requests - before;
        assert(used <= 4, `expected a few requests, used ${used}`);
      } finally {
        await pool.close();
      }
    },
  ),
);

Deno.test(
  needs(
    "an SFTP-only account (no exec) falls back to SFTP for listings and bulk reads",
    async () => {
      await using world = await createSshWorld({
        config: (port) => `Host box\n  HostName 127.0.0.1\n  Port ${port}\n`,
      });
      await using sftpOnly = await startSshd({
        authorizedKeys: [world.publicKey],
        extraConfig: ["ForceCommand internal-sftp"],
      });
      await world.writeConfig(`Host box\n  HostName 127.0.0.1\n  Port ${sftpOnly.port}\n`);
      await using dir = await tempDir();
      const paths: string[] = [];
      for (let i = 0; i < 40; i++) {
        await Deno.mkdir(`${dir.path}/d${i % 4}`, { recursive: true });
        await Deno.writeTextFile(`${dir.path}/d${i % 4}/f${i}.txt`, `content ${i}\n`);
        paths.push(`${dir.path}/d${i % 4}/f${i}.txt`);
      }
      const pool = world.pool({ timeoutSeconds: 2 });
      try {
        const backend = await pool.openSftp({ host: "box" });
        const before = backend.stats.requests;
        const tree = await backend.listTree(dir.path, undefined);
        // One readdir per folder (root + 4) after the helper turned out to be unavailable.
        assert(backend.stats.requests - before >= 5, `used ${backend.stats.requests - before}`);
        assertEquals(tree.filter((e) => e.type === "file").length, 40);
        assertEquals(tree.filter((e) => e.type === "dir").length, 4);
        let n = 0;
        for await (const r of backend.readFiles(paths)) {
          assertEquals(
            new TextDecoder().decode(r.data!),
            `content ${r.path.match(/f(\d+)\.txt$/)![1]}\n`,
          );
          n++;
        }
        assertEquals(n, 40);
      } finally {
        await pool.close();
      }
    },
  ),
);

Deno.test(
  needs(
    "SFTP write locks: a crashed holder's lock is broken, a live one times out; old temps go",
    async () => {
      await using world = await createSshWorld({
        config: (port) => `Host box\n  HostName 127.0.0.1\n  Port ${port}\n`,
      });
      await using dir = await tempDir();
      const pool = world.pool();
      try {
        const backend = await pool.openSftp({ host: "box" });
        const path = `${dir.path}/locked.txt`;
        // A lock folder nobody refreshes (its holder was killed): broken after staleMs.
        const { lock } = await backend.locks.lockPathOf(path);
        await Deno.mkdir(lock, { recursive: true });
        backend.locks.staleMs = 300;
        assertEquals(await backend.withWriteLock(path, () => Promise.resolve("taken")), "taken");
        assertEquals(await Deno.stat(lock).then(() => true, () => false), false);
        // A holder that keeps its lock: the waiter gives up with LOCK_TIMEOUT.
        backend.locks.waitMs = 400;
        let release!: () => void;
        const gate = new Promise<void>((resolve) => (release = resolve));
        let entered!: () => void;
        const inside = new Promise<void>((resolve) => (entered = resolve));
        const held = backend.withWriteLock(path, () => {
          entered();
          return gate;
        });
        await inside;
        backend.locks.staleMs = 60_000;
        let code = "";
        try {
          // The same backend again (one connection per host): the remote lock folder decides.
          await backend.withWriteLock(path, () => Promise.resolve());
        } catch (e) {
          code = (e as AnchorError).code;
        }
        release();
        await held;
        assertEquals(code, "LOCK_TIMEOUT");
        // Temp files: an hour-old one is removed by the next write in the folder, a recent one kept.
        const old = `${dir.path}/.a.txt.anchorfs-1-1-1.tmp`;
        const recent = `${dir.path}/.b.txt.anchorfs-1-1-2.tmp`;
        await Deno.writeTextFile(old, "partial");
        await Deno.writeTextFile(recent, "in flight");
        const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
        await Deno.utime(old, twoHoursAgo, twoHoursAgo);
        await backend.writeFileAtomic(`${dir.path}/z.txt`, new TextEncoder().encode("z\n"));
        const names = [...Deno.readDirSync(dir.path)].map((e) => e.name).sort();
        assertEquals(names, [".b.txt.anchorfs-1-1-2.tmp", "z.txt"]);
      } finally {
        await pool.close();
      }
    },
  ),
);

Deno.test(
  needs(
    "bulk reads over ssh skip a huge file remotely, stream with a slow consumer, and survive an early stop",
    async () => {
      await using world = await createSshWorld({
        config: (port) => `Host box\n  HostName 127.0.0.1\n  Port ${port}\n`,
      });
      await using dir = await tempDir();
      // A 4 GiB sparse file: the remote size filter keeps it out of the tar stream (reading it
      // whole would take minutes and gigabytes); it comes back refused or as a head, unread.
      const huge = `${dir.path}/huge.log`;
      const file = await Deno.open(huge, { write: true, create: true });
      await file.truncate(4 * 1024 ** 3);
      file.close();
      const paths = [huge];
      const chunk = "y".repeat(1023) + "\n";
      // 24 files of 512 KiB: 12 MiB, more than the read-ahead, so the stream has to pause.
      for (let i = 0; i < 24; i++) {
        await Deno.writeTextFile(`${dir.path}/m${i}.txt`, `${i}\n` + chunk.repeat(512));
        paths.push(`${dir.path}/m${i}.txt`);
      }
      const pool = world.pool();
      try {
        const backend = await pool.openSftp({ host: "box" });
        backend.tarMinFiles = 1;
        const limit = 16 * 1024 * 1024;
        const before = backend.stats.requests;
        const got = new Map<string, string>();
        for await (const r of backend.readFiles(paths, { skipLargerThan: limit })) {
          assert(!got.has(r.path), `${r.path} came twice`);
          got.set(
            r.path,
            r.data
              ? new TextDecoder().decode(r.data.subarray(0, 3))
              : `error:${(r.error as AnchorError).code}`,
          );
          await new Promise((resolve) => setTimeout(resolve, 5)); // a consumer slower than the wire
        }
        assertEquals(got.size, paths.length);
        assertEquals(got.get(huge), "error:FILE_TOO_LARGE");
        // One helper start, one tar request, one SFTP stat for the huge file: the 24 files came in
        // the stream, not one by one.
        const used = backend.stats.requests - before;
        assert(used <= 4, `expected a few requests, used ${used}`);
        assertEquals(got.get(`${dir.path}/m23.txt`), "23\n");

        const heads = new Map<string, number>();
        for await (const r of backend.readFiles(paths.slice(0, 3), { headBytes: 4096 })) {
          heads.set(r.path, r.size ?? -1);
          assertEquals(r.data?.length, 4096);
        }
        assertEquals(heads.get(huge), 4 * 1024 ** 3);

        // A consumer that stops after two files; the next bulk read still gets the right bytes.
        let taken = 0;
        for await (const _ of backend.readFiles(paths.slice(1))) if (++taken === 2) break;
        const again = new Map<string, string>();
        for await (const r of backend.readFiles(paths.slice(1, 20))) {
          again.set(r.path, r.data ? new TextDecoder().decode(r.data.subarray(0, 3)) : "error");
        }
        assertEquals(again.size, 19);
        assertEquals(again.get(`${dir.path}/m18.txt`), "18\n");
      } finally {
        await pool.close();
      }
    },
  ),
);

const testProc = needing("sshd", "proc");

Deno.test(testProc(
  "a remote file stating 0 bytes (/proc) is read only to maxBytes + 1 over SFTP",
  async () => {
    await using world = await createSshWorld({
      config: (port) => `Host box\n  HostName 127.0.0.1\n  Port ${port}\n`,
    });
    const pool = world.pool();
    try {
      const backend = await pool.openSftp({ host: "box" });
      // The sftp-server's own memory map: stat says 0 bytes, it holds kilobytes.
      assertEquals((await backend.stat("/proc/self/maps"))?.size, 0);
      assertEquals((await backend.readFile("/proc/self/maps", { maxBytes: 100 })).length, 101);
      const whole = await backend.readFile("/proc/self/maps", { maxBytes: 10_000_000 });
      assert(whole.length > 1000 && whole.length < 10_000_000, `${whole.length} bytes`);
    } finally {
      await pool.close();
    }
  },
));

Deno.test(
  needs(
    "the case probe asks the host: a Linux host's disk does not fold, and says so once",
    async () => {
      await using world = await createSshWorld({
        config: (port) => `Host box\n  HostName 127.0.0.1\n  Port ${port}\n`,
      });
      await using dir = await tempDir();
      await Deno.mkdir(`${dir.path}/Src`);
      await Deno.writeTextFile(`${dir.path}/Src/Main.ts`, "x\n");
      const pool = world.pool();
      try {
        const backend = await pool.openSftp({ host: "box" });
        await backend.learnCase(`${dir.path}/Src/Main.ts`);
        assert(!backend.paths.foldsIn(`${dir.path}/Src`));
        assert(!backend.paths.foldsIn(dir.path));
        const key = backend.paths.key(`${dir.path}/Src/Main.ts`);
        assert(key !== backend.paths.key(`${dir.path}/src/main.ts`));
        // Probed once per directory: asking again costs no request.
        const before = backend.stats.requests;
        await backend.learnCase(`${dir.path}/Src/Main.ts`);
        await backend.learnCase(`${dir.path}/Src`);
        assertEquals(backend.stats.requests - before, 0);
      } finally {
        await pool.close();
      }
    },
  ),
);

Deno.test(
  needs("a walk over ssh reads the repository's core.ignorecase through the host", async () => {
    await using world = await createSshWorld({
      config: (port) => `Host box\n  HostName 127.0.0.1\n  Port ${port}\n`,
    });
    await using dir = await tempDir();
    const files: Record<string, string> = {
      ".git/HEAD": "ref: refs/heads/main\n",
      ".git/config": "[core]\n\tignorecase = true\n",
      ".gitignore": "*.log\n",
      "App.LOG": "x\n",
      "main.ts": "x\n",
    };
    for (const [rel, text] of Object.entries(files)) {
      await Deno.mkdir(`${dir.path}/${rel}`.replace(/\/[^/]*$/, ""), { recursive: true });
      await Deno.writeTextFile(`${dir.path}/${rel}`, text);
    }
    const pool = world.pool();
    try {
      const backend = await pool.openSftp({ host: "box" });
      const rels: string[] = [];
      const options = { includeHidden: false };
      for await (const item of walkFiles(backend, dir.path, options, newWalkStats())) {
        rels.push(item.rel);
      }
      assertEquals(rels, ["main.ts"]);
    } finally {
      await pool.close();
    }
  }),
);
