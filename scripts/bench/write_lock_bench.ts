// What the write path's safety costs: taking and releasing the cross-process write lock (a
// folder's flock, a lock file beside the target, and the per-user lock folder of a base checkout),
// and an edit's write with its content check (swap and late look here, rename in the base), median
// of many runs (the lower of two passes for the locks), one process, no contention.
//
//   deno run -A scripts/bench/write_lock_bench.ts [--runs 400] [--base PATH/TO/CHECKOUT]

import { parseArgs } from "node:util";
import { LocalWriteLocks } from "../../lib/backends/local/write_lock.ts";
import { LocalBackend } from "../../lib/backends/local/local_backend.ts";

const enc = new TextEncoder();
const print = (text: string) => Deno.stdout.writeSync(enc.encode(`${text}\n`));

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "400" }, base: { type: "string" } },
});
const runs = Number(values.runs);

function median(samples: number[]): number {
  return samples.slice().sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;
}

type Locks = { run(p: string, b: () => Promise<void>): Promise<void> };

/** The lower median of two passes (the first pass of a kind is sometimes much slower). */
async function timeLocks(locks: Locks) {
  return Math.min(await lockPass(locks), await lockPass(locks));
}

async function lockPass(locks: Locks) {
  const dir = await Deno.makeTempDir({ prefix: "anchorfs-lock-bench-" });
  const samples: number[] = [];
  for (let i = -50; i < runs; i++) { // the first 50 warm up (compilation), not counted
    const t = performance.now();
    await locks.run(`${dir}/f.txt`, () => Promise.resolve());
    if (i >= 0) samples.push(performance.now() - t);
  }
  await Deno.remove(dir, { recursive: true });
  return median(samples) * 1000;
}

interface Writer {
  writeFileAtomic(p: string, d: Uint8Array, o: { expect: { bytes: Uint8Array } }): Promise<void>;
}

async function timeWrites(backend: Writer, size: number) {
  const dir = await Deno.makeTempDir({ prefix: "anchorfs-write-bench-" });
  const path = `${dir}/f.txt`;
  let current = new Uint8Array(size).fill(0x61);
  await Deno.writeFile(path, current);
  const samples: number[] = [];
  for (let i = -10; i < Math.min(runs, 100); i++) {
    const next = current.slice();
    next[0] = 0x30 + ((i + 10) % 10);
    const t = performance.now();
    await backend.writeFileAtomic(path, next, { expect: { bytes: current } });
    if (i >= 0) samples.push(performance.now() - t);
    current = next;
  }
  await Deno.remove(dir, { recursive: true });
  return median(samples);
}

print(
  `Deno ${Deno.version.deno}, ${Deno.build.os}; load ${
    Deno.loadavg().map((l) => l.toFixed(2)).join(" ")
  }; median of ${runs} lock runs, ${Math.min(runs, 100)} writes`,
);
print("");
print("| lock | take + release (µs) |");
print("|---|---|");
print(`| folder flock (this checkout) | ${(await timeLocks(new LocalWriteLocks())).toFixed(0)} |`);
const beside = new LocalWriteLocks({ style: "beside" });
print(`| lock file beside the target (this checkout) | ${(await timeLocks(beside)).toFixed(0)} |`);
// deno-lint-ignore no-explicit-any
let base: { LocalWriteLocks: any; LocalBackend: any } | undefined;
if (values.base) {
  const locks = await import(`${values.base}/lib/backends/local/write_lock.ts`);
  const backend = await import(`${values.base}/lib/backends/local/local_backend.ts`);
  base = { LocalWriteLocks: locks.LocalWriteLocks, LocalBackend: backend.LocalBackend };
  print(
    `| per-user lock folder (base) | ${(await timeLocks(new base.LocalWriteLocks())).toFixed(0)} |`,
  );
}
print("");
print("| write with content check | 4 KB (ms) | 1 MB (ms) |");
print("|---|---|---|");
const here = new LocalBackend();
print(
  `| swap + late look (this checkout) | ${(await timeWrites(here, 4096)).toFixed(2)} | ${
    (await timeWrites(here, 1 << 20)).toFixed(2)
  } |`,
);
if (base) {
  const old = new base.LocalBackend();
  print(
    `| rename after the check (base) | ${(await timeWrites(old, 4096)).toFixed(2)} | ${
      (await timeWrites(old, 1 << 20)).toFixed(2)
    } |`,
  );
}
