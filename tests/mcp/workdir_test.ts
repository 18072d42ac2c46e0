// workdir through the real server (v1 and v2 clients): a path with no action changes the directory.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { CLIENT_KINDS, startServer, tempDir } from "../_harness.ts";

for (const kind of CLIENT_KINDS) {
  Deno.test(`workdir (${kind} client): get, set, reset and a missing directory`, async () => {
    await using dir = await tempDir();
    await Deno.mkdir(`${dir.path}/sub/inner`, { recursive: true });
    await using server = await startServer({ client: kind, args: ["--path", dir.path] });

    const got = await server.call("workdir", { action: "get" });
    assertEquals(got.isError, false);
    assertEquals(got.text, `Working directory: ${dir.path}`);

    const set = await server.call("workdir", { action: "set", path: "sub" });
    assertStringIncludes(set.text, `Working directory set to ${dir.path}/sub`);
    assertStringIncludes((await server.call("workdir", {})).text, `${dir.path}/sub`);

    const missing = await server.call("workdir", { action: "set", path: "nope/deeper" });
    assert(missing.isError);
    assertStringIncludes(missing.text, `No directory at "${dir.path}/sub/nope/deeper"`);
    assertStringIncludes(missing.text, `nearest existing parent is "${dir.path}/sub"`);

    const reset = await server.call("workdir", { action: "reset" });
    assertEquals(reset.text, `Working directory reset to ${dir.path}`);
  });
}

Deno.test("workdir with a path and no action changes the directory (a path is never ignored)", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/sub`);
  await using server = await startServer({ client: "v1", args: ["--path", dir.path] });
  const set = await server.call("workdir", { path: "sub" });
  assertEquals(set.isError, false);
  assertStringIncludes(set.text, `Working directory set to ${dir.path}/sub`);
  assertEquals((await server.call("workdir", {})).text, `Working directory: ${dir.path}/sub`);
});
