// The compile script (scripts/release/compile.ts): targets, DENORT_BIN, usage errors, and a real
// `deno compile` of the bundle with a stand-in runtime, offline.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import {
  compileArgs,
  findRuntime,
  hostTarget,
  outputName,
  targetEnvVar,
  TARGETS,
} from "../../scripts/release/compile.ts";
import { CORE_FILE, MODULES_DIR } from "../../scripts/release/bundle.ts";
import { REPO_ROOT, tempDir } from "../_harness.ts";
import { needing } from "../_requires.ts";
import {
  OUTLINE_WORKER_FILE,
  WASM_SUBDIR,
  wasmFiles,
} from "../../lib/backends/tree_sitter/wasm_files.ts";
import { RE2_MODULE_FILE } from "../../lib/backends/local/re2_module.ts";

// The stand-in runtime is a symlink (Windows needs a privilege for those).
const needs = needing("posix-fs");

Deno.test("compile script covers Linux, macOS and Windows on x86_64 and ARM64", () => {
  for (const os of ["linux", "darwin", "windows"]) {
    for (const arch of ["x86_64", "aarch64"]) {
      assertEquals(
        TARGETS.some((t) => t.startsWith(arch) && t.includes(os)),
        true,
        `${arch} ${os}`,
      );
    }
  }
  assertEquals(outputName("x86_64-pc-windows-msvc").endsWith(".exe"), true);
  assertEquals(targetEnvVar("aarch64-apple-darwin"), "DENORT_BIN_AARCH64_APPLE_DARWIN");
});

Deno.test("compile script honours DENORT_BIN and refuses a missing file or the deno CLI", async () => {
  await using dir = await tempDir();
  const denort = `${dir.path}/denort`;
  await Deno.writeTextFile(denort, "stand-in");
  const saved = Deno.env.get("DENORT_BIN");
  try {
    Deno.env.set("DENORT_BIN", denort);
    assertEquals(await findRuntime("x86_64-unknown-linux-gnu", 1), {
      kind: "env",
      variable: "DENORT_BIN",
      path: denort,
    });
    Deno.env.set("DENORT_BIN", `${dir.path}/missing`);
    const missing = await findRuntime("x86_64-unknown-linux-gnu", 1);
    assertEquals(missing.kind, "missing");
    if (missing.kind === "missing") assertStringIncludes(missing.reason, "does not exist");
    Deno.env.set("DENORT_BIN", Deno.execPath());
    const cli = await findRuntime("x86_64-unknown-linux-gnu", 1);
    assertEquals(cli.kind, "missing");
    if (cli.kind === "missing") assertStringIncludes(cli.reason, "not the denort runtime");
  } finally {
    if (saved === undefined) Deno.env.delete("DENORT_BIN");
    else Deno.env.set("DENORT_BIN", saved);
  }
});

const SCRIPT = `${REPO_ROOT}/scripts/release/compile.ts`;

async function runCompile(args: string[], env: Record<string, string> = {}) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", SCRIPT, ...args],
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("compile script: an unknown target or option is a two-line usage error, exit 2", async () => {
  const bogus = await runCompile(["--target", "bogus"]);
  assertEquals(bogus.code, 2);
  const lines = bogus.stderr.trimEnd().split("\n");
  assertEquals(lines.length, 2, bogus.stderr);
  assertEquals(lines[0], 'error: unknown target "bogus"');
  assertStringIncludes(lines[1] ?? "", "hint: use one of: x86_64-unknown-linux-gnu");
  const option = await runCompile(["--bogus"]);
  assertEquals(option.code, 2);
  assertEquals(option.stderr.trimEnd().split("\n").length, 2, option.stderr);
  assertStringIncludes(option.stderr, 'error: unknown option "--bogus"');
});

