// Compares the walker of two checkouts on one local tree (e.g. main against a branch that changes
// how walks join paths): walks alternate run by run, medians printed. Not a test.
// Usage: deno run -A scripts/bench/walk_paths_bench.ts BASE_CHECKOUT OTHER_CHECKOUT TREE [RUNS]

const [baseRoot, otherRoot, tree, runsArg] = Deno.args;
if (!baseRoot || !otherRoot || !tree) {
  throw new Error("usage: walk_paths_bench.ts BASE_CHECKOUT OTHER_CHECKOUT TREE [RUNS]");
}
const runs = Number(runsArg ?? 9);
const enc = new TextEncoder();
const print = (text: string) => Deno.stdout.writeSync(enc.encode(`${text}\n`));

async function load(root: string) {
  // lib/ops/tree/ since issue 22; a checkout from before has the walker in lib/ops/walk.ts.
  const walk = await import(`${root}/lib/ops/tree/walk.ts`).then(
    async (tree) => ({ ...tree, ...await import(`${root}/lib/ops/tree/notices.ts`) }),
    () => import(`${root}/lib/ops/walk.ts`),
  );
  const { LocalBackend } = await import(`${root}/lib/backends/local/local_backend.ts`);
  return { walk, backend: new LocalBackend() };
}

const impls = { base: await load(baseRoot), other: await load(otherRoot) };
const times = { base: [] as number[], other: [] as number[] };
const items = { base: 0, other: 0 };
for (let i = 0; i < runs; i++) {
  const order: ("base" | "other")[] = i % 2 ? ["other", "base"] : ["base", "other"];
  for (const name of order) {
    const { walk, backend } = impls[name];
    const stats = walk.newWalkStats();
    const t0 = performance.now();
    let n = 0;
    for await (const batch of walk.walkBatches(backend, tree, { includeHidden: true }, stats)) {
      n += batch.length;
    }
    times[name].push(performance.now() - t0);
    items[name] = n;
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
print(`items: base ${items.base}, other ${items.other}`);
print(`median ms: base ${median(times.base).toFixed(0)}, other ${median(times.other).toFixed(0)}`);
