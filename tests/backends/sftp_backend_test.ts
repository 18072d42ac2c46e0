import { AnchorError } from "../../lib/core/errors.ts";
import { createSshWorld } from "../ssh/_sshd.ts";
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
