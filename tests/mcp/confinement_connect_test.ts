// Under --allow, an ssh:// path on a host no allowed directory is on is refused before any
// connection: no DNS lookup, no TCP connect, no SSH key offered to a host the user never named.

import { assertEquals, assertNotIncludes, assertStringIncludes } from "../_assert.ts";
import { startServer, tempDir } from "../_harness.ts";

Deno.test("--allow refuses an ssh:// path on another host without connecting to it", async () => {
  await using dir = await tempDir();
  // A listener that counts connections: the refused paths below name it.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  let connections = 0;
  const accepting = (async () => {
    for await (const conn of listener) {
      connections++;
      conn.close();
    }
  })();
  try {
    await using server = await startServer({
      client: "v2",
      args: ["--path", dir.path, "--allow", dir.path, "--no-shell"],
    });
    for (
      const args of [
        { path: `ssh://127.0.0.1:${port}/etc/passwd` },
        { path: `${dir.path}|ssh://127.0.0.1:${port}/etc`, content: "root" },
      ]
    ) {
      const r = await server.call("view", args);
      assertEquals(r.isError, true, r.text);
      assertStringIncludes(r.text, `is on "ssh://127.0.0.1:${port}", where this server may use no`);
      assertStringIncludes(r.text, "no connection was made");
      assertNotIncludes(r.text, "Cannot connect");
    }
    const created = await server.call("text_editor", {
      command: "create",
      path: `ssh://127.0.0.1:${port}/tmp/x.txt`,
      file_text: "x\n",
    });
    assertEquals(created.isError, true, created.text);
    assertStringIncludes(created.text, "no connection was made");
    const moved = await server.call("workdir", {
      action: "set",
      path: `ssh://127.0.0.1:${port}/tmp`,
    });
    assertEquals(moved.isError, true, moved.text);
    assertEquals(connections, 0);
  } finally {
    listener.close();
    await accepting.catch(() => {});
  }
});
