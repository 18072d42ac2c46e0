// deno-lint-ignore-file no-console
// Benchmark: a job on an ssh:// host (loopback sshd) vs the same command locally, through the
// JobManager: start-to-end of `true`, streaming 50 MB of output into the local log, and a kill
// of a running job (remote: one exec of the kill script). Also the cost of one macOS-style `ps`
// table read here (what a kill round costs where there is no /proc). Prints Markdown.
// Usage: deno run -A scripts/bench/remote_jobs_bench.ts [RUNS]

import { createLocalProcessRunner } from "../../lib/backends/local/process_runner.ts";
import { readPsTable } from "../../lib/backends/platform/foreign_process_table.ts";
import { JobManager } from "../../lib/ops/jobs/job_manager.ts";
import { DiskJobStore } from "../../lib/backends/local/disk_job_store.ts";
import { createSshWorld } from "../../tests/backends/ssh/_sshd.ts";
import { here } from "../../tests/_here.ts";

const runs = Number(Deno.args[0] ?? 5);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

await using world = await createSshWorld({
  config: (port) => `Host box\n  HostName 127.0.0.1\n  Port ${port}\n`,
});
const pool = world.pool({ timeoutSeconds: 30 });
const sshHost = await pool.open({ host: "box" });
const dir = await Deno.makeTempDir({ prefix: "anchorfs-rjob-bench-" });
const state = await Deno.makeTempDir({ prefix: "anchorfs-rjob-state-" });
const jobs = new JobManager(createLocalProcessRunner(), {
  store: new DiskJobStore(state, Deno.pid),
  pid: Deno.pid,
  killGraceMs: 500,
});
const remote = { path: dir, url: `ssh://box${dir}` };

async function timeJob(command: string, where: "local" | "remote"): Promise<number> {
  const t0 = performance.now();
  const r = await jobs.start(
    where === "local" ? here(jobs) : sshHost,
    where === "local" ? dir : remote,
    command,
  );
  await jobs.wait(r.id, 120_000);
  return performance.now() - t0;
}

async function timeKill(where: "local" | "remote", n: number): Promise<number> {
  const command = `sleep 30 & sleep 31 & until false; do sleep 0.1; done # ${n}`;
  const r = await jobs.start(
    where === "local" ? here(jobs) : sshHost,
    where === "local" ? dir : remote,
    command,
  );
  await new Promise((res) => setTimeout(res, 300));
  const t0 = performance.now();
  await jobs.kill(r.id);
  return performance.now() - t0;
}

const rows: string[] = [];
for (const where of ["local", "remote"] as const) {
  const tTrue: number[] = [];
  const tBig: number[] = [];
  const tKill: number[] = [];
  for (let i = 0; i < runs; i++) {
    tTrue.push(await timeJob(`true # ${i}`, where));
    tBig.push(await timeJob(`head -c 50000000 /dev/zero # ${i}`, where));
    tKill.push(await timeKill(where, i));
  }
  rows.push(
    `| ${where} | ${median(tTrue).toFixed(0)} ms | ${median(tBig).toFixed(0)} ms | ${
      median(tKill).toFixed(0)
    } ms |`,
  );
}
const tPs: number[] = [];
for (let i = 0; i < runs; i++) {
  const t0 = performance.now();
  readPsTable();
  tPs.push(performance.now() - t0);
}
await jobs.shutdown();
await pool.close();
await Deno.remove(dir, { recursive: true });
await Deno.remove(state, { recursive: true });
console.log(
  `Median of ${runs} runs, loopback sshd (OpenSSH), ${Deno.build.os} ${Deno.build.arch}.\n`,
);
console.log("| where | `true` start→end | 50 MB of output | kill (2 sleeps + loop, grace 0.5 s) |");
console.log("| --- | ---: | ---: | ---: |");
for (const row of rows) console.log(row);
console.log(
  `\nOne \`ps\` table read (two ps runs, the macOS path) here: ${median(tPs).toFixed(0)} ms.`,
);