Deno.test(needs({
  name:
    "compile script builds from the bundle (nothing else embedded), prints sizes, writes SHA256SUMS",
  // A stand-in runtime (the deno CLI under the name denort) makes deno compile run offline; the
  // binary it yields does not run anchorfs, but what gets embedded is the same.
  ignore: Deno.build.os === "windows",
  async fn() {
    await using dir = await tempDir();
    const standIn = `${dir.path}/denort`;
    await Deno.symlink(Deno.execPath(), standIn);
    const target = hostTarget();
    const result = await runCompile(["--target", target, "--out", `${dir.path}/out`], {
      DENORT_BIN: standIn,
    });
    assertEquals(result.code, 0, result.stderr);
    const name = outputName(target);
    assertStringIncludes(result.stderr, `built ${dir.path}/out/${name} (`);
    assertStringIncludes(result.stderr, " MB)");
    // deno compile lists the embedded files: only the bundle, no node_modules, no test packages.
    const embedded = result.stderr.slice(result.stderr.indexOf("Embedded Files"));
    assertStringIncludes(embedded, "anchorfs.js");
    // The modules folder: the core file and its chunks, the outline's worker (started by URL, no
    // import names it), re2js and the wasm files read beside the bundle at run time (deno lists
    // the folder, not its files).
    assertStringIncludes(embedded, `${MODULES_DIR}/* (`);
    assertEquals(wasmFiles().length, 15);
    for (const absent of ["fast-check", "@modelcontextprotocol", "node_modules", "tests/"]) {
      assertEquals(embedded.includes(absent), false, `${absent} embedded:\n${embedded}`);
    }
    // Every file of the folder is in the binary, whole: the core file, each chunk, the worker,
    // re2js and the wasm files (a chunk's name alone also occurs in the import()s that load it).
    const modules = `${dir.path}/out/${MODULES_DIR}`;
    const files: string[] = wasmFiles().map((wasm) => `${WASM_SUBDIR}/${wasm}`);
    for await (const entry of Deno.readDir(modules)) if (entry.isFile) files.push(entry.name);
    for (const required of [CORE_FILE.slice(MODULES_DIR.length + 1), OUTLINE_WORKER_FILE]) {
      assertEquals(files.includes(required), true, `${required} not in ${files}`);
    }
    assertEquals(files.includes(RE2_MODULE_FILE), true, `${files}`);
    assertEquals(files.filter((f) => /^chunk-\w+\.js$/.test(f)).length > 10, true, `${files}`);
    // Bytes as Latin-1 text: one character per byte, so a file's text is found as is.
    const latin1 = (bytes: Uint8Array) => new TextDecoder("latin1").decode(bytes);
    const binary = latin1(await Deno.readFile(`${dir.path}/out/${name}`));
    const missing: string[] = [];
    for (const file of files) {
      if (!binary.includes(latin1(await Deno.readFile(`${modules}/${file}`)))) missing.push(file);
    }
    assertEquals(missing, []);
    const sums = await Deno.readTextFile(`${dir.path}/out/SHA256SUMS`);
    const digest = await crypto.subtle.digest(
      "SHA-256",
      await Deno.readFile(`${dir.path}/out/${name}`),
    );
    const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
    assertEquals(sums, `${hex}  ${name}\n`);
  },
}));

Deno.test("the compile command line embeds the bundle's whole modules folder, chunks and all", () => {
  const args = compileArgs("x86_64-unknown-linux-gnu", "/tmp/d/anchorfs.js", "/tmp/d/bin");
  assertEquals(args.at(-1), "/tmp/d/anchorfs.js");
  const included = args.flatMap((a, i) => args[i - 1] === "--include" ? [a] : []);
  // One folder holds every file besides the entry; no file of it is named on its own (a chunk
  // left out would fail only when a call first needs it).
  assertEquals(included, [`/tmp/d/${MODULES_DIR}`]);
  assertEquals(CORE_FILE.startsWith(`${MODULES_DIR}/`), true);
});

