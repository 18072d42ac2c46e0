import { AnchorError } from "../../lib/core/errors.ts";
import { createSshWorld, startSshd } from "../ssh/_sshd.ts";
import { assert, assertEquals } from "../_assert.ts";
import { tempDir } from "../_harness.ts";
import { backendContract } from "./contract.ts";

Deno.test("the SFTP backend meets the FileBackend contract against a real sshd", async (t) => {
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
});

Deno.test("bulk reads through the remote tar helper handle long names, missing files and many files", async () => {
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
});

Deno.test("an SFTP-only account (no exec) falls back to SFTP for listings and bulk reads", async () => {
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
});
