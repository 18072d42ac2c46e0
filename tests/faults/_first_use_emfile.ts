// The scenario of first_use_emfile_test.ts, run by it on main.ts and by tests/scripts/bundle_test.ts
// on the bundle (whose chunks Deno reads only when a first call needs them): a first call made with
// no file descriptor free answers an EMFILE error naming the module it could not load and what to
// do, the server stays up, and once descriptors are back the same calls load their modules and
// answer as usual.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { startServer, tempDir, writeTree } from "../_harness.ts";

/** Runs the scenario against the server at `main` (main.ts when undefined). */
export async function firstUsesUnderEmfile(main?: string): Promise<void> {
  await using dir = await tempDir();
  await writeTree(dir.path, {
    "a.txt": "alpha\n",
    "b.txt": "beta\n",
    "c.ts": "export function gauge() {}\n",
  });
  await using server = await startServer({
    client: "v2",
    args: ["--path", dir.path],
    ...(main !== undefined && { main }),
  });
  // A file view loads none of these modules.
  assertEquals((await server.call("view", { path: "a.txt" })).isError, false);
  const calls = [
    { module: "listing", tool: "view", args: { path: "." }, answer: "b.txt\t1 line" },
    {
      module: "search",
      tool: "view",
      args: { path: ".", content: "beta" },
      answer: "b.txt (line 1)",
    },
    { module: "glob pattern", tool: "view", args: { path: ".", pattern: "b*" }, answer: "b.txt" },
    { module: "outline", tool: "view", args: { path: "c.ts", outline: true }, answer: "gauge" },
    {
      module: "edit",
      tool: "text_editor",
      args: { command: "str_replace", path: "a.txt", old_text: "alpha", new_text: "gamma" },
      answer: "gamma",
    },
  ];
  const limit = (soft: number) =>
    new Deno.Command("prlimit", { args: [`--pid=${server.pid!}`, `--nofile=${soft}:4096`] })
      .output();
  // A soft limit of 3: no descriptor free above stdio (see environment_test.ts).
  assert((await limit(3)).success);
  try {
    for (const c of calls) {
      const out = await server.call(c.tool, c.args);
      assert(out.isError, `${c.module}: ${out.text}`);
      assertStringIncludes(out.text, `anchorfs could not load its ${c.module} module: this`);
      assertStringIncludes(out.text, "reached its limit of open files (EMFILE");
      assertStringIncludes(out.text, "retry the same call in a moment");
      assertStringIncludes(out.text, "ulimit -n 4096");
    }
    // Still serving while the pressure lasts.
    assert((await server.client.listTools()).tools.length > 0);
  } finally {
    await limit(4096);
  }
  for (const c of calls) {
    const out = await server.call(c.tool, c.args);
    assertEquals(out.isError, false, `${c.module}: ${out.text}`);
    assertStringIncludes(out.text, c.answer);
  }
  assertEquals(await Deno.readTextFile(`${dir.path}/a.txt`), "gamma\n");
}
