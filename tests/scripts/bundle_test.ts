// The bundle (scripts/release/bundle.ts, real `deno bundle`): entry + core file load and search
// exactly like main.ts, ssh2 included, and outline from the wasm files it carries; the modules
// only some calls need are chunks of their own, run on first use.

import { assertEquals, assertStringIncludes } from "../_assert.ts";
import { runCliProcess, tempDir, writeTree } from "../_harness.ts";
import { bundle, CORE_FILE, MODULES_DIR, PROLOGUE } from "../../scripts/release/bundle.ts";
import {
  OUTLINE_WORKER_FILE,
  WASM_SUBDIR,
  wasmFiles,
} from "../../lib/backends/tree_sitter/wasm_files.ts";
import { RE2_MODULE_FILE } from "../../lib/backends/local/re2_module.ts";
import { EXIT } from "../../lib/cli/output.ts";
import { LAZY_MODULES, lazyPlaces, reachableFiles, startFiles } from "./_bundle_graph.ts";
import { firstUsesUnderEmfile } from "../faults/_first_use_emfile.ts";
import { needing } from "../_requires.ts";

async function runBundle(file: string, args: string[], cwd: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", file, ...args],
    cwd,
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("the bundle (entry + core file) loads (ssh2 included) and searches exactly like main.ts", async () => {
  await using dir = await tempDir();
  const files: Record<string, string | Uint8Array> = {
    // Latin-1 bytes: "café" is 63 61 66 E9.
    "latin1.txt": new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]),
  };
  // More files than one scanner batch, so the search goes through the worker threads.
  for (let i = 0; i < 700; i++) {
    files[`d/f${String(i).padStart(3, "0")}.txt`] = i % 50 === 0 ? `the needle ${i}\n` : `x ${i}\n`;
  }
  await writeTree(dir.path, files);
  await using out = await tempDir();
  const file = `${out.path}/anchorfs.js`;
  await bundle(file);
  // The entry opens stdin before anything heavy loads: no node module, no SDK in it.
  const entry = await Deno.readTextFile(file);
  assertStringIncludes(entry, `import("./${CORE_FILE}")`);
  for (const heavy of ['from "node:', "@modelcontextprotocol", "ssh2"]) {
    assertEquals(entry.includes(heavy), false, `${heavy} in the entry`);
  }
  const version = await runBundle(file, ["--version"], dir.path);
  assertEquals(version.code, 0, version.stderr);
  assertStringIncludes(version.stdout, "anchorfs ");
  // Regexes too: the workers run their prefilter (re2js for `ne+dle` is loaded inside the worker
  // where it can be; without it the literal decides), and the answer must not change.
  const searches = [["needle"], ["café"], ["ne+dle \\d+", "--regex"], [
    "(needle|x) 4\\d",
    "--regex",
  ]];
  for (const [content, ...flags] of searches) {
    const args = ["view", ".", "--content", content!, ...flags];
    const bundled = await runBundle(file, args, dir.path);
    const plain = await runCliProcess(args, { cwd: dir.path });
    assertEquals(bundled, plain, content);
    assertEquals(bundled.code, 0);
  }
  const needle = await runBundle(file, ["view", ".", "--content", "needle"], dir.path);
  assertStringIncludes(needle.stdout, "14 matching lines in 14 files");
});

Deno.test("the bundle carries the outline's wasm files and outlines from them, with no config", async () => {
  await using out = await tempDir();
  const file = `${out.path}/anchorfs.js`;
  await bundle(file);
  const modules = `${out.path}/${MODULES_DIR}`;
  for (const wasm of wasmFiles()) {
    assertEquals((await Deno.stat(`${modules}/${WASM_SUBDIR}/${wasm}`)).isFile, true, wasm);
  }
  // The runtime's JavaScript is in the worker's file only: neither the entry that answers
  // initialize nor the core file and its chunks (the main isolate) hold it.
  assertEquals((await Deno.readTextFile(file)).includes("tree-sitter"), false);
  const runtimeMark = "ts_parser_new";
  const holding: string[] = [];
  for await (const entry of Deno.readDir(modules)) {
    if (!entry.isFile) continue;
    const text = await Deno.readTextFile(`${modules}/${entry.name}`);
    if (text.includes(runtimeMark)) holding.push(entry.name);
  }
  assertEquals(holding, [OUTLINE_WORKER_FILE]);
  await using dir = await tempDir();
  await writeTree(dir.path, { "jobs.py": "class Jobs:\n    def start(self):\n        pass\n" });
  const outline = await runBundle(file, ["view", "jobs.py", "--outline"], dir.path);
  assertEquals(outline.code, 0, outline.stderr);
  assertStringIncludes(outline.stdout, "jobs.py: Python, 3 lines, 2 declarations.");
  assertStringIncludes(outline.stdout, " method Jobs.start 2-3 (self)");
  assertEquals(outline.stderr, "");
});

