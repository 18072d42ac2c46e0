// The outline's worker through the real server: the main thread answers while a large file is
// parsed, a parse past the parser's deadline is answered with the search to use instead, and the
// memory every grammar took is returned once the worker has been idle.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { REPO_ROOT, startServer, tempDir, writeTree } from "../_harness.ts";
import { needing } from "../_requires.ts";

const needs = needing("proc");

const SAMPLE = await Deno.readTextFile(`${REPO_ROOT}/tests/fixtures/outline/sample.ts`);

Deno.test("a ping is answered while the worker parses a file of almost 1 MB", async () => {
  await using dir = await tempDir();
  // Just under the outline's 1 MiB cap: about a second of parsing here.
  const big = SAMPLE.repeat(Math.floor((1024 * 1024 - 1) / SAMPLE.length));
  await writeTree(dir.path, { "big.ts": big });
  await using server = await startServer({ client: "v1", args: ["--path", dir.path] });
  const order: string[] = [];
  const outline = server.call("view", { path: "big.ts", outline: true }).then((r) => {
    order.push("outline");
    return r;
  });
  // Sent after the outline call: answered first, as the parse runs on the worker.
  await new Promise((r) => setTimeout(r, 50));
  await server.client.ping();
  order.push("ping");
  const result = await outline;
  assertEquals(result.isError, false, result.text);
  assertStringIncludes(result.text, "big.ts: TypeScript, ");
  assertEquals(order, ["ping", "outline"]);
});

Deno.test("an outline past the parser's deadline says the parse was stopped and names the search", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "jobs.ts": SAMPLE, "b.py": "def f():\n    pass\n" });
  await using server = await startServer({
    client: "v1",
    args: ["--path", dir.path],
    // 1 ms: starting the worker alone takes longer, so every parse runs past it.
    env: { ANCHORFS_OUTLINE_DEADLINE_MS: "1" },
  });
  const result = await server.call("view", { path: "jobs.ts", outline: true });
  assertEquals(result.isError, true, result.text);
  assertStringIncludes(
    result.text,
    "Parsing jobs.ts for its outline took longer than 1 ms; the parse was stopped (the file " +
      "itself is unchanged).\n\nNext: Repeating the call would stop the same way. Find its " +
      'definitions with a search: view {"path":"jobs.ts","content":',
  );
  assertStringIncludes(
    result.text,
    ', or read a range: view {"path":"jobs.ts","start":1,"end":200}.',
  );
  // A directory's map lists such a file as not mapped, and maps the rest.
  const map = await server.call("view", { path: ".", outline: true });
  assertStringIncludes(
    map.text,
    "jobs.ts: took over 1 ms to parse, not mapped (search it instead)",
  );
  // The server goes on: a plain view still answers.
  const view = await server.call("view", { path: "b.py" });
  assertEquals(view.isError, false, view.text);
});

/**
 * The server's anonymous resident memory in MiB, from /proc (RssAnon: the deno binary's own
 * pages, which stay mapped once touched, are left out).
 */
async function usage(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Math.round(Number(/^RssAnon:\s+(\d+)/m.exec(status)![1]) / 1024);
}

Deno.test(needs(
  "the memory every grammar took is returned once the outline worker is idle",
  async () => {
    await using dir = await tempDir();
    const samples: Record<string, string> = {};
    for await (const entry of Deno.readDir(`${REPO_ROOT}/tests/fixtures/outline`)) {
      samples[entry.name] = await Deno.readTextFile(
        `${REPO_ROOT}/tests/fixtures/outline/${entry.name}`,
      );
    }
    await writeTree(dir.path, samples);
    await using server = await startServer({
      client: "v2",
      args: ["--path", dir.path],
      env: { ANCHORFS_OUTLINE_IDLE_MS: "500" },
    });
    const pid = server.pid!;
    // The first outline loads the main side's outline code too: measured after its worker went.
    await server.call("view", { path: "sample.css", outline: true });
    const before = await idle(pid);
    let peak = before;
    for (const name of Object.keys(samples).sort()) {
      const result = await server.call("view", { path: name, outline: true });
      assertEquals(result.isError, false, result.text);
      peak = Math.max(peak, await usage(pid));
    }
    // Six grammars resident at a time (then a fresh worker): over a hundred MiB in the worker.
    assert(peak - before > 100, `RSS ${before} → ${peak} MiB`);
    // Back within 60 MiB (main's server stayed 140 MiB up): Deno keeps some of an ended worker's
    // JS heap (denoland/deno#26058), the wasm memory goes. Under load the teardown can take
    // seconds: asked again until back, 30 s at most.
    let after = await idle(pid);
    for (let i = 0; i < 60 && after - before >= 60; i++) {
      await new Promise((r) => setTimeout(r, 500));
      after = await usage(pid);
    }
    assert(
      after - before < 60,
      `RSS ${before} → ${peak} → ${after} MiB: the worker's memory stayed`,
    );
  },
));

/**
 * The usage once the outline worker has ended (500 ms idle) and its thread's allocator pages were
 * trimmed (1 and 3 s after it ended: tree_sitter_parser.ts). A wait, not a measurement of speed.
 */
async function idle(pid: number): Promise<number> {
  await new Promise((r) => setTimeout(r, 500 + 4_000));
  return await usage(pid);
}
