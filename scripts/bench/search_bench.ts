// Benchmark: view's content search over a large real tree vs `rg` with the same ignore rules,
// measured in one run. Usage: deno run -A [--v8-flags=...] scripts/bench/search_bench.ts [TREE] [RUNS]
// TREE defaults to /tmp/anchorfs-bench-tree (create it with `npm install` of big packages, see
// docs/benchmarks.md). Not a test: prints a Markdown table for docs/benchmarks.md, with the regex
// engine each query ran on (re2js, or V8 when it is provably linear; run it with and without the
// V8 flags of deno.json's tasks to compare).

import { createServices } from "../../lib/compose.ts";
import { createSession } from "../../lib/ops/session.ts";
import { viewText } from "../../tests/ops/_view_text.ts";
import * as searchPattern from "../../lib/core/search/search_pattern.ts";

const tree = Deno.args[0] ?? "/tmp/anchorfs-bench-tree";
const runs = Number(Deno.args[1] ?? 5);
// A root .gitignore so that both engines apply real ignore rules (source maps are skipped).
const ignoreFile = `${tree}/.gitignore`;
await Deno.writeTextFile(ignoreFile, "*.map\n");
// A pathological query needs its pathological line: 50,000 `a` and a `b` in one file.
await Deno.writeTextFile(`${tree}/anchorfs-long-line.txt`, `${"a".repeat(50_000)}b\n`);

// rg reads .gitignore without a git repository only with --no-require-git; .ignore/.rgignore
// files are not gitignore rules, so they are turned off to match anchorfs.
const RG_FLAGS = ["--no-require-git", "--no-ignore-dot", "--no-config"];

async function rg(args: string[]): Promise<{ ms: number; out: string }> {
  const t = performance.now();
  const out = await new Deno.Command("rg", {
    args: [...RG_FLAGS, ...args],
    cwd: tree,
    stdout: "piped",
  })
    .output();
  return { ms: performance.now() - t, out: new TextDecoder().decode(out.stdout) };
}

const enc = new TextEncoder();
const print = (text: string) => Deno.stdout.writeSync(enc.encode(`${text}\n`));
const note = (text: string) => Deno.stderr.writeSync(enc.encode(`${text}\n`));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const files = (await rg(["--files"])).out.split("\n").filter(Boolean);
let bytes = 0;
for (const f of files) bytes += (await Deno.stat(`${tree}/${f}`)).size;

const services = createServices();
const session = createSession(services.locations.localAt(tree));
const queries = [
  { name: "no match", content: "anchorfs_no_such_token_qq", regex: false },
  { name: "rare literal", content: "XMLHttpRequestUpload", regex: false },
  { name: "regex (?i)", content: "(?i)anchorfs_no_such_token", regex: true },
  { name: "regex, literal inside", content: "\\bfunction\\s+\\w+Error\\(", regex: true },
  { name: "regex, no literal", content: "(TODO|FIXME|XXX):", regex: true },
  { name: "regex (?i), no literal", content: "(?i)(todo|fixme|xxx):", regex: true },
  { name: "regex, catastrophic", content: "^(a|aa)+$", regex: true },
];
/** The engine a regex query runs on (absent before the linear engines existed). */
const engineOf = (q: { content: string; regex: boolean }) =>
  q.regex
    ? (searchPattern.compileSearchPattern(q.content, true) as { engine?: string }).engine ??
      "v8 backtracking"
    : "literal";
const rows: string[] = [];
for (const q of queries) {
  const ours: number[] = [];
  const plain: number[] = [];
  const rgT: number[] = [];
  const rg1: number[] = [];
  let summary = "";
  if (q.content === "^(a|aa)+$" && engineOf(q) === "v8 backtracking") {
    rows.push(
      `| ${q.name} \`${
        q.content.replaceAll("|", "\\|")
      }\` | v8 backtracking | never finishes | | | | | |`,
    );
    continue;
  }
  for (let i = 0; i < runs; i++) {
    const args = { path: ".", content: q.content, regex: q.regex };
    let t = performance.now();
    const text = await viewText(services.locations, session, args, { scanner: services.scanner });
    ours.push(performance.now() - t);
    t = performance.now();
    const plainText = await viewText(services.locations, session, args);
    plain.push(performance.now() - t);
    if (plainText !== text) throw new Error(`engines differ for ${q.name}`);
    summary = text.split("\n")[0]!.slice(0, 100);
    const rgArgs = q.regex ? ["-e", q.content, "."] : ["-F", "-e", q.content, "."];
    rgT.push((await rg(rgArgs)).ms);
    rg1.push((await rg(["-j1", ...rgArgs])).ms);
  }
  rows.push(
    `| ${q.name} \`${q.content.replaceAll("|", "\\|")}\` | ${engineOf(q)} | ${
      median(ours).toFixed(0)
    } | ${median(plain).toFixed(0)} | ${median(rgT).toFixed(0)} | ${
      (median(ours) / median(rgT)).toFixed(2)
    }× | ${(median(plain) / median(rgT)).toFixed(2)}× | ${median(rg1).toFixed(0)} |`,
  );
  note(`${q.name}: ${summary}`);
}
await services.scanner?.close();
await services.locations.local.close();

print(
  `Tree: ${tree}: ${files.length.toLocaleString("en-US")} files (after ignore rules), ${
    (bytes / 1024 / 1024).toFixed(0)
  } MB; ${runs} runs each, medians in ms; \`rg ${RG_FLAGS.join(" ")}\`.\n`,
);
print(
  "| query | engine | view (parallel scan) | view (plain engine) | rg (all cores) | " +
    "ratio parallel | ratio plain | rg -j1 |",
);
print("|---|---|---|---|---|---|---|---|");
for (const r of rows) print(r);
