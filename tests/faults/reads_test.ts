// Hostile files through the real server: FIFOs and devices are refused before any open that could
// block, a 3 GB sparse file in a listed directory costs a head read, and a file above
// --max-file-bytes gets an error with its size, the limit and the alternatives.

import { assert, assertEquals, assertMatch, assertStringIncludes } from "../_assert.ts";
import { REPO_ROOT, runCliProcess, startServer, tempDir, type TestServer } from "../_harness.ts";
import { needing } from "../_requires.ts";

const needs = needing("posix-fs");
const needsProc = needing("proc");

/** The server's peak resident memory (VmHWM) in MB. */
function peakMb(server: TestServer): number {
  const status = Deno.readTextFileSync(`/proc/${server.pid}/status`);
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)![1]) / 1024;
}

async function mkfifo(path: string): Promise<void> {
  const out = await new Deno.Command("mkfifo", { args: [path] }).output();
  assert(out.success, "mkfifo failed");
}

Deno.test(
  needs("a FIFO is refused by view, str_replace, delete and extract_lines, and stays", async () => {
    await using dir = await tempDir();
    await mkfifo(`${dir.path}/pipe`);
    await Deno.writeTextFile(`${dir.path}/a.txt`, "one\ntwo\n");
    await using server = await startServer({ client: "v2", args: ["--path", dir.path] });
    const calls: [string, Record<string, unknown>][] = [
      ["view", { path: "pipe" }],
      ["text_editor", { command: "str_replace", path: "pipe", old_text: "a", new_text: "b" }],
      ["text_editor", { command: "delete", path: "pipe" }],
      ["extract_lines", { from_path: "pipe", start: 1, to_path: "a.txt", position: -1 }],
      ["extract_lines", { from_path: "a.txt", start: 1, to_path: "pipe", position: -1 }],
    ];
    for (const [name, args] of calls) {
      const r = await server.call(name, args);
      assert(r.isError, `${name} ${JSON.stringify(args)} should fail: ${r.text}`);
      assertStringIncludes(r.text, "is a FIFO (named pipe), not a regular file");
      assertStringIncludes(r.text, "shell");
    }
    // Nothing was removed, and the server still answers.
    assert((await Deno.lstat(`${dir.path}/pipe`)).isFifo);
    const listing = await server.call("view", { path: "." });
    assertStringIncludes(listing.text, "a.txt");
  }),
);

Deno.test(needs("/dev/zero is refused as a device by view and extract_lines", async () => {
  await using dir = await tempDir();
  await using server = await startServer({ client: "v1", args: ["--path", dir.path] });
  const view = await server.call("view", { path: "/dev/zero" });
  assert(view.isError);
  assertStringIncludes(view.text, '"/dev/zero" is a character device, not a regular file');
  const extract = await server.call("extract_lines", {
    from_path: "/dev/zero",
    start: 1,
    end: 2,
    to_path: "out.txt",
    position: -1,
  });
  assert(extract.isError);
  assertStringIncludes(extract.text, "character device");
  assertEquals(await Deno.stat(`${dir.path}/out.txt`).catch(() => null), null);
}));

Deno.test(
  needsProc(
    "a 3 GB sparse file in a listed directory gets a binary row from its head",
    async () => {
      await using dir = await tempDir();
      await Deno.writeTextFile(`${dir.path}/small.txt`, "hello\n");
      const big = await Deno.open(`${dir.path}/disk.img`, { write: true, create: true });
      await big.truncate(3 * 1024 ** 3); // sparse: costs no disk
      big.close();
      await using server = await startServer({ client: "v2", args: ["--path", dir.path] });
      const r = await server.call("view", { path: "." });
      assert(!r.isError, r.text);
      assertStringIncludes(r.text, "disk.img\tbinary\t3.0 GB");
      assertStringIncludes(r.text, "small.txt\t1 line");
      const file = await server.call("view", { path: "disk.img" });
      assertStringIncludes(file.text, "is a binary file (contains NUL bytes, 3.0 GB)");
      // Generous bound, not timing: the whole file read would be over 3 GB.
      const peak = peakMb(server);
      assert(peak < 300, `server peak ${peak} MB`);
    },
  ),
);

