// Load benchmark for `anchorfs mcp --http`: N concurrent 2025-era sessions (v1 SDK client over
// Streamable HTTP), each making M mixed calls (view of a file, a content search, an edit of its
// own file, a short shell command, a directory listing). Prints errors, median and p99 latency
// per call, and the server's RSS (peak while loaded, and after).
//
// Usage: deno run -A scripts/bench/http_load_bench.ts [sessions=32] [calls=50]
//        deno run -A scripts/bench/http_load_bench.ts --soak [--agents 200] [--minutes 10]
//        (the soak: agents coming and going, see scripts/bench/_http_soak.ts)

// deno-lint-ignore-file no-console

import { parseArgs } from "node:util";
import { startHttpServer } from "../../tests/mcp/http/_http_harness.ts";
import { runSoak } from "./_http_soak.ts";

if (Deno.args.includes("--soak")) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      soak: { type: "boolean" },
      agents: { type: "string", default: "200" },
      minutes: { type: "string", default: "10" },
    },
  });
  await runSoak({ agents: Number(values.agents), minutes: Number(values.minutes) });
  Deno.exit(0);
}

const sessions = Number(Deno.args[0] ?? 32);
const calls = Number(Deno.args[1] ?? 50);

function rssMiB(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "anchorfs-http-bench-" }));
for (let i = 0; i < 40; i++) {
  const lines = Array.from(
    { length: 200 },
    (_, n) => `line ${n} of file ${i}${n === 100 ? " needle" : ""}`,
  );
  await Deno.writeTextFile(`${dir}/f${i}.txt`, lines.join("\n") + "\n");
}
for (let s = 0; s < sessions; s++) await Deno.writeTextFile(`${dir}/own${s}.txt`, "value=0\n");

await using server = await startHttpServer({
  args: ["--path", dir, "--max-sessions", String(Math.max(64, sessions))],
});
const idleRss = rssMiB(server.pid);
const clients = await Promise.all(
  Array.from({ length: sessions }, () => server.connect("v1")),
);
let peakRss = rssMiB(server.pid);
const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMiB(server.pid))), 100);

type Latencies = Record<string, number[]>;
const newLatencies = (): Latencies => ({ view: [], search: [], edit: [], shell: [], list: [] });
const errors: string[] = [];

// deno-lint-ignore no-explicit-any
async function runSession(c: any, s: number, latencies: Latencies, value = 0): Promise<void> {
  for (let i = 0; i < calls; i++) {
    // Staggered by session so that every moment sees the mix (32 shells at once would meet the
    // process-wide limit of 16 running commands, by design).
    const kind = (["view", "search", "edit", "shell", "list"] as const)[(i + s) % 5]!;
    const [name, args] = kind === "view"
      ? ["view", { path: `f${(s + i) % 40}.txt`, start: 90, end: 110 }]
      : kind === "search"
      ? ["view", { path: ".", content: "needle" }]
      : kind === "edit"
      ? [
        "text_editor",
        {
          command: "str_replace",
          path: `own${s}.txt`,
          old_text: `value=${value}`,
          new_text: `value=${value + 1}`,
        },
      ]
      : kind === "shell"
      ? ["shell", { command: `echo session-${s}-call-${i}` }]
      : ["view", { path: "." }];
    const t0 = performance.now();
    try {
      const r = await c.call(name as string, args as Record<string, unknown>);
      if (r.isError) errors.push(`${kind}: ${r.text.slice(0, 200)}`);
      else if (kind === "edit") value++;
    } catch (e) {
      errors.push(`${kind}: ${(e as Error).message}`);
    }
    latencies[kind]!.push(performance.now() - t0);
  }
}

// Reference, same run: one session alone (session 0's file, which the load then continues).
const alone = newLatencies();
await runSession(clients[0], 0, alone);
const aloneAll = Object.values(alone).flat().sort((a, b) => a - b);
const latencies = newLatencies();
const started = performance.now();
await Promise.all(clients.map((c, s) => runSession(c, s, latencies, s === 0 ? calls / 5 : 0)));
const wall = performance.now() - started;
clearInterval(sampler);
// DELETE each session (a v1 client's close() alone leaves it to the idle timeout).
for (const c of clients) {
  await c.transport.terminateSession();
  await c.close();
}
await new Promise((r) => setTimeout(r, 2000));
const afterRss = rssMiB(server.pid);

const all = Object.values(latencies).flat().sort((a, b) => a - b);
console.log(
  `${sessions} sessions x ${calls} calls = ${all.length} calls in ${(wall / 1000).toFixed(1)} s`,
);
console.log(
  `reference, one session alone: median ${percentile(aloneAll, 0.5).toFixed(1)} ms, p99 ${
    percentile(aloneAll, 0.99).toFixed(1)
  } ms`,
);
console.log(`errors: ${errors.length}`);
for (const e of errors.slice(0, 5)) console.log(`  ${e}`);
console.log(
  `all calls: median ${percentile(all, 0.5).toFixed(1)} ms, p99 ${
    percentile(all, 0.99).toFixed(1)
  } ms`,
);
for (const [kind, list] of Object.entries(latencies)) {
  const sorted = list.sort((a, b) => a - b);
  console.log(
    `  ${kind.padEnd(6)} n=${sorted.length} median ${percentile(sorted, 0.5).toFixed(1)} ms, p99 ${
      percentile(sorted, 0.99).toFixed(1)
    } ms`,
  );
}
console.log(
  `server RSS: ${idleRss.toFixed(0)} MiB at start, ${peakRss.toFixed(0)} MiB peak, ${
    afterRss.toFixed(0)
  } MiB 2 s after every session was deleted`,
);
await Deno.remove(dir, { recursive: true });
