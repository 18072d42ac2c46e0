// deno-lint-ignore-file no-console
// Benchmark: view's listing and content search over a ~10,000-file tree through ssh:// on
// loopback (a private sshd) vs the same tree as a local path, in one run; also the bulk-read
// strategies (one tar exec vs pipelined SFTP). Prints Markdown for docs/benchmarks.md.
// Usage: deno run -A scripts/bench/ssh_bench.ts [FILES] [RUNS]

import { LocalBackend } from "../../lib/backends/local/local_backend.ts";
import type { SftpBackend } from "../../lib/backends/ssh/sftp_files.ts";
import { Locations } from "../../lib/ops/location.ts";
import { createSession } from "../../lib/ops/session.ts";
import { viewText } from "../../tests/ops/_view_text.ts";
import { createSshWorld } from "../../tests/backends/ssh/_sshd.ts";

const fileCount = Number(Deno.args[0] ?? 10_000);
const runs = Number(Deno.args[1] ?? 5);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const tree = await Deno.makeTempDir({ prefix: "anchorfs-ssh-bench-" });
const perDir = 100;
let bytes = 0;
for (let i = 0; i < fileCount; i++) {
  const dir = `${tree}/pkg${String(Math.floor(i / perDir)).padStart(3, "0")}/src`;
  if (i % perDir === 0) await Deno.mkdir(dir, { recursive: true });
  const lines = Array.from(
    { length: 40 },
    (_, n) =>
      n === 7 && i % 500 === 0
        ? `export const needle_${i} = "anchorfs_bench_needle";`
        : `export function f${i}_${n}(x: number): number { return x * ${n} + ${i}; }`,
  );
  const text = lines.join("\n") + "\n";
  bytes += text.length;
  await Deno.writeTextFile(`${dir}/m${i}.ts`, text);
}
await Deno.writeTextFile(`${tree}/.gitignore`, "*.log\n");

await using world = await createSshWorld({
  config: (port) => `Host box\n  HostName 127.0.0.1\n  Port ${port}\n`,
});
const pool = world.pool({ timeoutSeconds: 30 });
const locations = new Locations(new LocalBackend(), pool);
const local = createSession(locations.localAt(tree));
const remoteRoot = await locations.resolve(`ssh://box${tree}`, locations.localAt("/"));
const remote = createSession(remoteRoot);
const sftp = remoteRoot.backend as SftpBackend;
const defaultTarMin = sftp.tarMinFiles;

const cases = [
  { name: "listing (view dir, whole tree)", args: { path: ".", max_depth: 99 } },
  {
    name: "search, literal (10k files read)",
    args: { path: ".", content: "anchorfs_bench_needle" },
  },
  { name: "search, no match", args: { path: ".", content: "anchorfs_no_such_token_qq" } },
];

const rows: string[] = [];
for (const c of cases) {
  const lt: number[] = [];
  const rt: number[] = [];
  let requests = 0;
  let agree = true;
  for (let i = 0; i < runs; i++) {
    let t = performance.now();
    const a = await viewText(locations, local, c.args);
    lt.push(performance.now() - t);
    const before = sftp.stats.requests;
    t = performance.now();
    const b = await viewText(locations, remote, c.args);
    rt.push(performance.now() - t);
    requests = sftp.stats.requests - before;
    // Same result text apart from how paths are shown.
    if (a.split("\n").length !== b.split("\n").length) agree = false;
  }
  const l = median(lt);
  const r = median(rt);
  rows.push(
    `| ${c.name} | ${l.toFixed(0)} | ${r.toFixed(0)} | ${(r / l).toFixed(1)}× | ${requests} | ${
      agree ? "same" : "DIFFERENT"
    } |`,
  );
}

// Bulk read strategies on all files of the tree.
const listing = await sftp.listTree(tree, undefined);
const paths = listing.filter((e) => e.type === "file").map((e) => `${tree}/${e.path}`);
async function readAllWith(mode: "tar" | "sftp", subset: string[]): Promise<[number, number]> {
  sftp.useExec = mode === "tar";
  sftp.tarMinFiles = 1;
  const before = sftp.stats.requests;
  const t = performance.now();
  let n = 0;
  for await (const r of sftp.readFiles(subset)) if (r.data) n++;
  const ms = performance.now() - t;
  if (n !== subset.length) throw new Error(`${mode}: read ${n} of ${subset.length}`);
  return [ms, sftp.stats.requests - before];
}
const bulkRows: string[] = [];
for (const size of [16, 64, 256, paths.length]) {
  const subset = paths.slice(0, size);
  const tarT: number[] = [];
  const sftpT: number[] = [];
  let tarReq = 0;
  let sftpReq = 0;
  for (let i = 0; i < runs; i++) {
    const [a, ar] = await readAllWith("tar", subset);
    const [b, br] = await readAllWith("sftp", subset);
    tarT.push(a);
    sftpT.push(b);
    tarReq = ar;
    sftpReq = br;
  }
  bulkRows.push(
    `| ${size} | ${median(tarT).toFixed(0)} (${tarReq} req) | ${
      median(sftpT).toFixed(0)
    } (${sftpReq} req) |`,
  );
}
sftp.useExec = true;
sftp.tarMinFiles = defaultTarMin;

const cpu = new TextDecoder().decode(
  (await new Deno.Command("sh", {
    args: ["-c", "lscpu | grep 'Model name' | sed 's/.*: *//'"],
    stdout: "piped",
  }).output())
    .stdout,
).trim();
const out = [
  `Machine: ${navigator.hardwareConcurrency} cores, ${cpu}; ${new Date().toISOString()}; ` +
  `tree: ${fileCount} files, ${(bytes / 1e6).toFixed(1)} MB; median of ${runs} runs.`,
  "",
  "| operation | local ms | ssh:// ms | ratio | SSH requests | results |",
  "| --- | ---: | ---: | ---: | ---: | --- |",
  ...rows,
  "",
  "Bulk read of N files (readFiles):",
  "",
  "| files | one tar request on the helper ms | pipelined SFTP ms |",
  "| ---: | ---: | ---: |",
  ...bulkRows,
];
console.log(out.join("\n"));
await pool.close();
await Deno.remove(tree, { recursive: true });
