// A job record the disk refuses is never silent: the write is retried a bounded number of times,
// then every answer about the job (wait, get, list, the end notice, the report, a kill) says its
// record is not saved, where, why and the fix; the next jobs call writes it once the disk
// allows; shutdown waits for a slow end write and returns what could not be written. Real local
// processes and the real disk store; the full disk is a DiskJobStore subclass at the store port.

import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { tempDir } from "../../_harness.ts";
import { localProcessRunner } from "../../../lib/backends/local/process_runner.ts";
import { DiskJobStore } from "../../../lib/backends/local/disk_job_store.ts";
import { type JobRecord, startRecord } from "../../../lib/core/jobs/job_state.ts";
import { JobManager } from "../../../lib/ops/jobs/job_manager.ts";
import type { JobManagerOptions } from "../../../lib/ops/jobs/job_manager_options.ts";
import { readJobOutput } from "../../../lib/ops/jobs/job_output.ts";
import {
  formatJobList,
  formatJobReport,
  jobEndNote,
  killText,
} from "../../../lib/ops/jobs/job_text.ts";
import { modelText } from "../../../lib/mcp/render.ts";
import { needing } from "../../_requires.ts";
import { here } from "../../_here.ts";

const needs = needing("bash", "signals");

/** The disk store on a disk that is full for the records `refuses` picks (ENOSPC, as Linux says). */
class FullDiskStore extends DiskJobStore {
  refuses: (record: JobRecord) => boolean = () => false;
  /** Writes refused so far, per status. */
  readonly refused: string[] = [];

  constructor(stateDir: string) {
    super(stateDir, Deno.pid);
  }

  override async write(record: JobRecord): Promise<void> {
    if (this.refuses(record)) {
      this.refused.push(record.status);
      throw Object.assign(
        new Error(
          `No space left on device (os error 28): writefile '${this.paths(record.id).record}'`,
        ),
        { code: "ENOSPC" },
      );
    }
    await super.write(record);
  }
}

const ended = (r: JobRecord) => r.status !== "running";

async function withJobs(
  options: Partial<JobManagerOptions>,
  body: (jobs: JobManager, store: FullDiskStore, cwd: string) => Promise<void>,
): Promise<void> {
  await using state = await tempDir();
  await using cwd = await tempDir();
  const store = new FullDiskStore(state.path);
  const jobs = new JobManager(localProcessRunner, {
    store,
    pid: Deno.pid,
    killGraceMs: 500,
    recordWrites: { attempts: 3, backoffMs: 1 },
    ...options,
  });
  try {
    await body(jobs, store, cwd.path);
  } finally {
    store.refuses = () => false;
    await jobs.shutdown();
  }
}

Deno.test(
  needs("a job that ends on a full disk is reported ended, with its record unsaved", async () => {
    await withJobs({}, async (jobs, store, cwd) => {
      store.refuses = ended;
      const job = await jobs.start(here(jobs), cwd, "exit 3");
      const waited = await jobs.wait(job.id, 600_000);
      assert(waited.done);
      assertEquals(waited.record.status, "failed");
      // Retried, bounded: three tries, then it counts as unsaved.
      assertEquals(store.refused, ["failed", "failed", "failed"]);
      const path = store.paths(job.id).record;
      assertEquals(waited.record.unsaved?.code, "ENOSPC");
      assertEquals(waited.record.unsaved?.path, path);
      // The disk still says running; the answers say what happened, not what the disk says.
      assertEquals((await store.read(job.id))?.status, "running");
      const got = await jobs.get(job.id);
      assertEquals(got?.status, "failed");
      assertEquals((await jobs.list()).map((r) => [r.status, r.unsaved?.code]), [
        ["failed", "ENOSPC"],
      ]);
      const output = await readJobOutput(jobs, job.id, 4096);
      for (const text of [formatJobReport(output, Date.now()), jobEndNote(output, Date.now())]) {
        const shown = modelText(text);
        assertStringIncludes(shown, "RECORD NOT SAVED");
        assertStringIncludes(shown, JSON.stringify(path));
        assertStringIncludes(shown, "ENOSPC: No space left on device");
        assertStringIncludes(shown, "Free space on that disk");
        assertStringIncludes(shown, "still says it is running");
        assertStringIncludes(shown, `jobs {"action":"read","id":"${job.id}"}`);
      }
      const row = modelText(formatJobList(await jobs.list(), Date.now()));
      assertStringIncludes(row, "RECORD NOT SAVED (ENOSPC): only this server knows its end");
      const kill = killText(await jobs.kill(job.id));
      assertStringIncludes(kill, "RECORD NOT SAVED");
      // Each call that touches jobs tried again (one write each), and failed again.
      assert(store.refused.length > 3, `${store.refused.length} tries`);
      assertEquals((await jobs.get(job.id))?.unsaved?.attempts, store.refused.length);
    });
  }),
);

