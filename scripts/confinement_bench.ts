// Benchmark: what the --allow check adds to a file tool call. Times `Locations.resolve` with and
// without a Confinement on local disk, in process, for an existing file, a file reached through a
// symlinked directory (refused), and a new file two levels below an existing directory.
// Usage: deno run -A scripts/confinement_bench.ts [RUNS]. Not a test: prints a Markdown table.

import { LocalBackend } from "../lib/backends/local/local_backend.ts";
import { Confinement } from "../lib/ops/confinement.ts";
import { Locations } from "../lib/ops/location.ts";

const runs = Number(Deno.args[0] ?? 2000);
const enc = new TextEncoder();
const print = (text: string) => Deno.stdout.writeSync(enc.encode(`${text}\n`));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "anchorfs-confine-bench-" }));
await Deno.mkdir(`${dir}/proj/src/deep`, { recursive: true });
await Deno.mkdir(`${dir}/outside`);
await Deno.writeTextFile(`${dir}/proj/src/deep/a.ts`, "export const a = 1;\n");
await Deno.writeTextFile(`${dir}/outside/s.txt`, "secret\n");
await Deno.symlink("../outside", `${dir}/proj/link`);
for (let i = 0; i < 200; i++) await Deno.writeTextFile(`${dir}/proj/f${i}.txt`, "x\n");

const plain = new Locations(new LocalBackend());
const confined = new Locations(new LocalBackend());
const start = confined.localAt(`${dir}/proj`);
confined.setGuard(
  await Confinement.create(confined, start, { allow: [`${dir}/proj`], roots: false }),
);

async function time(locations: Locations, raw: string): Promise<number> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await locations.resolve(raw, start).catch(() => {});
    out.push(performance.now() - t);
  }
  return median(out);
}

print(`| path | without --allow | with --allow |`);
print(`| --- | ---: | ---: |`);
for (
  const [label, raw] of [
    ["existing file", "src/deep/a.ts"],
    ["through a symlink out (refused)", "link/s.txt"],
    ["new file 2 levels below src", "src/new/dir/n.ts"],
  ] as const
) {
  const a = await time(plain, raw);
  const b = await time(confined, raw);
  print(`| ${label} | ${(a * 1000).toFixed(0)} µs | ${(b * 1000).toFixed(0)} µs |`);
}
await Deno.remove(dir, { recursive: true });
