// Builds the bundle: `dist/anchorfs.js` (run with `deno run -A dist/anchorfs.js`) and, beside it,
// the folder `anchorfs_modules/` with everything else. The entry holds only main.ts and what it
// needs to open stdin and answer an MCP `initialize` (lib/mcp/stdio/early_start.ts): one file, so
// that answer waits for no other module. The rest (lib/commands.ts: node modules, the MCP SDK) is
// `anchorfs_modules/commands.js`, imported once that reply is out, and it is code-split: each
// module loaded on first use (lib/core/first_use.ts: ssh2 and the ssh backend, the scanner, tree
// ops, edits, the diff, outlines, the CLI) stays in a chunk of its own that V8 compiles and runs
// only when a call first needs it. Inlined, V8 parsed their source at start and held it for the
// life of the process (issue 26: ~5 MB of the idle server's RSS). Nor does Deno's loader read
// them at start: a literal import() puts its module in the graph Deno builds (and holds, outside
// V8's heap) before running a line, so the chunks' import()s of each other are written as calls
// of lib/core/first_use.ts's lateImport (deferImports), read when they run; the entry's import of
// the core file stays literal (the core loads at start anyway). One file for everything would
// also make the runtime load every `node:` module it imports before running a line (ES imports
// are hoisted).
// ssh2 needs two fixes a plain `deno bundle` does not make: its optional native addons (`*.node`,
// loaded in try/catch, pure JS is used without them) must stay external, and its bundled CommonJS
// reads `__dirname`/`__filename`, which ES modules lack, so each chunk that reads them defines
// them first.
//
// The outline's worker (lib/backends/tree_sitter/outline_worker.ts: tree-sitter's runtime) is
// anchorfs_outline_worker.js, and its wasm files go into a tree-sitter/ folder: the chunk holding
// the parser starts the worker from the file beside it. The search workers (inline code, which
// cannot resolve "re2js" in a bundle) import re2js from anchorfs_re2.js. All three sit in the
// modules folder, beside the chunks that look for them.
//
// Usage: deno run -A scripts/release/bundle.ts [--out FILE]

import { parseArgs } from "node:util";
import {
  OUTLINE_WORKER_FILE,
  WASM_SUBDIR,
  wasmFiles,
} from "../../lib/backends/tree_sitter/wasm_files.ts";
import { RE2_MODULE_FILE } from "../../lib/backends/local/re2_module.ts";
import { LATE_IMPORT_GLOBAL } from "../../lib/core/first_use.ts";
import * as esbuild from "esbuild";

/** Defines the CommonJS globals ssh2's bundled code reads at load time. */
export const PROLOGUE =
  "var __dirname = import.meta.dirname, __filename = import.meta.filename; // anchorfs bundle\n";

/**
 * The bundle's code without its comments and layout, and with every non-ASCII character written
 * as an escape; names are kept. V8 keeps each module's whole source in the heap (for lazy
 * compilation and `toString`), and a source holding one non-ASCII character is kept at two bytes
 * a character: the SDK's chunk, 975 KB with 45 em dashes in its comments, was 1.9 MB of the idle
 * server's heap. Comments go too: JSDoc types that import a package's own files (re2js:
 * `{import('./index.js').RE2JS}`) point nowhere once bundled, and `deno compile` type-checked
 * them (TS2307). The 3.66 MB of modules become 2.61 MB, and the idle server 3 MB smaller
 * (docs/benchmarks.md, "Idle"). Names stay as they are: the search workers' code is joined from
 * functions of several chunks by their source text and names (scan_worker.ts), and minified
 * names collide there.
 */
export async function compactCode(code: string): Promise<string> {
  const result = await esbuild.transform(code, {
    loader: "js",
    minifyWhitespace: true,
    charset: "ascii",
    legalComments: "none",
    logLevel: "silent",
  });
  return result.code;
}

/** An import() of a file beside this one, as compactCode writes it. */
const CHUNK_IMPORT = /\bimport\("(\.\/[^"]+\.js)"\)/g;

/**
 * `code` with each import() of a chunk beside it made through LATE_IMPORT_GLOBAL, the chunk's URL
 * built at run time, so Deno's start-up graph does not hold it: with every chunk in that graph,
 * the loader kept 1.9 MB of their text (ssh2, re2js, the CLI, ... whether a call ever needed
 * them) and an idle server was 2–3 MB larger (docs/benchmarks.md, issue 26). The global is
 * installed by the core file before any chunk's import() can run; without it (it cannot happen,
 * but a TypeError would be worse) a plain import() of the URL.
 */
export function deferImports(code: string): string {
  return code.replace(
    CHUNK_IMPORT,
    (_, file) =>
      `(globalThis.${LATE_IMPORT_GLOBAL}??(u=>import(u)))(new URL(${
        JSON.stringify(file)
      },import.meta.url).href)`,
  );
}

/**
 * The folder beside the entry holding the rest of the bundle: the core file, its chunks, the
 * outline worker, re2js and the wasm files (the npm package and the binaries carry all of it).
 */
export const MODULES_DIR = "anchorfs_modules";
/** The bundle's core file (lib/commands.ts), relative to the entry's directory. */
export const CORE_FILE = `${MODULES_DIR}/commands.js`;
/** How main.ts imports the rest; the entry's copy is pointed at CORE_FILE. */
const COMMANDS_IMPORT = `import("./lib/commands.ts")`;
/**
 * The source modules each file of MODULES_DIR holds (`lib/...` as in the checkout, npm packages'
 * files as `npm:<name>/<version>/<file>`), written there as SOURCES_FILE: deno bundle heads each
 * module's code with a `// path` line, and compactCode drops comments. It tells which chunk runs
 * which module (tests/scripts/_bundle_graph.ts checks the lazy ones; a stack trace's chunk).
 */
