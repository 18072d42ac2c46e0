// Benchmark: `view` of a 50,000-line file through the real MCP round trip (v2 client over stdio
// to `deno run -A main.ts mcp`) vs `cat` of the same file, measured in one run.
// Usage: deno run -A scripts/bench/view_bench.ts [RUNS]. Not a test: prints a Markdown table.

import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const runs = Number(Deno.args[0] ?? 30);
const enc = new TextEncoder();
const print = (text: string) => Deno.stdout.writeSync(enc.encode(`${text}\n`));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dir = await Deno.makeTempDir({ prefix: "anchorfs-view-bench-" });
const file = `${dir}/big.ts`;
const lines = Array.from(
  { length: 50_000 },
  (_, i) => `export const value${i} = computeSomething(${i}, "label ${i}"); // line ${i + 1}`,
);
await Deno.writeTextFile(file, lines.join("\n") + "\n");
const size = (await Deno.stat(file)).size;

const root = new URL("../..", import.meta.url).pathname;
const env: Record<string, string> = {};
for (const k of ["HOME", "PATH", "DENO_DIR"]) if (Deno.env.get(k)) env[k] = Deno.env.get(k)!;
const transport = new StdioClientTransport({
  command: Deno.execPath(),
  args: ["run", "-A", "--quiet", `${root}main.ts`, "mcp", "--path", dir],
  env,
});
const client = new Client({ name: "view-bench", version: "1" }, {
  capabilities: {},
  versionNegotiation: { mode: { pin: "2026-07-28" } },
});
await client.connect(transport);

async function timeCall(args: Record<string, unknown>): Promise<{ ms: number; chars: number }[]> {
  const out = [];
  await client.callTool({ name: "view", arguments: args }); // warm-up
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const r = await client.callTool({ name: "view", arguments: args });
    // deno-lint-ignore no-explicit-any
    const text = (r.content as any[])[0].text as string;
    out.push({ ms: performance.now() - t, chars: text.length });
  }
  return out;
}

async function timeCat(args: string[]): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await new Deno.Command("cat", { args, stdout: "piped" }).output();
    out.push(performance.now() - t);
  }
  return out;
}

const cases = [
  { name: "first page (default view)", args: { path: "big.ts" } },
  { name: "last page (start -2000)", args: { path: "big.ts", start: -2000 } },
  { name: "range 25000-25100", args: { path: "big.ts", start: 25_000, end: 25_100 } },
];
const cat = median(await timeCat([file]));
print(
  `File: 50,000 lines, ${(size / 1024 / 1024).toFixed(1)} MB; ${runs} runs each, medians in ms; ` +
    `cat = spawning \`cat\` on the whole file and reading its output: ${cat.toFixed(1)} ms.\n`,
);
print("| view call | MCP round trip | chars returned | ratio to cat |");
print("|---|---|---|---|");
for (const c of cases) {
  const results = await timeCall(c.args);
  const ms = median(results.map((r) => r.ms));
  print(
    `| ${c.name} | ${ms.toFixed(1)} | ${results[0]!.chars.toLocaleString("en-US")} | ${
      (ms / cat).toFixed(2)
    }× |`,
  );
}
await client.close();
await Deno.remove(dir, { recursive: true });
