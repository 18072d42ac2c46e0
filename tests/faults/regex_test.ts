// One call cannot freeze the server: a catastrophic regex answers under a plain `deno run` (no
// V8 flags), `ping` is answered while a long search runs, a cancelled search stops working, a
// deadline returns a partial result that says so, and FIFOs / huge sparse files in a searched
// tree are skipped without being opened or read.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { startServer, tempDir, type TestServer, writeTree } from "../_harness.ts";
import { needing } from "../_requires.ts";
import { longLine, SLOW_REGEX } from "../_long_line.ts";

const needs = needing("proc");
const needsPosixFs = needing("posix-fs");

/** A hung call fails the test instead of hanging the suite. */
const GUARD = { timeout: 60_000 };

/** A tool call through the v1 client (its options come after a result schema). */
async function callV1(
  server: TestServer,
  args: Record<string, unknown>,
  options: Record<string, unknown> = GUARD,
): Promise<{ text: string; isError: boolean }> {
  const raw = await server.client.callTool({ name: "view", arguments: args }, undefined, options);
  return { text: raw.content[0]?.text ?? "", isError: raw.isError === true };
}

Deno.test("a catastrophic regex on a 50,001-character line answers, and ping is answered meanwhile", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "long.txt": `${"a".repeat(50_000)}b\n`, "short.txt": "aaa\n" });
  // The v1 client speaks the 2025 era, which has ping.
  await using server = await startServer({ client: "v1", args: ["--path", dir.path] });
  const search = callV1(server, { path: ".", content: "^(a|aa)+$", regex: true });
  const ping = server.client.ping(GUARD);
  const [result] = await Promise.all([search, ping]);
  assertEquals(result.isError, false);
  assertStringIncludes(result.text, "1 matching line in 1 file");
  assertStringIncludes(result.text, "short.txt (line 1)");
  const ci = await callV1(server, { path: ".", content: "(?i)^(A|AA)+$", regex: true });
  assertStringIncludes(ci.text, "short.txt (line 1)");
});

Deno.test(needs("a backreference is refused with the construct named and a next call", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "a.txt": "abab\n" });
  await using server = await startServer({ client: "v2", args: ["--path", dir.path] });
  const result = await server.call("view", { path: ".", content: "(ab)\\1", regex: true }, GUARD);
  assert(result.isError);
  assertStringIncludes(result.text, "uses a backreference (\\1)");
  assertStringIncludes(result.text, 'view {"path":".","content":"ab"');
}));

/** CPU ticks (user + system) the process has used, from /proc. */
function cpuTicks(pid: number): number {
  const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1]!.split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

Deno.test("a long search keeps ping answered, and once cancelled it stops working", async () => {
  await using server = await startServer({ client: "v1", args: ["--path", "/usr"] });
  const controller = new AbortController();
  // Matches nothing and has no literal to prefilter on: every text file under /usr is decoded.
  const search = callV1(
    server,
    { path: "/usr", content: "(?i)z.q.x.j.v", regex: true, include_hidden: true },
    { signal: controller.signal, timeout: 600_000 },
  ).then(() => "finished", () => "aborted");
  await server.client.ping(GUARD);
  const listing = await callV1(server, { path: "/usr", max_depth: 1 });
  assertStringIncludes(listing.text, "directories not entered");
  controller.abort();
  assertEquals(await search, "aborted");
  // The server answers the next call, and is idle afterwards: the search no longer runs.
  await server.client.ping(GUARD);
  const before = cpuTicks(server.pid!);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const used = cpuTicks(server.pid!) - before; // 100 ticks a second while searching
  assert(used < 60, `the server used ${used} CPU ticks in 1.5 s after the cancel`);
});

Deno.test("a search past the deadline returns a partial result that says so", async () => {
  await using dir = await tempDir();
  const files: Record<string, string> = {};
  for (let i = 0; i < 1000; i++) files[`d${i % 20}/f${i}.txt`] = `line ${i}\nneedle ${i}\n`;
  await writeTree(dir.path, files);
  await using server = await startServer({
    client: "v2",
    args: ["--path", dir.path, "--deadline", "0.001"],
  });
  for (const regex of [false, true]) {
    const result = await server.call("view", { path: ".", content: "zzz-nowhere", regex }, GUARD);
    assertEquals(result.isError, false);
    // Partial first: "No matches" alone would read as the answer.
    assert(
      result.text.startsWith("Partial: the search reached the server's 0.001 s deadline "),
      result.text,
    );
    assert(
      / (?:and none of them matches|so whether .* is not known)/.test(result.text),
      result.text,
    );
    assertStringIncludes(
      result.text,
      "The call reached the server's 0.001 s deadline: the search stopped after",
    );
    assertStringIncludes(result.text, "so the results are partial. Narrow it");
  }
});

