// The soak of scripts/bench/http_load_bench.ts (`--soak`): N agents arrive over T minutes at one
// `anchorfs mcp --http` server on 127.0.0.1 with the default session limits, in three kinds:
// - one-shot v1 SDK clients (60%): connect, a few calls, close without DELETE (as Inspector and
//   the conformance suite do); every fifth also reads 1 MiB of job output 4 times (replay memory);
// - long-lived v1 SDK clients (20%): hold their GET stream, run jobs and wait for each job's
//   resources/updated, for a quarter of the run (at most 60 s), then DELETE;
// - reconnecting raw clients (20%): open the GET stream, drop it, let a job end, resume with
//   Last-Event-ID and expect the job's notification on the resumed stream.
// Reports lockouts (a 503 on initialize), evictions of busy sessions (a long-lived or
// reconnecting session answered 404), failed resumes, p50/p99 call latency, and the server's RSS
// over time. Every loop is bounded in count and time.

// deno-lint-ignore-file no-console

// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/types"
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { type HttpClient, startHttpServer, TOKEN_A } from "../../tests/mcp/http/_http_harness.ts";
import { openRawSession, readSse } from "../../tests/mcp/http/_raw_session.ts";
import { pause } from "../../tests/mcp/_jobs_helpers.ts";

export interface SoakOptions {
  agents: number;
  minutes: number;
}

interface Tally {
  started: Record<string, number>;
  lockouts: string[];
  busyEvictions: string[];
  resumesOk: number;
  resumesFailed: string[];
  errors: string[];
  /** Quick calls (view, search, workdir, echo) and calls that start a job (the foreground window). */
  latencies: { quick: number[]; job: number[] };
}

