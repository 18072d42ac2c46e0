// One agent's view of the shared job manager (lib/ops/jobs/agent_jobs.ts): the process-wide
// refusals (job cap, duplicate guard) still apply to every agent, but never name another
// agent's job, and a job's log is read only by the agent that started it.

import { assert, assertEquals, assertRejects, assertStringIncludes } from "../../_assert.ts";
import { tempDir } from "../../_harness.ts";
import { localProcessRunner } from "../../../lib/backends/local/process_runner.ts";
import { JobManager } from "../../../lib/ops/jobs/job_manager.ts";
import { DiskJobStore } from "../../../lib/backends/local/disk_job_store.ts";
import { scopeJobs } from "../../../lib/ops/jobs/agent_jobs.ts";
import { needing } from "../../_requires.ts";
import { here } from "../../_here.ts";

const needs = needing("bash");

const loop = "for _ in $(seq 100); do sleep 0.1; done";

Deno.test(
  needs(
    "agent jobs: the shared cap refuses b without naming a's jobs; a's refusal names a's",
    async () => {
      await using state = await tempDir();
      await using cwd = await tempDir();
      const shared = new JobManager(localProcessRunner, {
        store: new DiskJobStore(state.path, Deno.pid),
        pid: Deno.pid,
        killGraceMs: 500,
        maxRunning: 1,
      });
      try {
        const a = scopeJobs(shared);
        const b = scopeJobs(shared);
        const job = await a.view.start(here(shared), cwd.path, `${loop}; echo a`);
        const refusedB = await assertRejects(() => b.view.start(here(shared), cwd.path, "echo b"));
        assertStringIncludes(String(refusedB), "the limit is 1");
        assertStringIncludes(String(refusedB), "none of them is yours");
        assert(!`${refusedB} ${(refusedB as { hint?: string }).hint}`.includes(job.id));
        const refusedA = await assertRejects(() => a.view.start(here(shared), cwd.path, "echo a2"));
        assertStringIncludes(`${(refusedA as { hint?: string }).hint}`, job.id);
        // b cannot read a's log through the view either (anchorfs://jobs/ID goes through these).
        const notB = await assertRejects(() => b.view.logInfo(job.id));
        // b has no jobs: no list step (it would show nothing), but where a job id comes from.
        assertStringIncludes(
          `${(notB as { hint?: string }).hint}`,
          "started no jobs yet: every shell",
        );
        assertEquals((notB as { next?: unknown[] }).next, []);
        await assertRejects(() => b.view.readLog(job.id, 0, 10));
        assert((await a.view.logInfo(job.id)).bytes >= 0);
      } finally {
        await shared.shutdown();
      }
    },
  ),
);