Deno.test(
  needs("the next jobs call writes an end the disk refused, once it has room", async () => {
    await withJobs({}, async (jobs, store, cwd) => {
      store.refuses = ended;
      const job = await jobs.start(here(jobs), cwd, "exit 3");
      assert((await jobs.wait(job.id, 600_000)).record.unsaved);
      assertEquals((await store.read(job.id))?.status, "running");
      store.refuses = () => false;
      const read = await jobs.get(job.id);
      assertEquals((await store.read(job.id))?.status, "failed");
      assertEquals(read?.status, "failed");
      assertEquals(read?.unsaved, undefined);
      const report = modelText(formatJobReport(await readJobOutput(jobs, job.id, 4096), 0));
      assert(!report.includes("RECORD NOT SAVED"), report);
      // What reached the disk is the record alone, not this server's note about the disk.
      assert(!(await Deno.readTextFile(store.paths(job.id).record)).includes("unsaved"));
    });
  }),
);

Deno.test(
  needs("a cap update the disk refuses shows on the running job and is written later", async () => {
    await withJobs({ logCapBytes: 4096, pollMs: 5 }, async (jobs, store, cwd) => {
      store.refuses = (r) => r.status === "running" && r.droppedBytes > 0;
      const job = await jobs.start(
        here(jobs),
        cwd,
        "head -c 100000 /dev/zero | tr '\\0' x; while :; do sleep 0.05; done",
      );
      // The watch checks the cap every 5 ms; the answer is what a caller polling the job sees.
      let got = await jobs.get(job.id);
      for (let i = 0; i < 3000 && !got?.unsaved; i++) {
        await new Promise((r) => setTimeout(r, 20));
        got = await jobs.get(job.id);
      }
      assert(got?.unsaved, "the refused cap update never showed");
      assertEquals(got.status, "running");
      assert(got.droppedBytes > 0);
      assertEquals((await store.read(job.id))?.droppedBytes, 0);
      const report = modelText(formatJobReport(await readJobOutput(jobs, job.id, 4096), 0));
      assertStringIncludes(report, "record.json holds an older state of it");
      store.refuses = () => false;
      const after = await jobs.get(job.id);
      assertEquals(after?.unsaved, undefined);
      assert(((await store.read(job.id))?.droppedBytes ?? 0) > 0);
    });
  }),
);

Deno.test(
  needs(
    "a job whose directory was removed while it ran is still listed, and says why",
    async () => {
      await withJobs({}, async (jobs, store, cwd) => {
        const job = await jobs.start(here(jobs), cwd, "until [ -f gate ]; do sleep 0.05; done");
        // The real disk, no double: the job's whole directory goes, so its end has nowhere to go.
        await Deno.remove(store.paths(job.id).dir, { recursive: true });
        await Deno.writeTextFile(`${cwd}/gate`, "");
        const waited = await jobs.wait(job.id, 600_000);
        assertEquals([waited.record.status, waited.record.unsaved?.code], ["succeeded", "ENOENT"]);
        const listed = await jobs.list();
        assertEquals(listed.map((r) => [r.id, r.status, r.unsaved?.code]), [
          [job.id, "succeeded", "ENOENT"],
        ]);
        const report = modelText(formatJobReport(await readJobOutput(jobs, job.id, 4096), 0));
        assertStringIncludes(report, "The job's directory is gone or was replaced by a file");
      });
    },
  ),
);

