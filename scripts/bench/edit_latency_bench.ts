// Edit latency through the real MCP round trip: a single-line batch_edit and a str_replace on a
// 100,000-line file, median of many runs, next to references measured in the same run (an empty
// tool round trip, a one-line view, and a plain read+write of the same file without MCP).
//
//   deno run -A scripts/bench/edit_latency_bench.ts [--lines 100000] [--runs 31]

import { parseArgs } from "node:util";
import { startServer, tempDir } from "../../tests/_harness.ts";

const enc = new TextEncoder();
const print = (text: string) => Deno.stdout.writeSync(enc.encode(`${text}\n`));

function stats(samples: number[]): { median: number; p90: number } {
  const s = samples.slice().sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)]!, p90: s[Math.floor(s.length * 0.9)]! };
}

async function time(runs: number, body: (i: number) => Promise<void>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await body(i);
    out.push(performance.now() - t);
  }
  return out;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      lines: { type: "string", default: "100000" },
      runs: { type: "string", default: "31" },
    },
  });
  const lineCount = Number(values.lines);
  const runs = Number(values.runs);
  await using dir = await tempDir("anchorfs-edit-bench-");
  const path = `${dir.path}/big.ts`;
  const lines = Array.from({ length: lineCount }, (_, i) => `const line${i + 1} = ${i + 1};`);
  await Deno.writeTextFile(path, lines.join("\n") + "\n");
  const size = (await Deno.stat(path)).size;
  await using server = await startServer({ client: "v2", args: ["--path", dir.path] });

  const call = async (tool: string, args: Record<string, unknown>) => {
    const r = await server.call(tool, args);
    if (r.isError) throw new Error(`${tool} failed: ${r.text}`);
    return r.text;
  };
  // Warm up every path once.
  await call("workdir", { action: "get" });
  const target = Math.floor(lineCount / 2);
  let viewText = await call("view", { path: "big.ts", start: target, end: target });
  const idOf = (text: string, n: number) => {
    const m = new RegExp(`^[ +]?(${n}:[0-9a-f]{2})\\|`, "m").exec(text);
    if (!m) throw new Error(`no id for line ${n} in:\n${text}`);
    return m[1]!;
  };

  const rtt = await time(runs, async () => {
    await call("workdir", { action: "get" });
  });
  const view = await time(runs, async () => {
    viewText = await call("view", { path: "big.ts", start: target, end: target });
  });
  let id = idOf(viewText, target);
  const batch = await time(runs, async (i) => {
    const text = await call("batch_edit", {
      path: "big.ts",
      operations: [{
        op: "replace",
        start: id,
        // A new value each time: putting back what the last edit replaced is refused as a
        // revert (batch_edit's allow_repeat), which is not what this measures.
        content: `const line${target} = ${target * 10 + i + 1};`,
      }],
    });
    id = idOf(text, target); // the next edit uses the id from this result only
  });
  const other = Math.floor(lineCount * 0.6);
  let value = other;
  const strReplace = await time(runs, async (i) => {
    const next = other * 10 + i + 1;
    await call("text_editor", {
      command: "str_replace",
      path: "big.ts",
      old_text: `const line${other} = ${value};`,
      new_text: `const line${other} = ${next};`,
    });
    value = next;
  });
  // Reference without MCP: read, decode, replace one line, encode, write (what any edit must do).
  const raw = await time(runs, async (i) => {
    const text = new TextDecoder().decode(await Deno.readFile(path));
    const line = `const line${other + 1} = `;
    const next = text.replace(line, i % 2 ? line : `${line}-`);
    await Deno.writeFile(`${path}.tmp`, enc.encode(next));
    await Deno.rename(`${path}.tmp`, `${path}.copy`);
  });
  await Deno.remove(`${path}.copy`).catch(() => {});

  const cpu = (() => {
    try {
      const info = Deno.readTextFileSync("/proc/cpuinfo");
      return /model name\s*:\s*(.*)/.exec(info)?.[1] ?? "unknown CPU";
    } catch {
      return "unknown CPU";
    }
  })();
  const rows: [string, number[]][] = [
    ["empty tool round trip (workdir get)", rtt],
    ["view of one line", view],
    ["batch_edit, one line replaced", batch],
    ["text_editor str_replace, one line", strReplace],
    ["plain read + decode + write + rename, no MCP", raw],
  ];
  const ref = stats(raw).median;
  print(
    `${lineCount.toLocaleString("en-US")}-line file (${
      (size / 1e6).toFixed(1)
    } MB), ${runs} runs each, ${navigator.hardwareConcurrency} CPUs (${cpu}), ${
      new Date().toISOString()
    }`,
  );
  print("");
  print("| operation | median ms | p90 ms | median vs plain read+write |");
  print("|---|---:|---:|---:|");
  for (const [name, samples] of rows) {
    const s = stats(samples);
    print(
      `| ${name} | ${s.median.toFixed(1)} | ${s.p90.toFixed(1)} | ${
        (s.median / ref).toFixed(1)
      }x |`,
    );
  }
}
