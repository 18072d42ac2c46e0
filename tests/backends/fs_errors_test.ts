import { assertEquals, assertRejects, assertStringIncludes } from "../_assert.ts";
import { tempDir } from "../_harness.ts";
import { AnchorError } from "../../lib/core/errors.ts";
import { LocalBackend } from "../../lib/backends/local/local_backend.ts";
import { mapFsError } from "../../lib/backends/fs_errors.ts";

Deno.test("creating a directory where a file is gives the caller's error, not 'retry once'", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/a.txt`, "x\n");
  const backend = new LocalBackend();
  const e = await assertRejects(() => backend.mkdirp(`${dir.path}/a.txt`));
  assertEquals(e instanceof AnchorError, true);
  const error = e as AnchorError;
  assertEquals(error.code, "ALREADY_EXISTS");
  assertEquals(error.fault, "caller");
  assertStringIncludes(error.message, "a file where a directory is needed");
  assertStringIncludes(error.hint!, `view {"path":"${dir.path}/a.txt"}`);
});

Deno.test("a name longer than the file system allows is the caller's INVALID_PATH, not 'retry once'", async () => {
  await using dir = await tempDir();
  const backend = new LocalBackend();
  const path = `${dir.path}/${"n".repeat(300)}.txt`;
  for (
    const attempt of [
      () => backend.stat(path),
      () => backend.writeFileAtomic(path, new Uint8Array(1)),
    ]
  ) {
    const e = await assertRejects(attempt) as AnchorError;
    assertEquals([e.code, e.fault], ["INVALID_PATH", "caller"]);
    assertStringIncludes(e.message, "longer than the file system allows");
    assertEquals(e.hint, "Use a shorter file name.");
  }
});

Deno.test("a read-only file system is READ_ONLY (the environment's), with no 'retry'", () => {
  const e = mapFsError(Object.assign(new Error("read-only"), { code: "EROFS" }), "write", "/m/a");
  assertEquals([e.code, e.fault], ["READ_ONLY", "environment"]);
  assertStringIncludes(e.message, 'Cannot write "/m/a": its file system is mounted read-only');
  assertStringIncludes(e.hint!, "retrying cannot help");
});
