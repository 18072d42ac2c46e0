// The local backend's file-system errors, provoked on real disk: each becomes the AnchorError
// whose fault and hint fit (the caller's INVALID_PATH, the environment's READ_ONLY, SYMLINK_LOOP),
// never a bare 'retry once'.

import { assertEquals, assertRejects, assertStringIncludes } from "../_assert.ts";
import { tempDir } from "../_harness.ts";
import { AnchorError, formatError } from "../../lib/core/errors.ts";
import { LocalBackend } from "../../lib/backends/local/local_backend.ts";
import { mapFsError } from "../../lib/backends/fs_errors.ts";
import { needing } from "../_requires.ts";

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
    assertStringIncludes(formatError(e), "Use a shorter path");
  }
});

Deno.test("a read-only file system is READ_ONLY (the environment's), with no 'retry'", () => {
  const e = mapFsError(Object.assign(new Error("read-only"), { code: "EROFS" }), "write", "/m/a");
  assertEquals([e.code, e.fault], ["READ_ONLY", "environment"]);
  assertStringIncludes(e.message, 'Cannot write "/m/a": its file system is mounted read-only');
  assertStringIncludes(e.hint!, "retrying cannot help");
});

/** The error a real read of `path` through the local backend fails with. */
async function readError(path: string): Promise<AnchorError> {
  const e = await assertRejects(() => new LocalBackend().readFile(path));
  assertEquals(e instanceof AnchorError, true, String(e));
  return e as AnchorError;
}

Deno.test("a NUL byte in a path is the caller's INVALID_PATH, not 'the arguments look fine'", async () => {
  await using dir = await tempDir();
  const error = await readError(`${dir.path}/a.txt\0b`);
  assertEquals([error.code, error.fault], ["INVALID_PATH", "caller"]);
  assertStringIncludes(error.message, "contains a NUL byte");
  const text = formatError(error);
  assertStringIncludes(text, 'view {"path":"."}');
  assertEquals(text.includes("\0"), false, "the NUL itself must not reach the model's text");
  assertEquals(text.includes("look fine"), false);
});

Deno.test("an over-long path is INVALID_PATH, quoted cut short in the message", async () => {
  await using dir = await tempDir();
  const error = await readError(`${dir.path}/${"x".repeat(100_000)}`);
  assertEquals([error.code, error.fault], ["INVALID_PATH", "caller"]);
  assertStringIncludes(error.message, "longer than the file system allows");
  // The path was echoed whole, twice (about 200 KB into the model's context).
  assertEquals(formatError(error).length < 1000, true, `${formatError(error).length} characters`);
});

Deno.test(
  needing("posix-fs")("a symlink loop is SYMLINK_LOOP, saying retrying cannot help", async () => {
    await using dir = await tempDir();
    await Deno.symlink(`${dir.path}/b`, `${dir.path}/a`);
    await Deno.symlink(`${dir.path}/a`, `${dir.path}/b`);
    const error = await readError(`${dir.path}/a`);
    assertEquals(error.code, "SYMLINK_LOOP");
    assertStringIncludes(error.message, "symlink loop");
    assertStringIncludes(error.message, "retrying cannot help");
    assertStringIncludes(formatError(error), `shell {"command":"readlink ${dir.path}/a"}`);
  }),
);