Deno.test(needsPosixFs(
  "a FIFO and a 3 GB sparse file in a searched tree are skipped, not opened or read",
  async () => {
    await using dir = await tempDir();
    await writeTree(dir.path, { "a.txt": "needle here\n" });
    const mkfifo = await new Deno.Command("mkfifo", { args: [`${dir.path}/pipe`] }).output();
    assert(mkfifo.success, "mkfifo");
    const sparse = await Deno.open(`${dir.path}/huge.log`, { write: true, create: true });
    await sparse.truncate(3 * 1024 ** 3);
    sparse.close();
    await using server = await startServer({ client: "v2", args: ["--path", dir.path] });
    for (const regex of [false, true]) {
      const result = await server.call("view", { path: ".", content: "needle", regex }, GUARD);
      assertStringIncludes(result.text, "1 matching line in 1 file");
      assertStringIncludes(result.text, "searched 2 files; 1 file over 16 MiB skipped");
      assertStringIncludes(result.text, 'Not searched, over the 16 MiB search limit: "huge.log"');
    }
    const single = await server.call("view", { path: "huge.log", content: "needle" }, GUARD);
    assertStringIncludes(single.text, 'Not searched, over the 16 MiB search limit: "huge.log"');
    const fifo = await server.call("view", { path: "pipe", content: "needle" }, GUARD);
    assert(fifo.isError);
    assertStringIncludes(fifo.text, "is a FIFO (named pipe), not a regular file");
  },
));

Deno.test("a search skips files over the server's --max-file-bytes, the same limit view uses", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, {
    "small.txt": "needle\n",
    "big.txt": `needle\n${"x".repeat(4000)}\n`,
  });
  await using server = await startServer({
    client: "v2",
    args: ["--path", dir.path, "--max-file-bytes", "2K"],
  });
  for (const regex of [false, true]) { // the parallel scanner, then the plain engine
    const result = await server.call("view", { path: ".", content: "needle", regex }, GUARD);
    assertStringIncludes(result.text, "1 matching line in 1 file");
    assertStringIncludes(result.text, "1 file over 2.0 KB skipped");
    assertStringIncludes(result.text, 'Not searched, over the 2.0 KB search limit: "big.txt"');
    assertStringIncludes(result.text, "--max-file-bytes");
  }
  const view = await server.call("view", { path: "big.txt" }, GUARD);
  assert(view.isError);
  assertStringIncludes(view.text, "--max-file-bytes");
});

/** `count` one-line files of 16 MiB - 1 where SLOW_REGEX takes seconds each. */
async function longLineFiles(dir: string, count: number): Promise<string[]> {
  const bytes = longLine(16 * 1024 * 1024 - 1);
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    names.push(`long${i}.txt`);
    await Deno.writeFile(`${dir}/long${i}.txt`, bytes);
  }
  return names;
}

for (const shape of ["file roots joined with |", "a directory"]) {
  Deno.test(`a regex search over ${shape} stops inside a file at the deadline and says so`, async () => {
    await using dir = await tempDir();
    const names = await longLineFiles(dir.path, 3);
    await using server = await startServer({
      client: "v1",
      args: ["--path", dir.path, "--deadline", "1"],
    });
    const path = shape === "a directory" ? "." : names.join("|");
    const search = callV1(server, { path, content: SLOW_REGEX, regex: true });
    // Served off the main thread: ping is answered while the workers match.
    await server.client.ping(GUARD);
    const result = await search;
    assertEquals(result.isError, false, result.text);
    assertStringIncludes(result.text, "The call reached the server's 1 s deadline");
    assertStringIncludes(result.text, "It stopped inside");
    assertStringIncludes(result.text, "(not searched to the end;");
  });
}
