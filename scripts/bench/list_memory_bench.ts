// Benchmark: the server's peak memory (VmHWM of `anchorfs mcp`, from /proc) while listing a big
// tree: one listing, a second one on the same server, then 10 at once. A listing shows 1,000 rows
// and only counts the rest, so its memory should not grow with the tree.
// Usage: deno run -A scripts/bench/list_memory_bench.ts [DIR] [--main path/to/main.ts] [--runs N]
// (Linux only; default DIR: /work/scratch-speed/small-100000). Not a test: prints a Markdown
// table; "idle" is the peak after a warm-up listing of the repo's lib/.

import { parseArgs } from "node:util";
import { REPO_ROOT, startServer } from "../../tests/_harness.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: { main: { type: "string" }, runs: { type: "string", default: "3" } },
});
const dir = positionals[0] ?? "/work/scratch-speed/small-100000";
const enc = new TextEncoder();
const print = (text: string) => Deno.stdout.writeSync(enc.encode(`${text}\n`));

function statusMb(pid: number, key: "VmRSS" | "VmHWM"): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1]) / 1024;
}

const loadNow = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");

/** One fresh server: idle RSS, then the peak after each step (VmHWM only grows). */
async function runOnce(): Promise<number[]> {
  await using server = await startServer({
    client: "v2",
    args: ["--path", dir],
    ...(values.main ? { main: values.main } : {}),
  });
  const pid = server.pid!;
  // Warm-up: a small listing (the repo's lib/), so first-use costs (code compiled, the FFI
  // library loaded, the shared read buffer) are not counted against the big tree.
  await server.call("view", { path: `${REPO_ROOT}/lib` });
  const idle = statusMb(pid, "VmHWM");
  const list = async () => {
    const r = await server.call("view", { path: dir }, { timeout: 600_000 });
    if (r.isError) throw new Error(r.text);
    return r.text;
  };
  const first = await list();
  const one = statusMb(pid, "VmHWM");
  await list();
  const two = statusMb(pid, "VmHWM");
  const t = performance.now();
  await Promise.all(Array.from({ length: 10 }, list));
  const tenMs = performance.now() - t;
  const ten = statusMb(pid, "VmHWM");
  const after = statusMb(pid, "VmRSS");
  print(`<!-- ${first.split("\n")[0]} -->`);
  return [idle, one, two, ten, after, tenMs];
}

print(`list_memory_bench of ${dir}, deno ${Deno.version.deno}, ${new Date().toISOString()}`);
print("");
print(
  "| run | idle (peak after warm-up) | peak after 1 listing | after a 2nd | after 10 at once | RSS after | 10 at once (s) | load |",
);
print("|---|---:|---:|---:|---:|---:|---:|---|");
for (let i = 1; i <= Number(values.runs); i++) {
  const [idle, one, two, ten, after, tenMs] = await runOnce();
  const mb = (n: number) => n.toFixed(0);
  print(
    `| ${i} | ${mb(idle!)} | ${mb(one!)} | ${mb(two!)} | ${mb(ten!)} | ${mb(after!)} | ${
      (tenMs! / 1000).toFixed(1)
    } | ${loadNow()} |`,
  );
}
