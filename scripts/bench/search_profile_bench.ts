// Benchmark for issue 26: where one search's time and garbage go, through the real server. A fresh
// `anchorfs mcp` (a checkout's main.ts or a bundle, run as the launchers run them) answers RUNS
// warm calls of the same search, three times over: (1) per-thread CPU from /proc/PID/task/*/stat
// (the main thread, V8's helper threads, each search worker) beside the call's wall time and the
// process's peak RSS; (2) the main isolate's CPU profile (inspector, 200 µs sampling), top self
// times; (3) its sampling heap profile with collected objects kept: the bytes allocated per
// call, by function. Then ripgrep's wall and CPU time for the same search. Linux only. Not a test.
// Usage: deno run -A scripts/bench/search_profile_bench.ts --path DIR [--content TEXT] [--regex]
//   [--runs 10] [--main main.ts|dist/anchorfs.js] [--top 15] [--promoted: only the bytes that
//   outlived V8's young generation, which the full collections then find dead] [--callers]

// The inspector's replies are untyped JSON, read field by field.
// deno-lint-ignore-file no-explicit-any

import { parseArgs } from "node:util";
import { RUNTIME_FLAGS } from "../release/compile.ts";
import { MAIN_TS } from "../../tests/_harness.ts";
import { LineClient } from "./_memory_idle.ts";

const { values: opts } = parseArgs({
  args: Deno.args,
  options: {
    path: { type: "string" },
    content: { type: "string", default: "XMLHttpRequest" },
    regex: { type: "boolean", default: false },
    runs: { type: "string", default: "10" },
    main: { type: "string", default: MAIN_TS },
    top: { type: "string", default: "15" },
    promoted: { type: "boolean", default: false },
    callers: { type: "boolean", default: false },
  },
});
if (!opts.path) {
  throw new Error("--path DIR: the tree to search (e.g. memory_bench's node_modules)");
}
const runs = Number(opts.runs);
const top = Number(opts.top);
const args = { path: opts.path, content: opts.content, ...(opts.regex && { regex: true }) };
const enc = new TextEncoder();
const print = (text: string) => Deno.stdout.writeSync(enc.encode(`${text}\n`));
const PORT = 9339;

/** A fresh server with the inspector on PORT, `initialize`d, with three warm-up calls made. */
async function startWarm(): Promise<LineClient> {
  const main = opts.main!;
  const bundle = main.endsWith(".js") ? ["--no-config", "--no-lock"] : [];
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", `--inspect=127.0.0.1:${PORT}`, ...bundle, ...RUNTIME_FLAGS, main, "mcp"],
    env: { DENO_NO_UPDATE_CHECK: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const client = new LineClient(child);
  await client.send("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "search-profile-bench", version: "1" },
  });
  client.notify("notifications/initialized");
  for (let i = 0; i < 3; i++) await call(client);
  return client;
}

async function call(client: LineClient): Promise<void> {
  const reply = await client.send("tools/call", { name: "view", arguments: args }) as {
    result?: { isError?: boolean; content: { text: string }[] };
  };
  if (!reply.result || reply.result.isError) {
    throw new Error(`the search failed: ${JSON.stringify(reply).slice(0, 400)}`);
  }
}

/** CPU ticks (utime + stime, 10 ms each) per thread name, summed over threads of one name. */
function threadTicks(pid: number): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const t of Deno.readDirSync(`/proc/${pid}/task`)) {
    try {
      const stat = Deno.readTextFileSync(`/proc/${pid}/task/${t.name}/stat`);
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks.set(`${t.name} ${name}`, Number(fields[11]) + Number(fields[12]));
    } catch { /* the thread ended */ }
  }
  return ticks;
}

/** A Chrome DevTools Protocol session on the server's main isolate. */
async function inspector(): Promise<
  { send: (m: string, p?: unknown) => Promise<any>; close(): void }
> {
  const targets = await (await fetch(`http://127.0.0.1:${PORT}/json`)).json();
  const ws = new WebSocket(targets[0].webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  let next = 1;
  const waiting = new Map<number, (result: unknown) => void>();
  ws.onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (m.id) waiting.get(m.id)?.(m.result), waiting.delete(m.id);
  };
  return {
    send: (method, params = {}) =>
      new Promise<any>((resolve) => {
        const id = next++;
        waiting.set(id, resolve);
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}

interface Frame {
  callFrame: { functionName: string; url: string };
}
const label = (n: Frame) =>
  `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.split("/").pop() || "(native)"}`;

function topRows(totals: Map<string, number>, unit: (v: number) => string): string[] {
  return [...totals.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)
    .map(([k, v]) => `| ${k} | ${unit(v)} |`);
}

async function timed(client: LineClient): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < runs; i++) await call(client);
  return (performance.now() - start) / runs;
}

async function threads(): Promise<void> {
  const client = await startWarm();
  const pid = client.child.pid;
  const before = threadTicks(pid);
  const wall = await timed(client);
  const after = threadTicks(pid);
  const byName = new Map<string, number>();
  for (const [key, ticks] of after) {
    const name = key.slice(key.indexOf(" ") + 1);
    const spent = (ticks - (before.get(key) ?? 0)) * 10 / runs;
    if (spent > 0) byName.set(name, (byName.get(name) ?? 0) + spent);
  }
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const hwm = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]) / 1024;
  await client.close();
  print(`\nper call: ${wall.toFixed(0)} ms wall, peak RSS ${hwm.toFixed(0)} MB; CPU by thread:\n`);
  print("| thread | CPU ms per call |\n|---|---:|");
  for (const row of topRows(byName, (v) => v.toFixed(0))) print(row);
}

