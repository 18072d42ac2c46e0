// Benchmark of the outline (view outline/symbol): parse time per MB for each language, the first
// outline's latency in a fresh process (the worker started, runtime and grammar loaded on
// demand), memory before the first outline, at its peak (a tour of every grammar, then a 1 MB
// parse) and after the worker went idle, and what the wasm files add to the bundle. Not a test:
// prints Markdown.
//
// Usage: deno run -A scripts/bench/outline_bench.ts [--runs N]

import { parseArgs } from "node:util";
import { TreeSitterParser } from "../../lib/backends/tree_sitter/tree_sitter_parser.ts";
import { wasmFiles } from "../../lib/backends/tree_sitter/wasm_files.ts";
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

/** Resident memory (all of it, and the anonymous part: not the deno binary's own pages). */
function usage(): { rss: number; anon: number } {
  const status = Deno.readTextFileSync("/proc/self/status");
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)![1]);
  return { rss: field("VmRSS") * 1024, anon: field("RssAnon") * 1024 };
}
const both = (u: { rss: number; anon: number }) => `${mib(u.rss)} (anon ${mib(u.anon)})`;

if (values.child === "memory") {
  // The server's defaults but a 1 s idle: the worker's end is then measured, not waited for.
  const idleMs = 1_000;
  const start = usage();
  const parser = new TreeSitterParser({ idleMs });
  const ids = [...new Set(Object.values(LANGUAGES).map((l) => l.id))];
  let peak = start;
  const higher = (u: { rss: number; anon: number }) => (u.rss > peak.rss ? u : peak);
  for (const id of ids) {
    const language = LANGUAGES[id]!;
    await parser.outline(await Deno.readTextFile(`${root}/${sourceOf(language)}`), language);
    peak = higher(usage());
  }
  const tour = peak;
  await parser.outline(await megabyteOf(LANGUAGES.typescript!), LANGUAGES.typescript!);
  peak = higher(usage());
  const swaps = parser.stats.swapped;
  const after: string[] = [];
  let waited = 0;
  for (const seconds of [2, 5, 12]) {
    await new Promise((r) => setTimeout(r, (seconds - waited) * 1000));
    waited = seconds;
    after.push(`${seconds} s after the last parse: ${both(usage())}`);
  }
  print(
    `Fresh process, ${ids.length} grammars outlined in turn (at most ${parser.maxGrammars} ` +
      `resident: ${swaps} worker restarts), then a 1 MB TypeScript parse, worker idle after ` +
      `${idleMs / 1000} s. RSS: ${both(start)} before the first outline; peak ${both(tour)} ` +
      `during the tour, ${both(peak)} with the 1 MB parse; ${after.join("; ")}` +
      (parser.running ? " (worker still running!)" : "") +
      `. Main isolate heap at the end: ${mib(Deno.memoryUsage().heapTotal)}.`,
  );
  parser.close();
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
  parser.close();
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

parser.close();

// Memory, in a fresh process: every grammar used once on its sample (the worker holds at most
// maxGrammars at a time), a 1 MB TypeScript parse, then the worker's end after idle.
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
