// Benchmark of the outline (view outline/symbol): parse time per MB for each language, the first
// outline's latency in a fresh process (runtime and grammar loaded on demand), memory once every
// grammar is loaded, and what the wasm files add to the bundle. Not a test: prints Markdown.
//
// Usage: deno run -A scripts/bench/outline_bench.ts [--runs N]

import { parseArgs } from "node:util";
import { TreeSitterParser, wasmFiles } from "../../lib/backends/tree_sitter/tree_sitter_parser.ts";
import { type Language, languageFor, LANGUAGES } from "../../lib/core/outline/languages.ts";

const { values } = parseArgs({
  options: { runs: { type: "string", default: "5" }, child: { type: "string" } },
});
const root = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const print = (text: string) => Deno.stdout.writeSync(new TextEncoder().encode(`${text}\n`));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** A real or sample file per language (the large vendored files where there is one). */
const SOURCES: Record<string, string> = {
  typescript: "scripts/bench/fixtures/large_files/zod/schemas.ts",
  python: "scripts/bench/fixtures/large_files/attrs/_make.py",
  javascript: "scripts/bench/fixtures/agent_project/index.js",
};
const sourceOf = (language: Language) => {
  const ext = Object.entries({
    tsx: "tsx",
    go: "go",
    rust: "rs",
    java: "java",
    c: "c",
    cpp: "cpp",
    csharp: "cs",
    ruby: "rb",
    php: "php",
    bash: "sh",
    powershell: "ps1",
    css: "css",
  })
    .find(([id]) => id === language.id)?.[1];
  return SOURCES[language.id] ?? `tests/fixtures/outline/sample.${ext}`;
};

/** About 1 MB of the language: its file repeated. */
async function megabyteOf(language: Language): Promise<string> {
  const text = await Deno.readTextFile(`${root}/${sourceOf(language)}`);
  return text.repeat(Math.max(1, Math.round(1_000_000 / text.length)));
}

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

if (values.child === "memory") {
  const start = Deno.memoryUsage().rss;
  const parser = new TreeSitterParser();
  const ids = [...new Set(Object.values(LANGUAGES).map((l) => l.id))];
  for (const id of ids) {
    const language = LANGUAGES[id]!;
    await parser.outline(await Deno.readTextFile(`${root}/${sourceOf(language)}`), language);
  }
  const loaded = Deno.memoryUsage().rss;
  await parser.outline(await megabyteOf(LANGUAGES.typescript!), LANGUAGES.typescript!);
  print(
    `Fresh process: RSS ${mib(start)} at start, ${mib(loaded)} with all ${ids.length} grammars ` +
      `loaded (+${mib(loaded - start)}), ${mib(Deno.memoryUsage().rss)} after a 1 MB ` +
      "TypeScript parse.",
  );
  Deno.exit(0);
}

if (values.child) {
  // One fresh process: the first outline of one language, then a second one (warm).
  const language = LANGUAGES[values.child]!;
  const text = await Deno.readTextFile(`${root}/${sourceOf(language)}`);
  const parser = new TreeSitterParser();
  const t0 = performance.now();
  await parser.outline(text, language);
  const first = performance.now() - t0;
  const t1 = performance.now();
  await parser.outline(text, language);
  print(JSON.stringify({ first, second: performance.now() - t1 }));
  Deno.exit(0);
}

async function firstOutline(id: string): Promise<{ first: number; second: number }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", import.meta.filename!, "--child", id],
    cwd: root,
    stderr: "inherit",
  }).output();
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

const runs = Number(values.runs);
const parser = new TreeSitterParser();
print(
  `| language | file (× repeats) | MB parsed | parse + outline: ms per MB (median of ${runs}) | first outline in a fresh process: ms | next outline of the same file: ms |`,
);
print("| --- | --- | ---: | ---: | ---: | ---: |");
const ids = [...new Set(Object.values(LANGUAGES).map((l) => l.id))];
for (const id of ids) {
  const language = LANGUAGES[id]!;
  const text = await megabyteOf(language);
  const mb = new TextEncoder().encode(text).length / 1e6;
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = await parser.outline(text, language);
    times.push(performance.now() - t0);
    if (!r) throw new Error("stopped");
  }
  const cold = await firstOutline(id);
  print(
    `| ${language.name} | ${sourceOf(language)} | ${mb.toFixed(2)} | ${
      (median(times) / mb).toFixed(0)
    } | ${cold.first.toFixed(0)} | ${cold.second.toFixed(1)} |`,
  );
}

// Memory, in a fresh process: every grammar loaded (each used once on its sample), then a 1 MB
// TypeScript parse (wasm memory keeps its peak).
const memory = await new Deno.Command(Deno.execPath(), {
  args: ["run", "-A", import.meta.filename!, "--child", "memory"],
  cwd: root,
  stderr: "inherit",
}).output();
print("");
print(new TextDecoder().decode(memory.stdout).trim());

let wasmBytes = 0;
const dir = new URL("./", import.meta.resolve("@vscode/tree-sitter-wasm/wasm/tree-sitter.wasm"));
for (const file of wasmFiles()) wasmBytes += (await Deno.stat(new URL(file, dir))).size;
print(
  `wasm files shipped: ${wasmFiles().length}, ${mib(wasmBytes)} (${languageFor("a.ts")?.name} and ${
    ids.length - 1
  } other languages).`,
);