Deno.test("the bundle's search workers import re2js from its own file; without it they say so", async () => {
  await using dir = await tempDir();
  const files: Record<string, string> = {};
  // More files than one scanner batch: the search runs on the worker threads.
  for (let i = 0; i < 700; i++) files[`f${i}.txt`] = i === 7 ? "the NEEDLE 7\n" : `x ${i}\n`;
  await writeTree(dir.path, files);
  await using out = await tempDir();
  const file = `${out.path}/anchorfs.js`;
  await bundle(file);
  // Case folding with a repeat: RE2's engine (re2js), with or without V8's linear engine.
  const args = ["view", ".", "--content", "(?i)ne+dle \\d+", "--regex"];
  const inWorkers = await runBundle(file, args, dir.path);
  assertEquals(inWorkers.code, 0, inWorkers.stderr);
  assertStringIncludes(inWorkers.stdout, "1 matching line in 1 file for regex /ne+dle \\d+/i");
  assertStringIncludes(inWorkers.stdout, "|the NEEDLE 7");
  assertEquals(inWorkers.stderr, "");
  // Without the file the workers cannot match RE2 regexes: they say so, the main thread does.
  await Deno.remove(`${out.path}/${MODULES_DIR}/${RE2_MODULE_FILE}`);
  const onMain = await runBundle(file, args, dir.path);
  assertEquals(onMain.stdout, inWorkers.stdout);
  assertStringIncludes(onMain.stderr, "anchorfs: a search worker could not import re2js (");
  assertStringIncludes(onMain.stderr, "RE2 regexes are matched on the main thread\n");
});

Deno.test("the bundle's core file loads none of the modules only some calls need: each is a chunk run on first use", async () => {
  await using out = await tempDir();
  const file = `${out.path}/anchorfs.js`;
  await bundle(file);
  const core = `${out.path}/${CORE_FILE}`;
  const dir = core.slice(0, core.lastIndexOf("/"));
  const coreName = core.slice(dir.length + 1);
  const atStart = await lazyPlaces(dir, await startFiles(dir, coreName));
  const reachable = await lazyPlaces(dir, await reachableFiles(dir, coreName));
  for (const [what] of LAZY_MODULES) {
    assertEquals(atStart[what], [], `${what} loads with the core file`);
    assertEquals(
      reachable[what]!.length > 0,
      true,
      `no chunk the core file can load holds ${what}`,
    );
  }
  // V8 keeps each module's whole source, at two bytes a character once one is not ASCII: the
  // bundle's are ASCII (compactCode) but for tagged templates (`guide`), whose raw text it keeps.
  // Before, the SDK's chunk alone (975 KB, em dashes in comments) was kept at two bytes.
  let twoByte = 0;
  for (const name of [...await reachableFiles(dir, coreName), "../anchorfs.js"]) {
    const code = await Deno.readTextFile(`${dir}/${name}`);
    if (hasNonAscii(code)) twoByte += code.length;
  }
  assertEquals(twoByte < 100_000, true, `${twoByte} characters of source kept at two bytes`);
  // ssh2's bundled CommonJS reads __dirname: its chunk defines it first.
  assertEquals(reachable.ssh2!.length, 1, `ssh2 in ${reachable.ssh2}`);
  const ssh2Chunk = `${dir}/${reachable.ssh2![0]}`;
  assertEquals((await Deno.readTextFile(ssh2Chunk)).startsWith(PROLOGUE), true);

  // The chunk runs with the first ssh:// call, not before: a port nothing listens on gets
  // ssh2's own refusal with it, and without it only that call fails (the installation is
  // damaged), while a local view runs as before.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  await using project = await tempDir();
  await writeTree(project.path, { "hello.txt": "alpha\n" });
  const remote = ["view", `ssh://127.0.0.1:${port}/tmp/x.txt`];
  const refused = await runBundle(file, remote, project.path);
  assertEquals(refused.code, EXIT.failed, refused.stderr);
  assertStringIncludes(refused.stderr, "the connection was refused");
  await Deno.remove(ssh2Chunk);
  const damaged = await runBundle(file, remote, project.path);
  assertStringIncludes(damaged.stderr, "error: anchorfs could not load its ssh2 module");
  // Ours, not the caller's nor the network's: the exit code says so.
  assertEquals(damaged.code, EXIT.internal, damaged.stderr);
  const local = await runBundle(file, ["view", "hello.txt"], project.path);
  assertEquals(local.code, 0, local.stderr);
  assertStringIncludes(local.stdout, "|alpha\n");
});

/** Whether any character is outside ASCII (a loop: a `[^\x00-\x7f]` class trips no-control-regex). */
function hasNonAscii(code: string): boolean {
  for (let i = 0; i < code.length; i++) if (code.charCodeAt(i) > 0x7f) return true;
  return false;
}

/** The files of the bundle's folder Deno's start-up graph holds (`deno info`), relative to it. */
async function startGraph(file: string): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--no-config", "--json", file],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  assertEquals(out.code, 0, "deno info failed");
  const base = new URL(".", `file://${file}`).href;
  const { modules } = JSON.parse(new TextDecoder().decode(out.stdout));
  return (modules as { specifier: string }[])
    .map((m) => m.specifier)
    .filter((s) => s.startsWith(base))
    .map((s) => s.slice(base.length))
    .sort();
}

Deno.test(
  needing("proc")(
    "the bundle's start-up graph holds the entry and the core file's imports only; its chunks load on first use, with no descriptor free too",
    async () => {
      await using out = await tempDir();
      const file = `${out.path}/anchorfs.js`;
      await bundle(file);
      const dir = `${out.path}/${MODULES_DIR}`;
      const core = CORE_FILE.slice(MODULES_DIR.length + 1);
      const expected = [
        "anchorfs.js",
        ...(await startFiles(dir, core)).map((f) => `${MODULES_DIR}/${f}`),
      ].sort();
      // What Deno reads and holds before the first line runs: no chunk only some call needs (a
      // literal import() anywhere in the core's files would add its chunk and all it imports).
      assertEquals(await startGraph(file), expected);
      const reachable = await reachableFiles(dir, core);
      assertEquals(reachable.length > expected.length + 10, true, `${reachable.length} reachable`);
      // Read at run time instead, such a load can meet EMFILE: it is refused with its error, and
      // loads once descriptors are back.
      await firstUsesUnderEmfile(file);
    },
  ),
);
