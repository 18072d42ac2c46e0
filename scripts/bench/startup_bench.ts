// Benchmark: spawn → `initialize` answered, for `deno run main.ts mcp`, the bundle
// (dist/anchorfs.js, what the npm package and the binaries run), a bare `deno run` of a one-line
// script (the floor: Deno's own start), and @modelcontextprotocol/server-filesystem for
// comparison, interleaved in the same run. Writes the initialize request (then `initialized` and
// tools/list) at spawn and times the first complete line on stdout (the initialize reply), and the
// tools/list reply (the server fully loaded). Not a test: prints a Markdown table.
//
// Usage: deno run -A scripts/bench/startup_bench.ts [--runs N] [--compare OTHER_BUNDLE.js]
//   (builds the bundle first; --compare adds another bundle, e.g. one built from an older commit)

import { parseArgs } from "node:util";
import { bundle } from "../release/bundle.ts";

const { values } = parseArgs({
  options: { runs: { type: "string", default: "15" }, compare: { type: "string" } },
});
const runs = Number(values.runs);
const root = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const enc = new TextEncoder();
const print = (text: string) => Deno.stdout.writeSync(enc.encode(`${text}\n`));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const work = await Deno.makeTempDir({ prefix: "anchorfs-startup-bench-" });
const bundleFile = `${work}/anchorfs.js`;
await bundle(bundleFile);
const bare = `${work}/bare.js`;
// The floor: a process that answers one line as soon as it starts.
await Deno.writeTextFile(bare, `console.log('{"jsonrpc":"2.0","id":0,"result":{}}');\n`);

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "startup-bench", version: "1" },
  },
}) + "\n";
const THEN_TOOLS = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n" +
  JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) + "\n";

const FLAGS = ["run", "-A", "--no-config", "--no-lock", "--quiet"];
const cases: { name: string; args: string[] }[] = [
  { name: "bare `deno run` of a one-line script", args: [...FLAGS, bare] },
  { name: "`deno run main.ts mcp`", args: ["run", "-A", "--quiet", `${root}/main.ts`, "mcp"] },
  { name: "bundle `deno run dist/anchorfs.js mcp`", args: [...FLAGS, bundleFile, "mcp"] },
  ...(values.compare
    ? [{
      name: `bundle ${values.compare.split("/").pop()}`,
      args: [...FLAGS, values.compare, "mcp"],
    }]
    : []),
  {
    name: "server-filesystem 2026.8.31 (`deno run npm:…`)",
    args: [...FLAGS, "npm:@modelcontextprotocol/server-filesystem@2026.8.31", work],
  },
];

/**
 * Milliseconds from spawn to the first full line on stdout and to the tools/list reply (NaN if
 * the process fails; the bare script answers no tools/list).
 */
async function once(args: string[]): Promise<{ first: number; tools: number }> {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: work,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
    env: { DENO_NO_UPDATE_CHECK: "1" },
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(enc.encode(INITIALIZE + THEN_TOOLS));
  let text = "";
  let first = NaN;
  let tools = NaN;
  const dec = new TextDecoder();
  let lines = 0;
  for await (const chunk of child.stdout) {
    text += dec.decode(chunk, { stream: true });
    const complete = text.split("\n").slice(0, -1);
    if (complete.length > 0 && Number.isNaN(first)) first = performance.now() - started;
    // The bare script answers one line; a server then answers tools/list (id 1).
    if (args.includes(bare) && complete.length > 0) break;
    if (complete.slice(lines).some((l) => (JSON.parse(l) as { id?: unknown }).id === 1)) {
      tools = performance.now() - started;
      break;
    }
    lines = complete.length;
  }
  await writer.close().catch(() => {});
  try {
    child.kill("SIGTERM");
  } catch { /* already gone */ }
  await child.status;
  await child.stdout.cancel().catch(() => {});
  return { first: text.includes('"result"') ? first : NaN, tools };
}

// Warm-up: compile caches, npm downloads for server-filesystem.
for (const c of cases) await once(c.args);
const times = cases.map(() => [] as number[]);
const toolTimes = cases.map(() => [] as number[]);
for (let i = 0; i < runs; i++) {
  for (const [j, c] of cases.entries()) {
    const t = await once(c.args);
    times[j]!.push(t.first);
    toolTimes[j]!.push(t.tools);
  }
}
const floor = median(times[0]!);
print(`| case | initialize: median ms | min ms | × bare deno run | tools/list: median ms |`);
print(`| --- | ---: | ---: | ---: | ---: |`);
for (const [j, c] of cases.entries()) {
  const ok = times[j]!.filter((t) => !Number.isNaN(t));
  if (ok.length === 0) {
    print(`| ${c.name} | failed | | | |`);
    continue;
  }
  const m = median(ok);
  const tools = toolTimes[j]!.filter((t) => !Number.isNaN(t));
  print(
    `| ${c.name} | ${m.toFixed(0)} | ${Math.min(...ok).toFixed(0)} | ${(m / floor).toFixed(1)} | ${
      tools.length > 0 ? median(tools).toFixed(0) : "–"
    } |`,
  );
}
print(
  `\n${runs} runs each, interleaved; load average ${
    Deno.loadavg().map((l) => l.toFixed(1)).join(" ")
  }`,
);
await Deno.remove(work, { recursive: true });
