// Issue 26's memory table (run by `scripts/bench/memory_bench.ts --trees`): the real server over stdio
// with the v1 SDK client, on (a) a generated 100k-file tree, (b) an installed node_modules tree
// and (c) 1M generated files, beside ripgrep in the same run. Per tree: RSS before the first call
// and 3 s after it, then per scenario the server's peak (VmHWM, reset through /proc/PID/clear_refs
// before the scenario) and median times against rg's. Linux only. Not a test. The server is this
// checkout's bundle as it ships (_shipped.ts), or with --source its main.ts, or --main another's.

import { parseArgs } from "node:util";
import { MAIN_TS, startServer, type TestServer } from "../../tests/_harness.ts";
import { V8_FLAGS } from "../release/compile.ts";
import { describeRegions, regions, samplePeak } from "./_proc_memory.ts";
import { describeServer, shippedBundle } from "./_shipped.ts";

/** The launchers' V8 flags (the harness runs a plain `deno run`), unless DENO_V8_FLAGS says. */
const v8Flags = Deno.env.get("DENO_V8_FLAGS") ?? V8_FLAGS;
const RG_FLAGS = ["--no-require-git", "--no-ignore-dot", "--no-config"];
/** What the bench installs for tree (b): the packages of issue 26's measurement and a few more. */
const NM_PACKAGES = [
  "typescript@5.9.3",
  "@types/node@24.10.1",
  "@modelcontextprotocol/sdk@1.32.2",
  "@modelcontextprotocol/server-filesystem@2026.8.31",
  "@modelcontextprotocol/server-everything",
  "lodash",
  "date-fns",
  "rxjs",
  "eslint",
  "webpack",
  "@babel/core",
  "prettier",
  "aws-sdk",
  "@angular/core",
  "zod",
];

const note = (text: string) => Deno.stderr.writeSync(new TextEncoder().encode(`${text}\n`));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function status(pid: number): { rss: number; hwm: number } {
  const text = Deno.readTextFileSync(`/proc/${pid}/status`);
  const mb = (key: string) =>
    Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(text)?.[1]) / 1024;
  return { rss: mb("VmRSS"), hwm: mb("VmHWM") };
}

/** Resets the peak resident size of `pid` to its current size (Linux ≥ 4.0). */
function resetPeak(pid: number): void {
  Deno.writeTextFileSync(`/proc/${pid}/clear_refs`, "5");
}

async function rg(args: string[], cwd: string): Promise<{ ms: number; mb: number }> {
  const t = performance.now();
  const out = await new Deno.Command("/usr/bin/time", {
    args: ["-f", "%M", "rg", ...RG_FLAGS, ...args],
    cwd,
    stdout: "null",
    stderr: "piped",
  }).output();
  const ms = performance.now() - t;
  const kb = Number(new TextDecoder().decode(out.stderr).trim().split("\n").pop());
  return { ms, mb: kb / 1024 };
}

interface Scenario {
  name: string;
  args: Record<string, unknown>;
  rg: string[];
}

function scenarios(generated: boolean): Scenario[] {
  const literal = generated ? "rare_needle_token" : "XMLHttpRequest";
  const names = generated ? "**/file-7.ts" : "**/package.json";
  return [
    { name: `literal \`${literal}\``, args: { content: literal }, rg: ["-F", "-e", literal, "."] },
    {
      name: "regex `\\d{7}[qxz]\\d{7}` (no literal)",
      args: { content: "\\d{7}[qxz]\\d{7}", regex: true },
      rg: ["-e", "\\d{7}[qxz]\\d{7}", "."],
    },
    { name: "recursive listing", args: {}, rg: ["--files"] },
    { name: `names \`${names}\``, args: { pattern: names }, rg: ["--files", "-g", names] },
    {
      name: "literal, no match",
      args: { content: "anchorfs_no_such_token_qq" },
      rg: ["-F", "-e", "anchorfs_no_such_token_qq", "."],
    },
  ];
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

async function ensureTree(kind: string, scratch: string, nodeModules?: string): Promise<string> {
  const corpus = new URL("./search_corpus.ts", import.meta.url).pathname;
  if (kind === "nm") {
    const dir = nodeModules ?? `${scratch}/node_modules_tree`;
    if (!await exists(`${dir}/node_modules`)) {
      await Deno.mkdir(dir, { recursive: true });
      await Deno.writeTextFile(`${dir}/package.json`, '{"name":"bench-tree","private":true}\n');
      note(`npm install into ${dir} ...`);
      const out = await new Deno.Command("npm", {
        args: ["install", "--ignore-scripts", "--no-audit", "--no-fund", ...NM_PACKAGES],
        cwd: dir,
        stdout: "null",
      }).output();
      if (!out.success) throw new Error("npm install failed");
    }
    return dir;
  }
  const count = kind === "1m" ? 1_000_000 : Number(kind.replace(/k$/, "000"));
  const dir = `${scratch}/small-${count}`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", corpus, "small", dir, String(count)],
    stdout: "null",
  }).output();
  if (!out.success) throw new Error(`search_corpus.ts small ${dir} failed`);
  return dir;
}

