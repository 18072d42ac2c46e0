// Benchmark: what asking the disk about case costs (LocalBackend.learnCase, which Locations
// resolves through). A fresh backend probes a path's directory and every ancestor once ("cold"),
// a new file in a probed directory costs one stat, a known path nothing but a lookup.
// Usage: deno run -A scripts/bench/case_probe_bench.ts [RUNS]. Not a test: prints a Markdown table.

import { LocalBackend } from "../../lib/backends/local/local_backend.ts";

const runs = Number(Deno.args[0] ?? 200);
const enc = new TextEncoder();
const print = (text: string) => Deno.stdout.writeSync(enc.encode(`${text}\n`));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "anchorfs-case-bench-" }));
const deep = `${dir}/proj/src/lib/deep`;
await Deno.mkdir(deep, { recursive: true });
for (let i = 0; i < 2000; i++) await Deno.writeTextFile(`${deep}/File${i}.ts`, "x\n");
const depth = deep.split("/").length - 1;

async function time(fn: (i: number) => Promise<void>): Promise<number> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return median(out);
}

const cold = await time(async () => {
  const disk = new LocalBackend();
  await disk.learnCase(`${deep}/File1.ts`);
  await disk.close();
});
const warm = new LocalBackend();
await warm.learnCase(`${deep}/File0.ts`);
const newFile = await time((i) => warm.learnCase(`${deep}/File${(i % 1999) + 1}.ts`));
const known = await time(() => warm.learnCase(`${deep}/File0.ts`));
await warm.close();
await Deno.remove(dir, { recursive: true });

print(`| learnCase (median of ${runs}) | ms |\n|---|---|`);
print(`| cold: a file ${depth} directories deep (each probed once) | ${cold.toFixed(3)} |`);
print(`| a file not seen yet in a probed directory (one stat) | ${newFile.toFixed(3)} |`);
print(`| a path already seen | ${known.toFixed(4)} |`);
