// Benchmark of job output capture: a command writing 1 GiB straight into its log (the job
// manager's path) vs the same command redirected to a file by bash alone (the reference);
// the cost of reading a 30 KB tail from a 1 MiB vs a 1 GiB log (must be O(tail)); and the log
// cap enforcer under a 2 GiB flood with a 256 MiB cap; the round trip of a trivial command. Run: deno run -A scripts/bench/jobs_bench.ts

import * as runner from "../../lib/backends/local/process_runner.ts";
import { JobManager } from "../../lib/ops/jobs/job_manager.ts";
import { DiskJobStore } from "../../lib/backends/local/disk_job_store.ts";
import { startServer } from "../../tests/_harness.ts";
import { here } from "../../tests/_here.ts";

const localRunner = runner.localProcessRunner;

const GiB = 1024 ** 3;
const enc = new TextEncoder();
const print = (text: string) => Deno.stdout.writeSync(enc.encode(`${text}\n`));
const state = await Deno.makeTempDir({ prefix: "anchorfs-jobs-bench-" });
const rssMb = () => Math.round(Deno.memoryUsage().rss / 1024 / 1024);

async function timed<T>(body: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const out = await body();
  return [out, performance.now() - t0];
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

try {
  const jobs = new JobManager(localRunner, {
    store: new DiskJobStore(state, Deno.pid),
    pid: Deno.pid,
    logCapBytes: 2 * GiB,
  });
  const flood = `yes 0123456789abcdef | head -c ${GiB}`;
  let peakRss = rssMb();
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb())), 20);
  const runs: number[] = [];
  const refs: number[] = [];
  let lastId = "";
  for (let i = 0; i < 3; i++) {
    const [, ms] = await timed(async () => {
      const job = await jobs.start(here(jobs), state, `${flood} # run ${i}`);
      lastId = job.id;
      await jobs.wait(job.id, 120_000);
    });
    runs.push(ms);
    const [, refMs] = await timed(async () => {
      await new Deno.Command("bash", { args: ["-c", `${flood} > ${state}/ref.log`] }).output();
    });
    refs.push(refMs);
    if (i < 2) await jobs.store.remove(lastId);
  }
  clearInterval(sampler);
  const tailBig: number[] = [];
  for (let i = 0; i < 20; i++) {
    tailBig.push((await timed(() => jobs.store.readTail(lastId, 30 * 1024)))[1]);
  }
  const small = await jobs.start(here(jobs), state, "yes 0123456789abcdef | head -c 1048576");
  await jobs.wait(small.id, 10_000);
  const tailSmall: number[] = [];
  for (let i = 0; i < 20; i++) {
    tailSmall.push((await timed(() => jobs.store.readTail(small.id, 30 * 1024)))[1]);
  }
  await jobs.store.remove(lastId);
  await Deno.remove(`${state}/ref.log`);
  await jobs.shutdown();

  const capped = new JobManager(localRunner, {
    store: new DiskJobStore(state, Deno.pid),
    pid: Deno.pid,
    logCapBytes: 256 * 1024 ** 2,
  });
  const [cappedRecord, cappedMs] = await timed(async () => {
    const job = await capped.start(
      here(capped),
      state,
      `yes 0123456789abcdef | head -c ${2 * GiB}; echo END`,
    );
    return (await capped.wait(job.id, 300_000)).record;
  });
  const cappedSize = await capped.store.logSize(cappedRecord.id);
  await capped.shutdown();

  // Round trip of a trivial command through the real MCP server vs spawning bash directly.
  const server = await startServer({ client: "v1", args: ["--state-dir", state] });
  const calls: number[] = [];
  const spawns: number[] = [];
  try {
    for (let i = 0; i < 21; i++) {
      calls.push((await timed(() => server.call("shell", { command: `true ${i}` })))[1]);
      spawns.push(
        (await timed(() => new Deno.Command("bash", { args: ["-c", "true"] }).output()))[1],
      );
    }
  } finally {
    await server.close();
  }

  const cpu = new TextDecoder().decode(
    (await new Deno.Command("bash", { args: ["-c", "lscpu | grep 'Model name' | sed 's/.*: *//'"] })
      .output()).stdout,
  ).trim();
  print(`date: ${new Date().toISOString()}`);
  print(`machine: ${navigator.hardwareConcurrency} cores, ${cpu}`);
  print(
    `1 GiB via job (child writes the log fd): median ${median(runs).toFixed(0)} ms ` +
      `(runs ${runs.map((x) => x.toFixed(0)).join(", ")})`,
  );
  print(
    `1 GiB via bash redirect (reference):    median ${median(refs).toFixed(0)} ms ` +
      `(runs ${refs.map((x) => x.toFixed(0)).join(", ")}) → ratio ${
        (median(runs) / median(refs)).toFixed(2)
      }`,
  );
  print(
    `shell {"command":"true"} through MCP (v1 client, stdio): median ${
      median(calls).toFixed(1)
    } ms; bash -c true spawned directly: median ${median(spawns).toFixed(1)} ms`,
  );
  print(`manager process peak RSS during the floods: ${peakRss} MB`);
  print(
    `30 KB tail read: 1 GiB log median ${median(tailBig).toFixed(2)} ms, 1 MiB log median ${
      median(tailSmall).toFixed(2)
    } ms`,
  );
  print(
    `2 GiB with a 256 MiB cap: ${cappedMs.toFixed(0)} ms, status ${cappedRecord.status}, ` +
      `log ${(cappedSize / 1024 ** 2).toFixed(1)} MiB, dropped ${cappedRecord.droppedBytes} ` +
      `bytes, counted output ${cappedRecord.outputBytes} (expected ${2 * GiB + 4})`,
  );
} finally {
  await Deno.remove(state, { recursive: true }).catch(() => {});
}
