// Benchmark: what confinement (--allow) costs. Three tables, Markdown:
// 1. `Locations.resolve` with and without a Confinement (the path check), in process.
// 2. Backend operations on local disk: the plain LocalBackend against its confined view, which
//    opens every path beneath the allowed directory (openat2, and the openat walk that kernels
//    without openat2 take), in process, medians.
// 3. Tool calls through the real server (`deno run -A main.ts mcp`): no --allow, --allow (openat2)
//    and --allow with ANCHORFS_BENEATH=openat, median milliseconds per call.
// Usage: deno run -A scripts/bench/confinement_bench.ts [RUNS] [--no-server]. Not a test.

import { LocalBackend } from "../../lib/backends/local/local_backend.ts";
import { Confinement } from "../../lib/ops/confinement.ts";
import { Locations } from "../../lib/ops/location.ts";
import type { FileBackend } from "../../lib/ops/ports/file_backend.ts";
import { startServer } from "../../tests/_harness.ts";

const runs = Number(Deno.args.find((a) => /^\d+$/.test(a)) ?? 2000);
const enc = new TextEncoder();
const print = (text: string) => Deno.stdout.writeSync(enc.encode(`${text}\n`));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "anchorfs-confine-bench-" }));
const proj = `${dir}/proj`;
const deep10 = `${proj}/d1/d2/d3/d4/d5/d6/d7/d8/d9/d10`;
await Deno.mkdir(`${proj}/src/deep`, { recursive: true });
await Deno.mkdir(deep10, { recursive: true });
await Deno.mkdir(`${proj}/many`);
await Deno.mkdir(`${dir}/outside`);
await Deno.writeTextFile(`${proj}/src/deep/a.ts`, "export const a = 1;\n".repeat(200));
// The str_replace row's file: each call writes the next value of its first line (writing back
// what an edit replaced is refused as a revert, and old_text == new_text writes nothing).
await Deno.writeTextFile(
  `${proj}/src/deep/e.ts`,
  `export const v = 0;\n${"export const a = 1;\n".repeat(199)}`,
);
await Deno.writeTextFile(`${deep10}/z.ts`, "export const z = 1;\n".repeat(200));
await Deno.writeFile(`${proj}/big.bin`, new Uint8Array(8 * 1024 * 1024).fill(97));
await Deno.writeTextFile(`${dir}/outside/s.txt`, "secret\n");
await Deno.symlink("../outside", `${proj}/link`);
for (let i = 0; i < 200; i++) await Deno.writeTextFile(`${proj}/f${i}.txt`, "x\n");
for (let i = 0; i < 200; i++) {
  await Deno.writeTextFile(`${proj}/many/m${i}.ts`, `export const m${i} = ${i};\n`.repeat(50));
}
for (let i = 0; i < 2000; i++) {
  const sub = `${proj}/tree/t${i % 40}`;
  if (i < 40) await Deno.mkdir(sub, { recursive: true });
  await Deno.writeTextFile(`${sub}/n${i}.ts`, `// file ${i}\nexport const n = ${i};\n`.repeat(20));
}

/**
 * The median of each of `fns`, run in turn (one of each per round): on a shared, noisy machine a
 * change of load then weighs on every column alike.
 */
async function interleaved(
  fns: readonly (() => Promise<unknown> | unknown)[],
  n = runs,
): Promise<number[]> {
  const out: number[][] = fns.map(() => []);
  for (let i = 0; i < n; i++) {
    for (const [k, fn] of fns.entries()) {
      const t = performance.now();
      await fn();
      out[k]!.push(performance.now() - t);
    }
  }
  return out.map(median);
}

async function resolveTable(): Promise<void> {
  const plain = new Locations(new LocalBackend());
  const confined = new Locations(new LocalBackend());
  const start = confined.localAt(proj);
  confined.setGuard(await Confinement.create(confined, start, { allow: [proj], roots: false }));
  print(`| path | without --allow | with --allow |`);
  print(`| --- | ---: | ---: |`);
  for (
    const [label, raw] of [
      ["existing file", "src/deep/a.ts"],
      ["through a symlink out (refused)", "link/s.txt"],
      ["new file 2 levels below src", "src/new/dir/n.ts"],
    ] as const
  ) {
    const [a, b] = await interleaved([
      () => plain.resolve(raw, start).catch(() => {}),
      () => confined.resolve(raw, start).catch(() => {}),
    ]);
    print(`| ${label} | ${(a! * 1000).toFixed(0)} µs | ${(b! * 1000).toFixed(0)} µs |`);
  }
}

/** The confined view of a fresh LocalBackend (`walk`: the openat walk even where openat2 exists). */
function confinedView(walk: boolean): FileBackend {
  if (walk) Deno.env.set("ANCHORFS_BENEATH", "openat");
  try {
    const got = new LocalBackend().confine([{ path: proj }], () => new Error("outside"));
    if (!got) throw new Error("no FFI here: the kernel cannot confine (run with -A on Linux)");
    return got.backend;
  } finally {
    Deno.env.delete("ANCHORFS_BENEATH");
  }
}

