// Benchmark for issue 16 (concurrency): N content searches sent at once to one real server (v2
// client over stdio, as scripts/bench/search_speed_bench.ts), on a directory of 100,000 empty files and
// on an installed node_modules tree; wall time of each call, the total, the server's peak RSS
// (VmHWM, reset before each row) and its RSS once idle. Not a test. Usage:
//   deno run -A scripts/bench/search_concurrency_bench.ts [--many DIR] [--node-modules DIR]
//     [--n 1,2,4,10] [--idle 3] [--compare CHECKOUT] [--compare-n 1,2,4] [--decode]
//     [--write FILE]
// --many is created (100,000 empty files and one holding "hello") when missing. --compare runs
// the server of another checkout (e.g. main exported with `git archive`) on the same rows, one
// after the other, for a "before" column.

import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { V8_FLAGS as LAUNCH_V8_FLAGS } from "../release/compile.ts";

const { values: opts } = parseArgs({
  args: Deno.args,
  options: {
    many: { type: "string", default: "/tmp/anchorfs-concurrency-many" },
    "node-modules": { type: "string" },
    n: { type: "string", default: "1,2,4,10" },
    idle: { type: "string", default: "3" },
    compare: { type: "string" },
    "compare-n": { type: "string" },
    // Adds a node_modules row whose search decodes every file (a regex without a literal).
    decode: { type: "boolean", default: false },
    write: { type: "string" },
  },
});
const enc = new TextEncoder();
const note = (text: string) => Deno.stderr.writeSync(enc.encode(`${text}\n`));
const root = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
// The launchers' V8 flags (scripts/release/compile.ts), as the benches measure the server.
const V8_FLAGS = `--v8-flags=${LAUNCH_V8_FLAGS}`;

interface Server {
  pid: number;
  call(args: Record<string, unknown>): Promise<{ ms: number; text: string }>;
  close(): Promise<void>;
}

async function start(dir: string, checkout: string): Promise<Server> {
  const env: Record<string, string> = {};
  for (const k of ["HOME", "PATH", "DENO_DIR"]) if (Deno.env.get(k)) env[k] = Deno.env.get(k)!;
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: [
      "run",
      "-A",
      "--quiet",
      `--config=${checkout}/deno.json`,
      V8_FLAGS,
      `${checkout}/main.ts`,
      "mcp",
      "--path",
      dir,
      "--deadline",
      "900",
    ],
    env,
    stderr: "ignore",
  });
  const client = new Client({ name: "search-concurrency-bench", version: "1" }, {
    capabilities: {},
  });
  await client.connect(transport);
  return {
    pid: transport.pid!,
    async call(args) {
      const t = performance.now();
      const r = await client.callTool({ name: "view", arguments: args }, { timeout: 900_000 });
      // deno-lint-ignore no-explicit-any
      const text = ((r.content as any[])[0]?.text as string | undefined) ?? "";
      if (r.isError) note(`view ${JSON.stringify(args)} → error: ${text.slice(0, 200)}`);
      return { ms: performance.now() - t, text };
    },
    close: () => client.close(),
  };
}

/** Peak and current RSS of a process, MB (Linux /proc). */
function memory(pid: number): { hwm: number; rss: number } {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1]);
  return { hwm: kb("VmHWM") / 1024, rss: kb("VmRSS") / 1024 };
}