function rssMiB(pid: number): number {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function isLockout(e: unknown): boolean {
  return /HTTP 503|answered 503|Too many sessions/.test(String((e as Error)?.message ?? e));
}

function isGone(text: string): boolean {
  // Not a bare "404": job ids look like 16221-404.
  return /Session not found/.test(text);
}

export async function runSoak({ agents, minutes }: SoakOptions): Promise<void> {
  const runMs = minutes * 60_000;
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "anchorfs-http-soak-" }));
  for (let i = 0; i < 20; i++) {
    const lines = Array.from({ length: 200 }, (_, n) => `line ${n} of ${i}${n === 99 ? " x" : ""}`);
    await Deno.writeTextFile(`${dir}/f${i}.txt`, lines.join("\n") + "\n");
  }
  // Default --max-sessions (64) and --idle-timeout: 200 agents must fit by eviction, not by flags.
  await using server = await startHttpServer({
    args: ["--path", dir, "--foreground-window", "0.5"],
    tokens: [TOKEN_A],
  });
  const t: Tally = {
    started: { oneShot: 0, longLived: 0, reconnect: 0 },
    lockouts: [],
    busyEvictions: [],
    resumesOk: 0,
    resumesFailed: [],
    errors: [],
    latencies: { quick: [], job: [] },
  };
  const rss: { at: number; mib: number }[] = [];
  const t0 = performance.now();
  const sampler = setInterval(
    () => rss.push({ at: performance.now() - t0, mib: rssMiB(server.pid) }),
    500,
  );
  const timed = async <T>(call: () => Promise<T>, kind: "quick" | "job" = "quick"): Promise<T> => {
    const start = performance.now();
    try {
      return await call();
    } finally {
      t.latencies[kind].push(performance.now() - start);
    }
  };

  const oneShot = async (n: number) => {
    let c: HttpClient;
    try {
      c = await server.connect("v1");
    } catch (e) {
      (isLockout(e) ? t.lockouts : t.errors).push(`one-shot ${n}: ${String(e).slice(0, 160)}`);
      return;
    }
    try {
      await timed(() => c.call("view", { path: `f${n % 20}.txt`, start: 90, end: 110 }));
      await timed(() => c.call("view", { path: ".", content: "x" }));
      const shell = await timed(() => c.call("shell", { command: `echo one-shot-${n}` }));
      if (shell.isError) t.errors.push(`one-shot ${n} shell: ${shell.text.slice(0, 160)}`);
      if (n % 5 === 0) {
        const job = await timed(
          () => c.call("shell", { command: "head -c 1048576 /dev/zero | tr '\\0' a" }),
          "job",
        );
        const id = /anchorfs:\/\/jobs\/([\w-]+)/.exec(job.text)?.[1];
        for (let i = 0; id && i < 4; i++) {
          await timed(() => c.call("jobs", { action: "read", id, bytes: 1048576 }));
        }
      }
    } catch (e) {
      t.errors.push(`one-shot ${n}: ${String(e).slice(0, 160)}`);
    }
    await c.close(); // no DELETE
  };

  const longLived = async (n: number) => {
    let c: HttpClient;
    try {
      c = await server.connect("v1");
    } catch (e) {
      (isLockout(e) ? t.lockouts : t.errors).push(`long-lived ${n}: ${String(e).slice(0, 160)}`);
      return;
    }
    const updates = new Set<string>();
    // deno-lint-ignore no-explicit-any
    c.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (m: any) => {
      updates.add(m.params.uri);
    });
    const until = performance.now() + Math.min(60_000, runMs / 4);
    for (let round = 0; round < 30 && performance.now() < until; round++) {
      try {
        const job = await timed(
          () => c.call("shell", { command: `${pause(1)}; echo long-${n}` }),
          "job",
        );
        if (isGone(job.text)) {
          t.busyEvictions.push(`long-lived ${n}: ${job.text.slice(0, 160)}`);
          break;
        }
        if (job.isError) t.errors.push(`long-lived ${n} shell: ${job.text.slice(0, 160)}`);
        const uri = /anchorfs:\/\/jobs\/[\w-]+/.exec(job.text)?.[0];
        for (let i = 0; uri && i < 100 && !updates.has(uri); i++) await sleep(100);
        await timed(() => c.call("workdir", {}));
      } catch (e) {
        const text = String((e as Error)?.message ?? e);
        (isGone(text) ? t.busyEvictions : t.errors).push(`long-lived ${n}: ${text.slice(0, 160)}`);
        break;
      }
      await sleep(500);
    }
    await c.transport.terminateSession().catch(() => {});
    await c.close();
  };

  const reconnect = async (n: number) => {
    let s;
    try {
      s = await openRawSession(server.url, TOKEN_A);
    } catch (e) {
      (isLockout(e) ? t.lockouts : t.errors).push(`reconnect ${n}: ${String(e).slice(0, 160)}`);
      return;
    }
    try {
      const stream = await s.listen();
      const [priming] = await readSse(stream, () => true);
      if (!priming?.id) throw new Error(`no priming event: ${JSON.stringify(priming)}`);
      // Longer than --foreground-window: it becomes a job, whose end is notified on the stream.
      const job = await timed(
        () => s.tool(2, "shell", { command: `${pause(1.5)}; echo re-${n}` }),
        "job",
      );
      if (isGone(job)) throw new Error(`gone: ${job.slice(0, 160)}`);
      const id = /still running as job/.test(job)
        ? /anchorfs:\/\/jobs\/([\w-]+)/.exec(job)?.[1]
        : undefined;
      if (!id) throw new Error(`not a job: ${job.slice(0, 160)}`);
      await s.tool(3, "jobs", { action: "wait", id }); // blocks until the job ends: not timed
      const resumed = await s.listen(priming.id);
      if (resumed.status === 404) {
        t.busyEvictions.push(`reconnect ${n}: ${(await resumed.text()).slice(0, 160)}`);
        return;
      }
      const frames = await readSse(resumed, (f) => f.data.includes(`jobs/${id}`));
      if (frames.some((f) => f.data.includes(`jobs/${id}`))) t.resumesOk++;
      else t.resumesFailed.push(`reconnect ${n}: ${JSON.stringify(frames).slice(0, 160)}`);
    } catch (e) {
      t.errors.push(`reconnect ${n}: ${String(e).slice(0, 160)}`);
    }
  };

  const running: Promise<void>[] = [];
  const gap = runMs / agents;
  for (let n = 0; n < agents; n++) {
    const wait = t0 + n * gap - performance.now();
    if (wait > 0) await sleep(wait);
    const kind = n % 10 < 6 ? "oneShot" : n % 10 < 8 ? "longLived" : "reconnect";
    t.started[kind]!++;
    running.push((kind === "oneShot" ? oneShot : kind === "longLived" ? longLived : reconnect)(n));
  }
  await Promise.all(running);
  const wall = performance.now() - t0;
  await sleep(3000);
  clearInterval(sampler);
  const afterRss = rssMiB(server.pid);

  const quick = t.latencies.quick.sort((a, b) => a - b);
  const jobs = t.latencies.job.sort((a, b) => a - b);
  const quarter = (q: number) => {
    const from = (q * wall) / 4, to = ((q + 1) * wall) / 4;
    return Math.max(...rss.filter((r) => r.at >= from && r.at < to).map((r) => r.mib), 0);
  };
  console.log(
    `soak: ${agents} agents over ${minutes} min (${JSON.stringify(t.started)}), ` +
      `${(wall / 1000).toFixed(0)} s wall, default --max-sessions 64`,
  );
  console.log(`lockouts (503 on initialize): ${t.lockouts.length}`);
  console.log(`evictions of busy sessions: ${t.busyEvictions.length}`);
  console.log(`resumes with Last-Event-ID: ${t.resumesOk} ok, ${t.resumesFailed.length} failed`);
  console.log(`other errors: ${t.errors.length}`);
  // A few of each kind, so one kind cannot hide another.
  for (const list of [t.lockouts, t.busyEvictions, t.resumesFailed, t.errors]) {
    for (const e of list.slice(0, 3)) console.log(`  ${e}`);
  }
  console.log(
    `quick calls (view, search, workdir, echo, jobs read): ${quick.length}, p50 ${
      percentile(quick, 0.5).toFixed(0)
    } ms, p99 ${percentile(quick, 0.99).toFixed(0)} ms`,
  );
  console.log(
    `calls starting a job (answer after the 0.5 s foreground window): ${jobs.length}, p50 ${
      percentile(jobs, 0.5).toFixed(0)
    } ms, p99 ${percentile(jobs, 0.99).toFixed(0)} ms`,
  );
  const peak = Math.max(...rss.map((r) => r.mib));
  console.log(
    `server RSS: peak ${peak.toFixed(0)} MiB; peak per quarter of the run ${
      [0, 1, 2, 3].map((q) => quarter(q).toFixed(0)).join(" / ")
    } MiB; ${afterRss.toFixed(0)} MiB 3 s after the last agent`,
  );
  const ended = server.stderr().match(/ended to make room/g)?.length ?? 0;
  const unstreamed = server.stderr().match(/never opened its GET stream/g)?.length ?? 0;
  console.log(
    `server: ${ended} idle sessions evicted to make room, ${unstreamed} unstreamed expired`,
  );
  await Deno.remove(dir, { recursive: true });
}
