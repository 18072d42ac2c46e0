// Benchmark: judgeCommand (pure parse + rules, in process) on typical and large command lines vs
// `bash -n` (bash only parsing the same line, spawned per line) measured in the same run.
// Usage: deno run -A scripts/bench/shell_policy_bench.ts [RUNS]. Not a test: prints a Markdown table.

import { judgeCommand } from "../../lib/core/shell/policy/mod.ts";

const runs = Number(Deno.args[0] ?? 200);
const enc = new TextEncoder();
const print = (text: string) => Deno.stdout.writeSync(enc.encode(`${text}\n`));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const LINES: Record<string, string> = {
  "typical (pipeline)": "cargo build 2>&1 | grep error",
  "refused grep over ssh":
    "ssh -p 2222 -o StrictHostKeyChecking=no box 'cd /x && grep -rn TODO --include=*.ts .'",
  "script (loop, if, $( ))":
    'for f in $(git ls-files "*.ts"); do if [ -s "$f" ]; then wc -l "$f"; fi; done | sort -n',
  "200 KB word": `echo begin; : ${"x".repeat(200 * 1024)}; echo end`,
  "2 MB heredoc": "cat <<'EOF' > big.txt\n" + "data $(x) `y` ; | &\n".repeat(100_000) + "EOF",
  "5,000 commands": Array.from({ length: 5000 }, (_, i) => `make t${i}`).join(" && "),
};

function timeJudge(line: string, n: number): number {
  judgeCommand(line); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    judgeCommand(line);
    samples.push(performance.now() - t);
  }
  return median(samples);
}

async function timeBashN(line: string, n: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    // The script goes through stdin: a single argument is capped at 128 KB by the kernel.
    const child = new Deno.Command("bash", {
      args: ["-n"],
      stdin: "piped",
      stdout: "null",
      stderr: "null",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(enc.encode(line));
    await writer.close();
    const out = await child.output();
    samples.push(performance.now() - t);
    if (!out.success) throw new Error(`bash -n rejected the line: ${line.slice(0, 60)}`);
  }
  return median(samples);
}

print(`Machine: ${Deno.build.os} ${Deno.build.arch}, ${navigator.hardwareConcurrency} CPUs`);
print(`Runs per line: ${runs} (judgeCommand), ${Math.min(runs, 50)} (bash -n)\n`);
print("| line | chars | judgeCommand median | bash -n median | ratio |");
print("|---|---:|---:|---:|---:|");
for (const [name, line] of Object.entries(LINES)) {
  const ours = timeJudge(line, line.length > 100_000 ? Math.min(runs, 30) : runs);
  const bash = await timeBashN(line, Math.min(runs, 50));
  const fmt = (ms: number) => ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(1)} ms`;
  print(
    `| ${name} | ${line.length} | ${fmt(ours)} | ${fmt(bash)} | ${(bash / ours).toFixed(1)}× |`,
  );
}
