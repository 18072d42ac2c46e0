// Benchmark of job containment: the cost of one process-table read (stat + environ of every
// process, done at each job end, kill and list), the round trip of a trivial job (which now
// includes that read), and the time from `kill` to the last escaped process gone, for escapes
// that obey TERM and for one that ignores it (KILL after the 2 s grace).
// Run: deno run -A scripts/containment_bench.ts

import * as runner from "../lib/backends/local/process_runner.ts";
import { JobManager } from "../lib/ops/jobs/job_manager.ts";
import { DiskJobStore } from "../lib/backends/local/disk_job_store.ts";
import { livePidsMatching, uniqueMarker } from "../tests/mcp/_jobs_helpers.ts";

const enc = new TextEncoder();
const print = (text: string) => Deno.stdout.writeSync(enc.encode(`${text}\n`));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const state = await Deno.makeTempDir({ prefix: "anchorfs-containment-bench-" });

async function untilGone(markers: string[]): Promise<number> {
  const t0 = performance.now();
  while (markers.some((m) => livePidsMatching(m).length > 0)) {
    await new Promise((r) => setTimeout(r, 5));
  }
  return performance.now() - t0;
}

/** The escaped `sleep MARKER` processes themselves (the job's shell names every marker too). */
function sleeping(marker: string): boolean {
  return livePidsMatching(`sleep ${marker}`).some((pid) => {
    try {
      return Deno.readTextFileSync(`/proc/${pid}/cmdline`).startsWith("sleep\0");
    } catch {
      return false;
    }
  });
}

async function untilStarted(markers: string[]): Promise<void> {
  while (!markers.every(sleeping)) {
    await new Promise((r) => setTimeout(r, 10));
  }
}

function escapes(ignoreTerm: boolean) {
  const m = [uniqueMarker(), uniqueMarker(), uniqueMarker()];
  const loop = (x: string) => `while :; do sleep ${x}; done`;
  const trap = ignoreTerm ? `trap "" TERM HUP; ` : "";
  const command = [
    `setsid sh -c '${loop(m[0]!)}' &`,
    `(setsid sh -c '${loop(m[1]!)}' &)`,
    `nohup sh -c '${trap}${loop(m[2]!)}' >/dev/null 2>&1 &`,
    "wait",
  ].join("\n");
  return { command, markers: m };
}

try {
  const jobs = new JobManager(runner.localProcessRunner, {
    store: new DiskJobStore(state, Deno.pid),
    pid: Deno.pid,
  });
  const scans: number[] = [];
  let count = 0;
  for (let i = 0; i < 50; i++) {
    const t0 = performance.now();
    count = runner.listProcesses().length;
    scans.push(performance.now() - t0);
  }
  print(`process table read: ${count} processes, median ${median(scans).toFixed(2)} ms`);
  const since = runner.ownStartTicks() ?? 0;
  const recent: number[] = [];
  for (let i = 0; i < 50; i++) {
    const t0 = performance.now();
    runner.listProcesses(since);
    recent.push(performance.now() - t0);
  }
  print(
    `  only processes newer than this one (environ read for those): median ${
      median(recent).toFixed(2)
    } ms`,
  );

  const trips: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    const job = await jobs.start(`echo ${i}`, state);
    await jobs.wait(job.id, 10_000);
    trips.push(performance.now() - t0);
  }
  print(`trivial job start → recorded end: median ${median(trips).toFixed(1)} ms`);

  for (const ignoreTerm of [false, true]) {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const { command, markers } = escapes(ignoreTerm);
      const job = await jobs.start(command, state);
      await untilStarted(markers);
      const t0 = performance.now();
      const killed = jobs.kill(job.id);
      const gone = untilGone(markers);
      const [result] = await Promise.all([killed, gone]);
      times.push(performance.now() - t0);
      if (i === 0) print(`  kill result names ${result.killed.length} processes`);
    }
    print(
      `kill → last escaped process gone (${
        ignoreTerm ? "nohup child ignores TERM" : "all obey TERM"
      }): median ${median(times).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms`,
    );
  }

  const leftEnds: number[] = [];
  for (let i = 0; i < 5; i++) {
    const m = uniqueMarker();
    const t0 = performance.now();
    const job = await jobs.start(`setsid sh -c 'while :; do sleep ${m}; done' & echo x`, state);
    await jobs.wait(job.id, 10_000);
    leftEnds.push(performance.now() - t0);
    if (livePidsMatching(m).length > 0) print("  LEFTOVER ALIVE after the job's end");
  }
  print(
    `job whose shell leaves a setsid child: start → end recorded, child gone: median ${
      median(leftEnds).toFixed(0)
    } ms`,
  );
  await jobs.shutdown();
} finally {
  await Deno.remove(state, { recursive: true });
}
