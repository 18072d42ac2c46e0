// Benchmark: the two regex engines on the same text, without I/O. Decodes every text file under
// TREE into memory, then times V8 RegExp and re2js on each pattern, over whole files (the search
// prefilter, multi-line) and line by line (the match). Not a test: prints a Markdown table.
// Usage: deno run -A scripts/bench/regex_engine_bench.ts [TREE]

import { RE2JS } from "re2js";

const root = Deno.args[0] ?? ".";
const texts: string[] = [];
let bytes = 0;
const decoder = new TextDecoder();
function walk(dir: string) {
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)];
  } catch {
    return;
  }
  for (const e of entries) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory && e.name !== ".git") walk(path);
    else if (e.isFile) {
      try {
        const data = Deno.readFileSync(path);
        if (data.length > 16 * 1024 * 1024 || data.subarray(0, 8192).includes(0)) continue;
        bytes += data.length;
        texts.push(decoder.decode(data));
      } catch { /* unreadable: skipped */ }
    }
  }
}
walk(root);
const lines = texts.flatMap((t) => t.split("\n"));

const patterns = [
  "fn\\s+\\w+",
  "(?i)error",
  "[A-Z][a-z]+Error",
  "\\bfoo\\b|\\bbar\\b",
  "^\\s*import .* from",
  "a.*b.*c.*d",
];
const time = (f: () => number) => {
  const t = performance.now();
  const hits = f();
  return { ms: performance.now() - t, hits };
};
const enc = new TextEncoder();
const print = (text: string) => Deno.stdout.writeSync(enc.encode(`${text}\n`));
print(
  `${texts.length.toLocaleString("en-US")} text files, ${(bytes / 1e6).toFixed(0)} MB, ${
    lines.length.toLocaleString("en-US")
  } lines under ${root}; ms, one run each.\n`,
);
print("| pattern | V8 whole files | re2js whole files | V8 per line | re2js per line |");
print("|---|---|---|---|---|");
for (const p of patterns) {
  const ci = p.startsWith("(?i)");
  const body = ci ? p.slice(4) : p;
  const v8Whole = new RegExp(body, (ci ? "i" : "") + "m");
  const v8Line = new RegExp(body, ci ? "i" : "");
  const re2Whole = RE2JS.compile(body, (ci ? RE2JS.CASE_INSENSITIVE : 0) | RE2JS.MULTILINE);
  const re2Line = RE2JS.compile(body, ci ? RE2JS.CASE_INSENSITIVE : 0);
  const cells = [
    time(() => texts.filter((t) => v8Whole.test(t)).length),
    time(() => texts.filter((t) => re2Whole.test(t)).length),
    time(() => lines.filter((l) => v8Line.test(l)).length),
    time(() => lines.filter((l) => re2Line.test(l)).length),
  ];
  print(`| \`${p.replaceAll("|", "\\|")}\` | ${cells.map((c) => c.ms.toFixed(0)).join(" | ")} |`);
}