Deno.test("deno.json's tasks and the npm launcher run the server with the binaries' V8 flags", async () => {
  const { V8_FLAGS } = await import("../../scripts/release/compile.ts");
  const root = new URL("../../", import.meta.url);
  const tasks = JSON.parse(await Deno.readTextFile(new URL("deno.json", root))).tasks;
  const launcher = await Deno.readTextFile(new URL("packaging/npm/bin/anchorfs.cjs", root));
  const flag = `--v8-flags=${V8_FLAGS}`;
  assertEquals([tasks.anchorfs.includes(flag), tasks.mcp.includes(flag)], [true, true]);
  assertEquals(launcher.includes(`"${flag}"`), true);
  // The semi-space cap bounds the search workers' young generation (issue 26).
  assertEquals(V8_FLAGS.split(",").includes("--max-semi-space-size=2"), true);
  // Search workers collect their grown heaps in place instead of being replaced (issue 26).
  assertEquals(V8_FLAGS.split(",").includes("--expose-gc"), true);
  // Ended workers' heap pages go back to the system, not to a pool nothing releases (issue 26).
  assertEquals(V8_FLAGS.split(",").includes("--no-memory-pool-share-memory-on-teardown"), true);
  // No V8 code cache: its mapped pages were 3 MB of the idle server (issue 26).
  const { RUNTIME_FLAGS } = await import("../../scripts/release/compile.ts");
  assertEquals(RUNTIME_FLAGS.includes("--no-code-cache"), true);
  assertEquals([tasks.anchorfs, tasks.mcp].map((t) => t.includes(" --no-code-cache ")), [
    true,
    true,
  ]);
  assertEquals(launcher.includes(`"--no-code-cache"`), true);
});

Deno.test("the tasks, the npm launcher and the servers the tests start skip deno's update check (a DNS lookup of dl.deno.land)", async () => {
  const root = new URL("../../", import.meta.url);
  const tasks = JSON.parse(await Deno.readTextFile(new URL("deno.json", root))).tasks;
  const launcher = await Deno.readTextFile(new URL("packaging/npm/bin/anchorfs.cjs", root));
  const off = "DENO_NO_UPDATE_CHECK=1 ";
  assertEquals([tasks.anchorfs.startsWith(off), tasks.mcp.startsWith(off)], [true, true]);
  assertEquals(launcher.includes(`DENO_NO_UPDATE_CHECK: "1"`), true);
  const { serverEnv } = await import("../_harness.ts");
  assertEquals(serverEnv().DENO_NO_UPDATE_CHECK, "1");
});

Deno.test(
  needing("proc")(
    "with the binaries' V8 flags, the heap of a worker that ended leaves the process's memory",
    async () => {
      const { V8_FLAGS } = await import("../../scripts/release/compile.ts");
      // Two workers fill ~20 MB of heap each and close; the anonymous memory they left is read 1 s
      // after their threads ended. Without the last flag V8 kept all of it (40 of 42 MB).
      const script = `
    const anon = () => Number(/RssAnon:\\s+(\\d+)/.exec(Deno.readTextFileSync("/proc/self/status"))[1]);
    const threads = () => [...Deno.readDirSync("/proc/self/task")].length;
    const before = anon();
    const base = threads();
    const src = "let keep = []; self.onmessage = (e) => { if (e.data) { keep = null; self.close(); return; } " +
      "for (let i = 0; i < 200000; i++) keep.push({ a: i, s: 'x' + i }); self.postMessage(1); };";
    const url = URL.createObjectURL(new Blob([src], { type: "application/javascript" }));
    const ws = [0, 1].map(() => new Worker(url, { type: "module" }));
    await Promise.all(ws.map((w) => new Promise((r) => { w.onmessage = r; w.postMessage(0); })));
    const busy = anon();
    ws.forEach((w) => w.postMessage(1));
    const start = Date.now();
    while (threads() > base && Date.now() - start < 10000) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 1000));
    console.log(JSON.stringify({ grew: busy - before, left: anon() - before }));
  `;
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "--no-config", `--v8-flags=${V8_FLAGS}`, "-"],
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
        env: { DENO_NO_UPDATE_CHECK: "1" },
      }).spawn();
      const writer = out.stdin.getWriter();
      await writer.write(new TextEncoder().encode(script));
      await writer.close();
      const { stdout, stderr } = await out.output();
      const text = new TextDecoder().decode(stdout).trim();
      assert(text !== "", new TextDecoder().decode(stderr));
      const { grew, left } = JSON.parse(text) as { grew: number; left: number };
      assert(grew > 20 * 1024, `the workers' heaps grew the process (${grew} kB)`);
      assert(left < grew / 3, `${left} kB of the workers' ${grew} kB stayed after they ended`);
    },
  ),
);
