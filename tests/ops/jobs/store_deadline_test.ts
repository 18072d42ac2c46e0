// A state dir that stops answering (a hung network mount) fails jobs calls with
// STATE_DIR_NOT_ANSWERING instead of hanging them: each awaited store operation has a deadline
// (ops/jobs/store_deadline.ts). Real local processes and the real disk store; the hang is a
// DiskJobStore subclass whose chosen operations never settle.

import { assert, assertEquals, assertRejects, assertStringIncludes } from "../../_assert.ts";
import { tempDir } from "../../_harness.ts";
import { needing } from "../../_requires.ts";
import { here } from "../../_here.ts";
import { localProcessRunner } from "../../../lib/backends/local/process_runner.ts";
import { DiskJobStore } from "../../../lib/backends/local/disk_job_store.ts";
import type { JobRecord } from "../../../lib/core/jobs/job_state.ts";
import { AnchorError } from "../../../lib/core/errors.ts";
import { JobManager } from "../../../lib/ops/jobs/job_manager.ts";
import { withStoreDeadline } from "../../../lib/ops/jobs/store_deadline.ts";
import { readJobOutput } from "../../../lib/ops/jobs/job_output.ts";
import { formatJobReport } from "../../../lib/ops/jobs/job_text.ts";
import { modelText } from "../../../lib/mcp/render.ts";

const needs = needing("bash", "signals");

/** The AnchorError `promise` rejects with (a test failure if it resolves or throws another). */
async function rejection(promise: () => Promise<unknown>): Promise<AnchorError> {
  const error = await assertRejects(promise);
  assert(error instanceof AnchorError, `rejected with ${error}`);
  return error;
}

/** The disk store on a mount that stops answering for what `hangs` picks. */
class HungDiskStore extends DiskJobStore {
  hangs: (operation: string, record?: JobRecord) => boolean = () => false;
  /** Operations left hanging, to let go of at the end. */
  private readonly held: (() => void)[] = [];

  constructor(stateDir: string) {
    super(stateDir, Deno.pid);
  }

  private hang<T>(): Promise<T> {
    return new Promise<T>((_, reject) => this.held.push(() => reject(new Error("released"))));
  }

  /** Settles every hung operation (as a mount that comes back would). */
  release(): void {
    for (const let_go of this.held.splice(0)) let_go();
  }

  override write(record: JobRecord): Promise<void> {
    return this.hangs("write", record) ? this.hang() : super.write(record);
  }

  override list(): Promise<JobRecord[]> {
    return this.hangs("list") ? this.hang() : super.list();
  }

  override read(id: string): Promise<JobRecord | undefined> {
    return this.hangs("read") ? this.hang() : super.read(id);
  }
}

async function withJobs(
  body: (jobs: JobManager, store: HungDiskStore, cwd: string) => Promise<void>,
): Promise<void> {
  await using state = await tempDir();
  await using cwd = await tempDir();
  const store = new HungDiskStore(state.path);
  const jobs = new JobManager(localProcessRunner, {
    store: withStoreDeadline(store, 200),
    pid: Deno.pid,
    killGraceMs: 500,
    recordWrites: { attempts: 2, backoffMs: 1 },
  });
  try {
    await body(jobs, store, cwd.path);
  } finally {
    store.hangs = () => false;
    store.release();
    await jobs.shutdown();
  }
}

Deno.test("a store operation past its deadline fails with the state dir and the fix; others pass through", async () => {
  await using state = await tempDir();
  const store = new HungDiskStore(state.path);
  const timed = withStoreDeadline(store, 100);
  assertEquals(await timed.list(), []);
  assertEquals(await timed.read("1-1"), undefined);
  store.hangs = (op) => op === "list";
  const started = performance.now();
  const error = await rejection(() => timed.list());
  assert(performance.now() - started < 10_000, "it waited past its deadline");
  assertEquals(error.code, "STATE_DIR_NOT_ANSWERING");
  assertStringIncludes(error.message, JSON.stringify(store.root));
  assertStringIncludes(error.message, "did not answer within 0.1 s when asked to list the jobs");
  assertStringIncludes(error.hint ?? "", "--state-dir DIR");
  store.release();
});

Deno.test(
  needs(
    "a jobs call on a hung state dir fails instead of hanging, and a job's end says its record is not saved",
    async () => {
      await withJobs(async (jobs, store, cwd) => {
        const job = await jobs.start(here(jobs), cwd, "echo done");
        store.hangs = (op, record) => op === "write" && record?.status !== "running";
        const waited = await jobs.wait(job.id, 600_000);
        assertEquals(waited.record.status, "succeeded");
        assertEquals(waited.record.unsaved?.code, "STATE_DIR_NOT_ANSWERING");
        const report = modelText(formatJobReport(await readJobOutput(jobs, job.id, 4096), 0));
        assertStringIncludes(report, "RECORD NOT SAVED");
        assertStringIncludes(report, "Its disk did not answer");
        // A listing reads the whole state dir: with the mount hung, an error, not a hang.
        store.hangs = (op) => op === "list";
        const error = await rejection(() => jobs.list());
        assertEquals(error.code, "STATE_DIR_NOT_ANSWERING");
      });
    },
  ),
);
