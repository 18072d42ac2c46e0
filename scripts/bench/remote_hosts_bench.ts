// deno-lint-ignore-file no-console
// Benchmark: (1) `jobs list` over remote jobs of a dead server on a host that accepts and never
// speaks, on a closed port and on a loopback sshd, with the listing's short host probe and with
// the probe as long as --ssh-timeout (the behaviour before the probe); (2) a kill of a remote job
// whose child left its group, through /proc and through ps (ANCHORFS_NO_PROC=1 via sshd SetEnv).
// Prints Markdown. Usage: deno run -A scripts/bench/remote_hosts_bench.ts [RUNS]

import { createLocalProcessRunner } from "../../lib/backends/local/process_runner.ts";
import { JobManager } from "../../lib/ops/jobs/job_manager.ts";
import { DiskJobStore } from "../../lib/backends/local/disk_job_store.ts";
import { startRecord } from "../../lib/core/jobs/job_state.ts";
import { Locations } from "../../lib/ops/location.ts";
import { MemoryBackend } from "../../lib/backends/memory/memory_backend.ts";
import { NO_PROC_VAR } from "../../lib/backends/ssh/remote_job_runner.ts";
import { createSshWorld } from "../../tests/backends/ssh/_sshd.ts";

const runs = Number(Deno.args[0] ?? 3);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const SSH_TIMEOUT_S = 30;

const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
const held: Deno.Conn[] = [];
(async () => {
  for await (const conn of silent) held.push(conn);
})().catch(() => {});
const shut = Deno.listen({ hostname: "127.0.0.1", port: 0 });
const shutPort = (shut.addr as Deno.NetAddr).port;
shut.close();

async function listOnce(host: string, probeMs: number): Promise<number> {
  await using world = await createSshWorld({
    config: (port) =>
      `Host box\n  HostName 127.0.0.1\n  Port ${port}\n` +
      `Host hang\n  HostName 127.0.0.1\n  Port ${(silent.addr as Deno.NetAddr).port}\n` +
      `Host shut\n  HostName 127.0.0.1\n  Port ${shutPort}\n`,
  });
  const state = await Deno.makeTempDir({ prefix: "anchorfs-list-bench-" });
  const gone = new Deno.Command("true").spawn();
  await gone.status;
  const deadPid = gone.pid;
  const store = new DiskJobStore(state, deadPid);
  const id = `${deadPid}-1`;
  await store.reserve(id);
  await store.write(startRecord({
    id,
    command: "make",
    cwd: `ssh://${host}/tmp`,
    host,
    pid: 999_998,
    cookie: `0123456789abcdef/${id}`,
    serverPid: deadPid,
    startedAt: Date.now(),
    logCapBytes: 1024,
  }));
  const pool = world.pool({ timeoutSeconds: SSH_TIMEOUT_S });
  const jobs = new JobManager(createLocalProcessRunner(), {
    store,
    pid: Deno.pid,
    hostProbeMs: probeMs,
    hosts: new Locations(new MemoryBackend(), pool),
  });
  const t0 = performance.now();
  await jobs.list();
  const took = performance.now() - t0;
  await pool.close();
  await Deno.remove(state, { recursive: true });
  return took;
}

const listRows: string[] = [];
for (const host of ["hang", "shut", "box"]) {
  const probe: number[] = [];
  const full: number[] = [];
  for (let i = 0; i < runs; i++) {
    probe.push(await listOnce(host, 3000));
    full.push(await listOnce(host, SSH_TIMEOUT_S * 1000 + 5000));
  }
  listRows.push(
    `| ${host} | ${(median(probe) / 1000).toFixed(2)} s | ${(median(full) / 1000).toFixed(2)} s |`,
  );
}
for (const conn of held) conn.close();
silent.close();

async function killOnce(noProc: boolean, n: number): Promise<number> {
  await using world = await createSshWorld({
    config: (port) => `Host box\n  HostName 127.0.0.1\n  Port ${port}\n`,
    ...(noProc && { sshdConfig: [`SetEnv ${NO_PROC_VAR}=1`] }),
  });
  const pool = world.pool({ timeoutSeconds: SSH_TIMEOUT_S });
  const sshHost = await pool.open({ host: "box" });
  const dir = await Deno.makeTempDir({ prefix: "anchorfs-kill-bench-" });
  const state = await Deno.makeTempDir({ prefix: "anchorfs-kill-state-" });
  const jobs = new JobManager(createLocalProcessRunner(), {
    store: new DiskJobStore(state, Deno.pid),
    pid: Deno.pid,
    killGraceMs: 500,
  });
  const r = await jobs.start(
    sshHost,
    { path: dir, url: `ssh://box${dir}` },
    `sleep 30 & setsid sleep 31 & until false; do sleep 0.1; done # ${n}`,
  );
  await new Promise((res) => setTimeout(res, 300));
  const t0 = performance.now();
  const killed = await jobs.kill(r.id);
  const took = performance.now() - t0;
  if (!killed.killed.some((p) => p.name === "sleep")) throw new Error("nothing killed");
  await jobs.shutdown();
  await pool.close();
  await Deno.remove(dir, { recursive: true });
  await Deno.remove(state, { recursive: true });
  return took;
}

const killRows: string[] = [];
for (const noProc of [false, true]) {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await killOnce(noProc, i));
  killRows.push(`| ${noProc ? "ps" : "/proc"} | ${median(times).toFixed(0)} ms |`);
}

console.log(`Median of ${runs} runs, ${Deno.build.os} ${Deno.build.arch}, --ssh-timeout 30 s.\n`);
console.log("| host of the dead server's job | list, 3 s probe | list, probe = ssh timeout |");
console.log("| --- | ---: | ---: |");
for (const row of listRows) console.log(row);
console.log("\n| remote kill (group + a setsid child, grace 0.5 s) via | time |");
console.log("| --- | ---: |");
for (const row of killRows) console.log(row);