/** The disk store with slow terminal writes: each lands `ms` after it begins. */
class SlowEndStore extends DiskJobStore {
  constructor(stateDir: string, private readonly ms: number) {
    super(stateDir, Deno.pid);
  }

  override async write(record: JobRecord): Promise<void> {
    // A slow disk, not a synchronisation: the test's claim is that shutdown outlasts it.
    if (record.status !== "running") await new Promise((r) => setTimeout(r, this.ms));
    await super.write(record);
  }
}

Deno.test(
  needs("shutdown waits for an end write that takes longer than 3 s", async () => {
    await using state = await tempDir();
    await using cwd = await tempDir();
    const store = new SlowEndStore(state.path, 3500);
    const jobs = new JobManager(localProcessRunner, {
      store,
      pid: Deno.pid,
      killGraceMs: 500,
      shutdownWaitMs: 600_000,
    });
    const job = await jobs.start(here(jobs), cwd.path, "while :; do sleep 0.05; done");
    assertEquals(await jobs.shutdown(), []);
    assertEquals((await store.read(job.id))?.status, "interrupted");
  }),
);

Deno.test(
  needs("shutdown returns the ends it could not write, with why", async () => {
    await withJobs({}, async (jobs, store, cwd) => {
      store.refuses = ended;
      const job = await jobs.start(here(jobs), cwd, "while :; do sleep 0.05; done");
      const unsaved = await jobs.shutdown();
      assertEquals(unsaved.map((r) => [r.id, r.status, r.unsaved?.code]), [
        [job.id, "interrupted", "ENOSPC"],
      ]);
      assertEquals((await store.read(job.id))?.status, "running");
    });
  }),
);

/** A pid that was alive a moment ago and is not now (a process that ran and was reaped). */
async function deadPid(): Promise<number> {
  const child = new Deno.Command("true").spawn();
  await child.status;
  return child.pid;
}

Deno.test(
  needs(
    "a dead server's job is reported lost on a full disk, and the next read records it",
    async () => {
      await withJobs({}, async (jobs, store, cwd) => {
        const server = await deadPid();
        const [first, second] = [1, 2].map((n) =>
          startRecord({
            id: `${server}-${n}`,
            command: `sleep ${n}`,
            cwd,
            pid: server,
            serverPid: server,
            startedAt: Date.now() - 60_000,
            logCapBytes: 1000,
          })
        );
        for (const record of [first!, second!]) {
          await store.reserve(record.id);
          await store.write(record);
        }
        store.refuses = (r) => r.id === first!.id && ended(r);
        // The start-up sweep goes past the record it cannot write: the next one is still recorded.
        const swept = await jobs.recover();
        assertEquals(swept.map((r) => [r.id, r.status, r.unsaved?.code]).sort(), [
          [first!.id, "lost", "ENOSPC"],
          [second!.id, "lost", undefined],
        ]);
        assertStringIncludes(await Deno.readTextFile(store.paths(second!.id).record), '"lost"');
        // Every answer about it says lost, and that the disk still says otherwise.
        const got = await jobs.get(first!.id);
        assertEquals([got?.status, got?.unsaved?.code], ["lost", "ENOSPC"]);
        assertStringIncludes(got!.endReason!, "ended without recording an end");
        const row = modelText(formatJobList(await jobs.list(), Date.now()));
        assertStringIncludes(row, "RECORD NOT SAVED (ENOSPC)");
        assertEquals((await jobs.kill(first!.id)).record.status, "lost");
        // The disk has room again: the next read writes it.
        store.refuses = () => false;
        const later = await jobs.get(first!.id);
        assertEquals([later?.status, later?.unsaved], ["lost", undefined]);
        assertStringIncludes(await Deno.readTextFile(store.paths(first!.id).record), '"lost"');
      });
    },
  ),
);