/** The tree's file count and one of its files (the idle row's first call views it). */
async function fileCount(dir: string): Promise<{ count: number; first: string }> {
  const out = await new Deno.Command("rg", {
    args: [...RG_FLAGS, "--files", "--sort", "path"],
    cwd: dir,
    stdout: "piped",
  }).output();
  const files = new TextDecoder().decode(out.stdout).split("\n").filter(Boolean);
  // A file, never ".": on a tree whose root holds only folders, `view .` was a listing of it
  // (the 1M tree's "idle" row read 121 MB).
  return { count: files.length, first: files[0] ?? "package.json" };
}

async function measureTree(
  label: string,
  dir: string,
  runs: number,
  main: string,
): Promise<string[]> {
  const { count: files, first } = await fileCount(dir);
  const server: TestServer = await startServer({
    client: "v1",
    args: ["--path", dir, "--deadline", "900"],
    main,
    // The server's V8 flags as a launcher would pass them (the harness runs a plain `deno run`).
    env: { DENO_V8_FLAGS: v8Flags },
  });
  const pid = server.pid!;
  const rows: string[] = [];
  try {
    await sleep(1000);
    const before = status(pid).rss;
    await server.call("view", { path: first });
    await sleep(3000);
    const idle = status(pid).rss;
    rows.push(
      `| ${label} | ${files.toLocaleString("en-US")} | idle: before the first call / 3 s after | ${
        before.toFixed(0)
      } / ${idle.toFixed(0)} | | | | | ${describeRegions(regions(pid))} |`,
    );
    let treePeak = 0;
    for (const s of scenarios(label !== "node_modules")) {
      const args = { path: ".", ...s.args };
      resetPeak(pid);
      const sampler = samplePeak(pid);
      // Warm-up (page cache, workers, JIT): a cold 1M tree takes longer than the default timeout.
      await server.client.callTool({ name: "view", arguments: args }, undefined, {
        timeout: 900_000,
      });
      const ours: number[] = [];
      const theirs: number[] = [];
      let rgPeak = 0;
      const n = files > 500_000 ? Math.min(runs, 3) : runs;
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        // The v1 client's request options are its third argument (the harness passes a schema).
        await server.client.callTool({ name: "view", arguments: args }, undefined, {
          timeout: 900_000,
        });
        ours.push(performance.now() - t);
        const r = await rg(s.rg, dir);
        theirs.push(r.ms);
        rgPeak = Math.max(rgPeak, r.mb);
      }
      const peak = status(pid).hwm;
      const at = sampler.stop();
      treePeak = Math.max(treePeak, peak);
      const o = median(ours);
      const f = median(theirs);
      rows.push(
        `| ${label} | ${files.toLocaleString("en-US")} | ${s.name} | ${peak.toFixed(0)} | ${
          o.toFixed(0)
        } | ${f.toFixed(0)} | ${(o / f).toFixed(2)}× | ${rgPeak.toFixed(0)} | ${
          at ? describeRegions(at) : ""
        } |`,
      );
      note(rows.at(-1)!);
    }
    rows.push(
      `| ${label} | ${files.toLocaleString("en-US")} | **peak of the tree** | **${
        treePeak.toFixed(0)
      }** | | | | | |`,
    );
  } finally {
    await server.close();
  }
  return rows;
}

/** Runs the tree table for `args` and prints it with machine, load and date. */
export async function treeMemory(args: string[], print: (text: string) => void): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      sizes: { type: "string", default: "100k,nm" },
      "node-modules": { type: "string" },
      scratch: { type: "string", default: "/tmp/anchorfs-memory-bench" },
      runs: { type: "string", default: "5" },
      // Another checkout's main.ts or bundle (e.g. main exported with `git archive`, built with
      // its bundle.ts) for a "before" table. Default: this checkout's bundle, as it ships.
      main: { type: "string" },
      // This checkout's main.ts run from source instead (the developer's `deno task mcp`).
      source: { type: "boolean", default: false },
    },
  });
  const main = values.main ?? (values.source ? MAIN_TS : await shippedBundle());
  const kinds = values.sizes!.split(",");
  const load = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
  const cpu = Deno.readTextFileSync("/proc/cpuinfo").match(/model name\s*:\s*(.*)/)?.[1] ?? "?";
  const loadBefore = load();
  const rows: string[] = [];
  for (const kind of kinds) {
    const dir = await ensureTree(kind, values.scratch!, values["node-modules"]);
    note(`${kind}: ${dir}`);
    const label = kind === "nm"
      ? "node_modules"
      : kind === "1m"
      ? "generated 1M"
      : `generated ${kind}`;
    rows.push(...await measureTree(label, dir, Number(values.runs), main));
  }
  print(
    `memory_bench --trees (sizes run: ${
      kinds.join(", ")
    }) on ${navigator.hardwareConcurrency} CPUs ` +
      `(${cpu}), Deno ${Deno.version.deno}, ${new Date().toISOString().slice(0, 16)} UTC, ` +
      `load ${loadBefore} → ${load()}; v1 client; server: ${
        describeServer(main, main.endsWith(".ts"))
      }; medians of ${values.runs} (3 past 500k files).\n`,
  );
  print(
    "| tree | files | scenario | server peak RSS (MB) | anchorfs (ms) | rg (ms) | ratio | rg peak RSS (MB) | at the peak (MB) |",
  );
  print("|---|---:|---|---:|---:|---:|---:|---:|---|");
  for (const row of rows) print(row);
}
