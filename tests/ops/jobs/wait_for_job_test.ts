// waitForJob (the one wait-with-heartbeat loop of shell, jobs wait and `anchorfs jobs wait`) and
// followJob (`anchorfs jobs tail -f`), against the real job manager and local processes. The
// jobs end on a file the test creates, so nothing depends on how fast the machine is.

import { assert, assertEquals } from "../../_assert.ts";
import { tempDir } from "../../_harness.ts";
import { localProcessRunner } from "../../../lib/backends/local/process_runner.ts";
import { DiskJobStore } from "../../../lib/backends/local/disk_job_store.ts";
import { JobManager } from "../../../lib/ops/jobs/job_manager.ts";
import { heartbeatText, waitForJob } from "../../../lib/ops/jobs/wait_for_job.ts";
import { followJob } from "../../../lib/ops/jobs/follow_job.ts";
import { needing } from "../../_requires.ts";
import { here } from "../../_here.ts";

const needs = needing("bash");

async function withJobs(body: (jobs: JobManager, dir: string) => Promise<void>): Promise<void> {
  await using state = await tempDir();
  await using dir = await tempDir();
  const jobs = new JobManager(localProcessRunner, {
    store: new DiskJobStore(state.path, Deno.pid),
    pid: Deno.pid,
    killGraceMs: 500,
  });
  try {
    await body(jobs, dir.path);
  } finally {
    await jobs.shutdown();
  }
}

const untilFile = (name: string) =>
  `echo begun; until [ -f ${name} ]; do sleep 0.05; done; echo ended`;

Deno.test(needs("waitForJob beats while the job runs and returns its end", async () => {
  await withJobs(async (jobs, dir) => {
    const job = await jobs.start(here(jobs), dir, untilFile("go"));
    const beats: number[] = [];
    const result = await waitForJob(jobs, job.id, {
      timeoutMs: 60_000,
      heartbeatMs: 50,
      onHeartbeat: async (record, elapsedMs) => {
        assertEquals(record.status, "running");
        beats.push(elapsedMs);
        if (beats.length === 2) await Deno.writeTextFile(`${dir}/go`, "");
      },
    });
    assertEquals([result.done, result.record.status], [true, "succeeded"]);
    assert(beats.length >= 2, `${beats}`);
    assertEquals([...beats].sort((a, b) => a - b), beats);
    assert(result.elapsedMs >= beats.at(-1)!);
  });
}));

Deno.test(
  needs("waitForJob returns not-done at its timeout and the job keeps running", async () => {
    await withJobs(async (jobs, dir) => {
      const job = await jobs.start(here(jobs), dir, untilFile("never"));
      const result = await waitForJob(jobs, job.id, { timeoutMs: 200, heartbeatMs: 50 });
      assertEquals([result.done, result.record.status], [false, "running"]);
      assert(jobs.isRunningHere(job.id));
      assertEquals((await jobs.get(job.id))?.status, "running");
    });
  }),
);

Deno.test(needs("waitForJob stops at an abort, leaving the job running", async () => {
  await withJobs(async (jobs, dir) => {
    const job = await jobs.start(here(jobs), dir, untilFile("never"));
    const abort = new AbortController();
    const result = await waitForJob(jobs, job.id, {
      timeoutMs: 600_000,
      heartbeatMs: 50,
      signal: abort.signal,
      onHeartbeat: () => abort.abort(),
    });
    assertEquals(result.done, false);
    assert(jobs.isRunningHere(job.id));
  });
}));

Deno.test(needs("heartbeatText carries the job's latest output line", async () => {
  await withJobs(async (jobs, dir) => {
    const job = await jobs.start(here(jobs), dir, untilFile("go"));
    let text = "";
    await waitForJob(jobs, job.id, {
      timeoutMs: 60_000,
      heartbeatMs: 50,
      onHeartbeat: async (_record, elapsedMs) => {
        if (text.includes("begun")) return;
        text = await heartbeatText(jobs, job.id, elapsedMs);
        if (text.includes("begun")) await Deno.writeTextFile(`${dir}/go`, "");
      },
    });
    assert(/^running .+ · begun$/.test(text), text);
  });
}));

Deno.test(needs("followJob streams the tail, then new output, until the job ends", async () => {
  await withJobs(async (jobs, dir) => {
    const job = await jobs.start(here(jobs), dir, `${untilFile("go")}; echo after`);
    let seen = "";
    const record = await followJob(jobs, job.id, {
      tailBytes: 1024,
      pollMs: 20,
      onText: (text) => {
        seen += text;
        if (seen.includes("begun")) Deno.writeTextFileSync(`${dir}/go`, "");
      },
    });
    assertEquals(record.status, "succeeded");
    assertEquals(seen, "begun\nended\nafter\n");
  });
}));