Deno.test("a big text file is listed with an estimate and refused whole above --max-file-bytes", async () => {
  await using dir = await tempDir();
  // 600 KiB of 60-byte lines: more than the listing's head, more than the 64K limit given below.
  const line = "x".repeat(59) + "\n";
  await Deno.writeTextFile(`${dir.path}/big.log`, line.repeat(10_240));
  await Deno.writeTextFile(`${dir.path}/one_line.txt`, "y".repeat(100_000));
  await using server = await startServer({
    client: "v2",
    args: ["--path", dir.path, "--max-file-bytes", "64K"],
  });
  const listing = await server.call("view", { path: "." });
  assertMatch(listing.text, /big\.log\t~10,2\d\d lines \(estimated\)\t~153,600 tokens/);

  const view = await server.call("view", { path: "big.log" });
  assert(view.isError);
  assertStringIncludes(view.text, 'big.log" is 600.0 KB (614,400 bytes)');
  assertStringIncludes(view.text, "limited to 64.0 KB (65,536 bytes)");
  // Search it with the shell: a search (view with content) skips files over the same limit.
  assertStringIncludes(view.text, `grep -n -m 100 -e TEXT ${dir.path}/big.log`);
  assertStringIncludes(view.text, `sed -n '1,200p' ${dir.path}/big.log`);
  assertStringIncludes(view.text, "--max-file-bytes");

  const edit = await server.call("text_editor", {
    command: "str_replace",
    path: "one_line.txt",
    old_text: "yyyy",
    new_text: "z",
  });
  assert(edit.isError);
  assertStringIncludes(edit.text, "is 97.7 KB (100,000 bytes)");
  const del = await server.call("text_editor", { command: "delete", path: "big.log" });
  assert(del.isError);
  assertStringIncludes(del.text, "rm -- big.log");
  assert((await Deno.stat(`${dir.path}/big.log`)).isFile);
});

Deno.test("an edit of a file with one long line shows the line cut, with a whole-line id", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/min.js`, `${"a".repeat(50_000)}MARK\n`);
  await using server = await startServer({ client: "v1", args: ["--path", dir.path] });
  const r = await server.call("text_editor", {
    command: "str_replace",
    path: "min.js",
    old_text: "MARK",
    new_text: "b",
  });
  assert(!r.isError, r.text);
  // Cut to a window around the change: the new text shows although it is 50,000 characters in.
  assertStringIncludes(r.text, "[line cut: 50,001 characters; shown 49,602-50,001]");
  assertStringIncludes(r.text, "ab [line cut");
  assert(r.text.length < 2_000, `result is ${r.text.length} characters`);
});

Deno.test("--max-file-bytes refuses a value that is not a byte count", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "main.ts", "mcp", "--max-file-bytes", "lots"],
    cwd: REPO_ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(out.code, 2); // a bad argument, like every other of anchorfs mcp
  assertStringIncludes(new TextDecoder().decode(out.stderr), "--max-file-bytes takes a positive");
});

Deno.test("the CLI takes --max-file-bytes before the command", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/big.txt`, "line\n".repeat(1000));
  const refused = await runCliProcess(["--max-file-bytes", "1K", "view", "big.txt"], {
    cwd: dir.path,
  });
  assertEquals(refused.code === 0, false);
  assertStringIncludes(refused.stderr, "limited to 1.0 KB (1,024 bytes)");
  const shown = await runCliProcess(["--max-file-bytes=64K", "view", "big.txt", "--end", "1"], {
    cwd: dir.path,
  });
  assertEquals(shown.code, 0, shown.stderr);
  assertStringIncludes(shown.stdout, "|line");
});
