// A search that must start the scanner's workers while the process has no file descriptor free,
// through the real server: starting a worker then made Deno 2.9.6 panic in the worker's thread
// (runtime/tokio_util.rs) and end the whole server. Now the search answers (on the main thread,
// its unreadable files named), the server stays up, and once descriptors are back the next
// search starts its workers and answers as usual.

import { assert, assertStringIncludes } from "../_assert.ts";
import { startServer, tempDir, writeTree } from "../_harness.ts";
import { needing } from "../_requires.ts";

const needsProc = needing("proc");

Deno.test(needsProc(
  "a search that starts its workers under EMFILE answers and the server stays up",
  async () => {
    await using dir = await tempDir();
    await writeTree(dir.path, { "a.txt": "alpha\n", "b.txt": "beta\n" });
    await using server = await startServer({ client: "v2", args: ["--path", dir.path] });
    // The search module loads, its workers start; they stop after 5 s without work.
    const first = await server.call("view", { path: ".", content: "beta" });
    assertStringIncludes(first.text, "b.txt (line 1)");
    await new Promise((r) => setTimeout(r, 6_500));
    const limit = (soft: number) =>
      new Deno.Command("prlimit", { args: [`--pid=${server.pid!}`, `--nofile=${soft}:4096`] })
        .output();
    // Room for the walk's one directory, none for a worker's runtime (its epoll and eventfds).
    const open = [...Deno.readDirSync(`/proc/${server.pid!}/fd`)].length;
    assert((await limit(open + 1)).success);
    try {
      const out = await server.call("view", { path: ".", content: "beta" });
      assertStringIncludes(out.text, "b.txt (line 1)");
      // Still serving while the pressure lasts.
      assert((await server.client.listTools()).tools.length > 0);
    } finally {
      await limit(4096);
    }
    const after = await server.call("view", { path: ".", content: "beta" });
    assertStringIncludes(after.text, "b.txt (line 1)");
  },
));
