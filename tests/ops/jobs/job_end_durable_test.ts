// A job's end is answered only once its record is on disk: while the end's record write is held
// (a disk store that waits for the test), waits, reads and the list still say running, and the
// wait that reports the end returns after the write. Real local processes and the real disk store.

import { assert, assertEquals } from "../../_assert.ts";
import { tempDir } from "../../_harness.ts";
import { localProcessRunner } from "../../../lib/backends/local/process_runner.ts";
import { DiskJobStore } from "../../../lib/backends/local/disk_job_store.ts";
import type { JobRecord } from "../../../lib/core/jobs/job_state.ts";
import { JobManager } from "../../../lib/ops/jobs/job_manager.ts";
import { waitForJob } from "../../../lib/ops/jobs/wait_for_job.ts";
import { needing } from "../../_requires.ts";
import { here } from "../../_here.ts";

const needs = needing("bash", "signals");

/** The disk store, but a job's terminal record is written only after `open()`. */
class HeldEndStore extends DiskJobStore {
  /** Resolves with the terminal record when its write begins (and is held). */
  readonly ending: Promise<JobRecord>;
  /** Whether the terminal record is on disk. */
  endWritten = false;
  private began!: (record: JobRecord) => void;
  private release!: () => void;
  private readonly gate = new Promise<void>((r) => (this.release = r));

  constructor(stateDir: string) {
    super(stateDir, Deno.pid);
    this.ending = new Promise((r) => (this.began = r));
  }

  override async write(record: JobRecord): Promise<void> {
    if (record.status === "running") return await super.write(record);
    this.began(record);
    await this.gate;
    await super.write(record);
    this.endWritten = true;
  }

  open(): void {
    this.release();
  }
}

const CASES = [
  { name: "exits by itself", command: "exit 3", kill: false, status: "failed" },
  { name: "is killed", command: "while :; do sleep 0.05; done", kill: true, status: "killed" },
] as const;

for (const c of CASES) {
  Deno.test(
    needs(`a job that ${c.name} is reported ended only after its record is written`, async () => {
      await using state = await tempDir();
      await using cwd = await tempDir();
      const store = new HeldEndStore(state.path);
      const jobs = new JobManager(localProcessRunner, { store, pid: Deno.pid, killGraceMs: 500 });
      try {
        const job = await jobs.start(here(jobs), cwd.path, c.command);
        const killing = c.kill ? jobs.kill(job.id) : undefined;
        assertEquals((await store.ending).status, c.status);
        // The end is known in memory, but record.json still says running: so does every answer.
        assertEquals((await store.read(job.id))?.status, "running");
        assertEquals((await jobs.get(job.id))?.status, "running");
        assertEquals((await jobs.list()).map((r) => r.status), ["running"]);
        assertEquals((await jobs.wait(job.id, 0)).done, false);
        // A wait whose heartbeat falls in the write (jobs wait, the shell's window) keeps waiting.
        let beat!: () => void;
        const beaten = new Promise<string>((r) => (beat = () => r("heartbeat")));
        const waiting = waitForJob(jobs, job.id, {
          timeoutMs: 600_000,
          heartbeatMs: 1,
          onHeartbeat: () => beat(),
        }).then((r) => ({ ...r, durable: store.endWritten }));
        assertEquals(await Promise.race([waiting.then(() => "answered"), beaten]), "heartbeat");
        store.open();
        const answer = await waiting;
        assert(answer.done);
        assertEquals(answer.record.status, c.status);
        assert(answer.durable, "the wait answered before the record was on disk");
        assertEquals((await store.read(job.id))?.status, c.status);
        if (killing) assertEquals((await killing).record.status, "killed");
      } finally {
        store.open();
        await jobs.shutdown();
      }
    }),
  );
}