async function backendTable(): Promise<void> {
  const backends: [string, FileBackend][] = [
    ["plain", new LocalBackend()],
    ["openat2", confinedView(false)],
    ["openat walk", confinedView(true)],
  ];
  const many = Array.from({ length: 200 }, (_, i) => `${proj}/many/m${i}.ts`);
  const text = enc.encode("export const w = 1;\n".repeat(200));
  let k = 0;
  const ops: [string, (b: FileBackend) => Promise<unknown> | unknown, number?][] = [
    ["stat, 3 levels deep", (b) => b.stat(`${proj}/src/deep/a.ts`)],
    ["readFile 4 KB, 3 levels deep", (b) => b.readFile(`${proj}/src/deep/a.ts`)],
    ["readFile 4 KB, 11 levels deep", (b) => b.readFile(`${deep10}/z.ts`)],
    ["readFile 8 MiB", (b) => b.readFile(`${proj}/big.bin`), 50],
    ["readDir of 200 entries", (b) => b.readDir(`${proj}/many`)],
    ["readFiles, 200 files", async (b) => {
      for await (const _ of b.readFiles!(many)) { /* drain */ }
    }, 200],
    ["summarizeFiles, 200 heads", (b) => [...b.summarizeFiles!(many, 4096)], 200],
    ["mkdirp of an existing dir, 11 levels", (b) => b.mkdirp(deep10)],
    ["writeFileAtomic 4 KB (new file, fsync)", (b) => {
      return b.writeFileAtomic(`${proj}/w${k++}.ts`, text, { expect: null });
    }, 200],
  ];
  print(`| operation | plain LocalBackend | confined, openat2 | confined, openat walk |`);
  print(`| --- | ---: | ---: | ---: |`);
  for (const [label, op, n] of ops) {
    for (const [, b] of backends) for (let i = 0; i < 20; i++) await op(b); // warm
    const ms = await interleaved(backends.map(([, b]) => () => op(b)), n ?? runs);
    const cells = ms.map((x) => x >= 1 ? `${x.toFixed(2)} ms` : `${(x * 1000).toFixed(0)} µs`);
    print(`| ${label} | ${cells.join(" | ")} |`);
  }
}

async function serverTable(): Promise<void> {
  let v = 0;
  const calls: [string, string, () => Record<string, unknown>][] = [
    ["view a file", "view", () => ({ path: "src/deep/a.ts", full: true })],
    ["list 200 files", "view", () => ({ path: "many" })],
    ["search 2,000 files (literal)", "view", () => ({ path: "tree", content: "file 1999" })],
    ["search 2,000 files (regex)", "view", () => ({
      path: "tree",
      content: "file 19\\d9$",
      regex: true,
    })],
    ["str_replace", "text_editor", () => ({
      command: "str_replace",
      path: "src/deep/e.ts",
      old_text: `export const v = ${v};\nexport const a = 1;\nexport const a = 1;\n`,
      new_text: `export const v = ${++v};\nexport const a = 1;\nexport const a = 1;\n`,
    })],
  ];
  const setups: [string, string[], Record<string, string>][] = [
    ["no --allow", [], {}],
    ["--allow (openat2)", ["--allow", proj], {}],
    ["--allow (openat walk)", ["--allow", proj], { ANCHORFS_BENEATH: "openat" }],
  ];
  const n = Math.max(20, Math.min(100, Math.floor(runs / 20)));
  const servers = [];
  for (const [, extra, env] of setups) {
    servers.push(
      await startServer({ client: "v1", args: ["--path", proj, "--no-shell", ...extra], env }),
    );
  }
  const results: string[][] = [];
  try {
    for (const [label, tool, args] of calls) {
      // A call the server refuses measures the refusal, not the operation.
      const call = async (server: Awaited<ReturnType<typeof startServer>>) => {
        const r = await server.call(tool, args());
        if (r.isError) throw new Error(`${label}: ${r.text.slice(0, 200)}`);
      };
      for (const server of servers) for (let w = 0; w < 5; w++) await call(server);
      const ms = await interleaved(servers.map((server) => () => call(server)), n);
      results.push([label, ...ms.map((x) => `${x.toFixed(2)} ms`)]);
    }
  } finally {
    for (const server of servers) await server.close();
  }
  print(`| call (median of ${n}) | ${setups.map(([s]) => s).join(" | ")} |`);
  print(`| --- | ${setups.map(() => "---:").join(" | ")} |`);
  for (const row of results) print(`| ${row.join(" | ")} |`);
}

await resolveTable();
print("");
await backendTable();
if (!Deno.args.includes("--no-server")) {
  print("");
  await serverTable();
}
await Deno.remove(dir, { recursive: true });