export const SOURCES_FILE = "sources.json";

/** The modules `code` (deno bundle's output, comments still in) holds, as SOURCES_FILE lists them. */
function sourceModules(code: string): string[] {
  return [...code.matchAll(/^\/\/ (\S+\.[cm]?[jt]s)$/gm)].map((m) =>
    m[1]!.replace(/^.*\/registry\.npmjs\.org\//, "npm:")
  );
}

/** Whether a chunk reads the CommonJS globals PROLOGUE defines. */
const READS_CJS_GLOBALS = /\b__(dirname|filename)\b/;

async function denoBundle(entry: string, extra: string[], raw: string): Promise<string> {
  const root = new URL("../..", import.meta.url).pathname;
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--platform=deno", "--external=*.node", ...extra, entry, "-o", raw],
    cwd: root,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  try {
    if (!result.success) throw new Error(`deno bundle ${entry} failed (exit ${result.code})`);
    return await Deno.readTextFile(raw);
  } finally {
    await Deno.remove(raw).catch(() => {});
  }
}

/**
 * The outline's wasm files (tree-sitter's runtime and grammars) copied from the npm package into
 * `<dir>/tree-sitter/`, where the bundled runtime looks first: a bundle has no npm package beside
 * it. Returns the files' total size in bytes.
 */
export async function copyWasm(dir: string): Promise<number> {
  const source = new URL(
    "./",
    import.meta.resolve("@vscode/tree-sitter-wasm/wasm/tree-sitter.wasm"),
  );
  await Deno.mkdir(`${dir}${WASM_SUBDIR}`, { recursive: true });
  let bytes = 0;
  for (const file of wasmFiles()) {
    const to = `${dir}${WASM_SUBDIR}/${file}`;
    await Deno.copyFile(new URL(file, source), to);
    bytes += (await Deno.stat(to)).size;
  }
  return bytes;
}

/**
 * lib/commands.ts code-split into `dir` (emptied first: a stale chunk from an earlier build must
 * not ship): `commands.js` and one chunk per lazily imported module or shared part, each given
 * PROLOGUE when it reads `__dirname`/`__filename`.
 */
async function bundleCore(dir: string): Promise<void> {
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  const root = new URL("../..", import.meta.url).pathname;
  const result = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--platform=deno",
      "--external=*.node",
      "--code-splitting",
      "--outdir",
      dir,
      "lib/commands.ts",
    ],
    cwd: root,
    // It lists every chunk it writes (75 lines): shown only when it fails.
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!result.success) {
    const said = new TextDecoder().decode(result.stderr);
    throw new Error(`deno bundle lib/commands.ts failed (exit ${result.code}):\n${said}`);
  }
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) if (entry.isFile) names.push(entry.name);
  const sources: Record<string, string[]> = {};
  for (const name of names.sort()) {
    const bundled = await Deno.readTextFile(`${dir}/${name}`);
    sources[name] = sourceModules(bundled);
    const code = deferImports(await compactCode(bundled));
    await Deno.writeTextFile(
      `${dir}/${name}`,
      READS_CJS_GLOBALS.test(code) ? PROLOGUE + code : code,
    );
  }
  await Deno.writeTextFile(`${dir}/${SOURCES_FILE}`, JSON.stringify(sources, null, 1) + "\n");
}

/**
 * Writes the entry `out` and, beside it, MODULES_DIR: the core file and its chunks, the outline
 * worker's file, re2js's file and the wasm files' folder.
 */
export async function bundle(out: string): Promise<void> {
  const dir = out.slice(0, out.lastIndexOf("/") + 1);
  const modules = `${dir}${MODULES_DIR}/`;
  const entry = await denoBundle("main.ts", ["--external=./lib/commands.ts"], `${out}.raw.js`);
  const parts = entry.split(COMMANDS_IMPORT);
  if (parts.length !== 2) {
    throw new Error(
      `bundle: expected one ${COMMANDS_IMPORT} in main.ts's bundle, found ${parts.length - 1}`,
    );
  }
  await bundleCore(`${dir}${MODULES_DIR}`);
  const worker = await denoBundle(
    "lib/backends/tree_sitter/outline_worker.ts",
    [],
    `${modules}${OUTLINE_WORKER_FILE}.raw.js`,
  );
  // The runtime is emscripten's CommonJS build, which reads __dirname like ssh2 does.
  await Deno.writeTextFile(
    `${modules}${OUTLINE_WORKER_FILE}`,
    PROLOGUE + await compactCode(worker),
  );
  const re2 = await denoBundle(
    "scripts/release/_re2_entry.ts",
    [],
    `${modules}${RE2_MODULE_FILE}.raw.js`,
  );
  await Deno.writeTextFile(`${modules}${RE2_MODULE_FILE}`, await compactCode(re2));
  await Deno.writeTextFile(out, await compactCode(parts.join(`import("./${CORE_FILE}")`)));
  await copyWasm(modules);
  await esbuild.stop();
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { out: { type: "string" } } });
  const out = values.out ??
    new URL("../../dist/anchorfs.js", import.meta.url).pathname;
  await Deno.mkdir(out.slice(0, out.lastIndexOf("/")) || ".", { recursive: true });
  await bundle(out);
  // deno-lint-ignore no-console
  console.error(`wrote ${out}`);
}