/**
 * A fresh warm server's RUNS calls with one of the inspector's profilers running: `begin` (method
 * and parameters, in order) starts it, `end` stops it and returns its profile. Returns the profile
 * and the wall time per call.
 */
async function profiled(
  begin: [string, Record<string, unknown>?][],
  end: string,
): Promise<{ profile: any; wall: number }> {
  const client = await startWarm();
  const cdp = await inspector();
  for (const [method, params] of begin) await cdp.send(method, params);
  const wall = await timed(client);
  const { profile } = await cdp.send(end);
  cdp.close();
  await client.close();
  return { profile, wall };
}

async function cpuProfile(): Promise<void> {
  const { profile, wall } = await profiled(
    [["Profiler.enable"], ["Profiler.setSamplingInterval", { interval: 200 }], ["Profiler.start"]],
    "Profiler.stop",
  );
  const nodes = new Map<number, Frame>(profile.nodes.map((n: Frame & { id: number }) => [n.id, n]));
  const self = new Map<string, number>();
  profile.samples.forEach((id: number, i: number) => {
    const key = label(nodes.get(id)!);
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000 / runs);
  });
  print(`\nmain isolate, CPU profile (${wall.toFixed(0)} ms a call):\n`);
  print("| function | self ms per call |\n|---|---:|");
  for (const row of topRows(self, (v) => v.toFixed(1))) print(row);
}

async function heapProfile(): Promise<void> {
  const { profile } = await profiled(
    [["HeapProfiler.enable"], [
      "HeapProfiler.startSampling",
      {
        samplingInterval: 4096,
        includeObjectsCollectedByMajorGC: true,
        // --promoted: what a scavenge collected is dropped, so only what outlived the young
        // generation is left: what the next full collection has to find dead.
        includeObjectsCollectedByMinorGC: !opts.promoted,
      },
    ]],
    "HeapProfiler.stopSampling",
  );
  const self = new Map<string, number>();
  // --callers: each function with the callers that led to it (up to three), not alone.
  const depth = opts.callers ? 3 : 0;
  const visit = (n: Frame & { selfSize: number; children: unknown[] }, callers: string[]) => {
    const key = [label(n), ...callers.slice(0, depth)].join(" ← ");
    self.set(key, (self.get(key) ?? 0) + n.selfSize / runs);
    for (const c of n.children) visit(c as typeof n, [label(n), ...callers]);
  };
  visit(profile.head, []);
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  print(
    `\nmain isolate, ${
      opts.promoted ? "outlived the young generation" : "allocated"
    } per call (sampled, collected objects kept): ${(total / 1048576).toFixed(1)} MB\n`,
  );
  print("| function | KB per call |\n|---|---:|");
  for (const row of topRows(self, (v) => (v / 1024).toFixed(0))) print(row);
}

async function ripgrep(): Promise<void> {
  const rgArgs = [...(opts.regex ? ["-e"] : ["-F", "-e"]), opts.content!, opts.path!];
  let wall = 0, cpu = 0;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const out = await new Deno.Command("/usr/bin/time", {
      args: ["-f", "%U %S", "rg", ...rgArgs],
      stdout: "null",
      stderr: "piped",
    }).output();
    wall += performance.now() - start;
    const [user, sys] = new TextDecoder().decode(out.stderr).trim().split("\n").pop()!.split(" ");
    cpu += (Number(user) + Number(sys)) * 1000;
  }
  print(`\nrg: ${(wall / runs).toFixed(0)} ms wall, ${(cpu / runs).toFixed(0)} ms CPU per search`);
}

print(
  `search_profile_bench: ${JSON.stringify(args)}, ${runs} warm calls, server ${opts.main}, ` +
    `${new Date().toISOString().slice(0, 16)} UTC, load ${Deno.loadavg().join(" ")}`,
);
await threads();
await cpuProfile();
await heapProfile();
await ripgrep();