/** CPU seconds the process used so far (user + system, Linux /proc). */
function cpuSeconds(pid: number): number {
  const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Resets the peak (VmHWM) to the current RSS (Linux; a no-op where not allowed). */
function resetPeak(pid: number): void {
  try {
    Deno.writeTextFileSync(`/proc/${pid}/clear_refs`, "5");
  } catch { /* the peak then only grows */ }
}

async function ensureMany(dir: string): Promise<void> {
  if (await Deno.stat(`${dir}/99999.txt`).then(() => true, () => false)) return;
  note(`creating 100,000 empty files in ${dir} ...`);
  await Deno.mkdir(dir, { recursive: true });
  for (let i = 1; i <= 100_000; i++) {
    (await Deno.open(`${dir}/${i}.txt`, { create: true, write: true })).close();
  }
  await Deno.writeTextFile(`${dir}/1.txt`, "hello\n");
}

const loadNow = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One row per N: the N calls sent at once, each call's time, the total, peak and idle RSS. */
async function rows(
  label: string,
  dir: string,
  args: Record<string, unknown>,
  checkout: string,
  counts: string,
) {
  const server = await start(dir, checkout);
  const out: string[] = [];
  try {
    const first = await server.call(args); // warm-up: page cache, workers, JIT
    note(`${label} [${checkout}]: ${first.text.split("\n").at(-1)?.slice(0, 100)}`);
    for (const n of counts.split(",").map(Number)) {
      resetPeak(server.pid);
      const load = loadNow();
      const cpu = cpuSeconds(server.pid);
      const t = performance.now();
      const calls = await Promise.all(Array.from({ length: n }, () => server.call(args)));
      const total = performance.now() - t;
      const peak = memory(server.pid).hwm;
      const used = cpuSeconds(server.pid) - cpu;
      const texts = new Set(calls.map((c) => c.text.replace(/\d+(\.\d+)? ?m?s\b/g, "")));
      await sleep(Number(opts.idle) * 1000);
      const idle = memory(server.pid).rss;
      const ms = calls.map((c) => c.ms).sort((a, b) => a - b);
      out.push(
        `| ${label} | ${n} | ${ms[0]!.toFixed(0)} / ${ms.at(-1)!.toFixed(0)} | ${
          total.toFixed(0)
        } | ${(total / n).toFixed(0)} | ${used.toFixed(1)} | ${peak.toFixed(0)} | ${
          idle.toFixed(0)
        } | ${load} |${texts.size === 1 ? "" : " results differ"}`,
      );
      note(out.at(-1)!);
    }
  } finally {
    await server.close();
  }
  return out;
}

await ensureMany(opts.many!);
const trees: [string, string, Record<string, unknown>][] = [
  ["100k empty files, `hello`", opts.many!, { path: ".", content: "hello" }],
];
if (opts["node-modules"]) {
  trees.push([
    "node_modules 70k, literal no match",
    opts["node-modules"],
    { path: ".", content: "anchorfs_no_such_token_qq" },
  ]);
}
if (opts["node-modules"] && opts.decode) {
  trees.push([
    "node_modules 70k, regex `\\d{7}[qxz]\\d{7}` (decodes every file)",
    opts["node-modules"],
    { path: ".", content: "\\d{7}[qxz]\\d{7}", regex: true },
  ]);
}
const checkouts: [string, string][] = [["this checkout", root]];
if (opts.compare) checkouts.unshift(["before", opts.compare.replace(/\/$/, "")]);
const sections: string[] = [];
for (const [name, checkout] of checkouts) {
  const counts = checkout === root ? opts.n! : opts["compare-n"] ?? opts.n!;
  const lines: string[] = [];
  for (const [label, dir, args] of trees) {
    lines.push(...await rows(label, dir, args, checkout, counts));
  }
  sections.push(
    `${name} (\`${checkout === root ? "HEAD" : checkout}\`):\n\n` +
      `| tree, search | N at once | fastest / slowest call (ms) | total (ms) | total / N | server CPU (s) | peak RSS (MB) | RSS ${opts.idle} s idle (MB) | load before |\n` +
      `|---|---|---|---|---|---|---|---|---|\n${lines.join("\n")}`,
  );
}
const cpu = Deno.readTextFileSync("/proc/cpuinfo").match(/model name\s*:\s*(.*)/)?.[1] ?? "?";
const text = `### Concurrent content searches (\`scripts/bench/search_concurrency_bench.ts\`)\n\n` +
  `Machine: ${navigator.hardwareConcurrency} CPUs (${cpu}), Deno ${Deno.version.deno}; ${
    new Date().toISOString().slice(0, 16).replace("T", " ")
  } UTC.\n\n${sections.join("\n\n")}\n`;
Deno.stdout.writeSync(enc.encode(text));
if (opts.write) await Deno.writeTextFile(opts.write, `\n${text}`, { append: true });
