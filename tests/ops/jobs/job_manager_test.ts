// The job manager with the real local process runner: limits, waits that never kill, kills and
// shutdown that take the whole group, pruning, and the log cap on a real child (the stores
// themselves: tests/backends/_job_store_contract.ts).

import { assert, assertEquals, assertRejects, assertStringIncludes } from "../../_assert.ts";
import { tempDir } from "../../_harness.ts";
import * as runner from "../../../lib/backends/local/process_runner.ts";
import { JobManager } from "../../../lib/ops/jobs/job_manager.ts";
import type { ProcessRunner } from "../../../lib/ops/ports/process_runner.ts";
import { killText } from "../../../lib/ops/jobs/job_text.ts";
import { DiskJobStore } from "../../../lib/backends/local/disk_job_store.ts";
import type { JobRecord } from "../../../lib/core/jobs/job_state.ts";
import { needing } from "../../_requires.ts";
import { isAnchorError } from "../../../lib/core/errors.ts";
import { step } from "../../../lib/core/next_step.ts";
import { here } from "../../_here.ts";
import { filesHost } from "../../../lib/ops/ports/host.ts";
import { LocalBackend } from "../../../lib/backends/local/local_backend.ts";

const needs = needing("bash", "proc", "signals");

const localRunner = runner.localProcessRunner;

async function withManager(
  body: (jobs: JobManager, cwd: string) => Promise<void>,
  options: Partial<ConstructorParameters<typeof JobManager>[1]> = {},
) {
  await using state = await tempDir();
  await using cwd = await tempDir();
  const jobs = new JobManager(localRunner, {
    store: new DiskJobStore(state.path, Deno.pid),
    pid: Deno.pid,
    killGraceMs: 500,
    ...options,
  });
  try {
    await body(jobs, cwd.path);
  } finally {
    await jobs.shutdown();
  }
}

const loop = (n: number) => `for _ in $(seq ${n}); do sleep 0.1; done`;

Deno.test(
  needs(
    "JobManager refuses past the running cap with a clear error, then accepts again",
    async () => {
      await withManager(async (jobs, cwd) => {
        const a = await jobs.start(here(jobs), cwd, `${loop(50)}; echo a`);
        await jobs.start(here(jobs), cwd, `${loop(50)}; echo b`);
        const error = await assertRejects(() => jobs.start(here(jobs), cwd, "echo c"));
        assertStringIncludes(String(error), "the limit is 2");
        await jobs.kill(a.id);
        const c = await jobs.start(here(jobs), cwd, "echo c");
        assertEquals((await jobs.wait(c.id, 5000)).record.status, "succeeded");
      }, { maxRunning: 2 });
    },
  ),
);

Deno.test(
  needs("JobManager.wait returns not-done at its timeout and the job keeps running", async () => {
    await withManager(async (jobs, cwd) => {
      const job = await jobs.start(here(jobs), cwd, `${loop(5)}; echo end`);
      const early = await jobs.wait(job.id, 50);
      assertEquals(early.done, false);
      assertEquals(early.record.status, "running");
      const late = await jobs.wait(job.id, 10_000);
      assert(late.done);
      assertEquals(late.record.status, "succeeded");
      assertEquals((await jobs.readTail(job.id, 100)).tail.text, "end\n");
    });
  }),
);

Deno.test(
  needs("JobManager emits start and end once each, and the record on disk matches", async () => {
    await withManager(async (jobs, cwd) => {
      const events: string[] = [];
      jobs.subscribe((e) => events.push(`${e.kind}:${e.record.status}`));
      const job = await jobs.start(here(jobs), cwd, "exit 5");
      await jobs.wait(job.id, 5000);
      assertEquals(events, ["start:running", "end:failed"]);
      const onDisk = await jobs.store.read(job.id) as JobRecord;
      assertEquals(onDisk.status, "failed");
      assertEquals(onDisk.exitCode, 5);
    });
  }),
);

Deno.test("JobManager.start on a host that only serves files runs nothing: SHELL_REMOTE_CWD", async () => {
  await using state = await tempDir();
  await using dir = await tempDir();
  const jobs = new JobManager(localRunner, {
    store: new DiskJobStore(state.path, Deno.pid),
    pid: Deno.pid,
    killGraceMs: 500,
  });
  const filesOnly = filesHost(new LocalBackend(), "bash");
  const error = await assertRejects(() => jobs.start(filesOnly, dir.path, "touch ran"));
  assert(isAnchorError(error) && error.code === "SHELL_REMOTE_CWD", String(error));
  assertStringIncludes(error.message, "its host (local) only serves files; nothing was run");
  assertEquals(await jobs.list(), []);
  assertEquals(await Deno.stat(`${dir.path}/ran`).catch(() => null), null);
  await jobs.shutdown();
});

Deno.test(
  needs("JobManager.shutdown terminates running jobs and records them interrupted", async () => {
    await using state = await tempDir();
    const jobs = new JobManager(localRunner, {
      store: new DiskJobStore(state.path, Deno.pid),
      pid: Deno.pid,
      killGraceMs: 500,
    });
    const job = await jobs.start(here(jobs), "/", `trap '' TERM; ${loop(100)}`);
    await jobs.shutdown();
    const record = await jobs.store.read(job.id) as JobRecord;
    assertEquals(record.status, "interrupted");
    assertEquals(runner.groupAlive(job.pid), false);
    await assertRejects(() => jobs.start(here(jobs), "/", "echo late"));
  }),
);

Deno.test(needs("JobManager.prune keeps the newest finished records within the count", async () => {
  await withManager(async (jobs, cwd) => {
    for (let i = 0; i < 5; i++) {
      const job = await jobs.start(here(jobs), cwd, `echo ${i}`);
      await jobs.wait(job.id, 5000);
    }
    await jobs.prune(true);
    const left = (await jobs.list()).map((r) => r.command);
    assertEquals(left, ["echo 4", "echo 3"]);
  }, { keepFinished: 2 });
}));

Deno.test(
  needs(
    "JobManager refuses to start when the state dir cannot be written, and runs nothing",
    async () => {
      await using dir = await tempDir();
      await Deno.writeTextFile(`${dir.path}/not-a-dir`, "");
      const jobs = new JobManager(localRunner, {
        store: new DiskJobStore(`${dir.path}/not-a-dir`, Deno.pid),
        pid: Deno.pid,
      });
      const error = await assertRejects(() =>
        jobs.start(here(jobs), dir.path, `touch ${dir.path}/ran`)
      );
      assertStringIncludes(String(error), "Could not create the job record");
      assertEquals(
        await Deno.stat(`${dir.path}/ran`).then(() => true, () => false),
        false,
      );
      await jobs.shutdown();
    },
  ),
);

Deno.test(
  needs(
    "JobManager keeps the log cap on background children still writing after the job ended",
    async () => {
      await withManager(async (jobs, cwd) => {
        const job = await jobs.start(
          here(jobs),
          cwd,
          "(for _ in $(seq 12); do head -c 500000 /dev/zero; sleep 0.1; done) & echo started",
        );
        assertEquals((await jobs.wait(job.id, 5000)).record.status, "succeeded");
        const deadline = Date.now() + 20_000;
        while (runner.groupAlive(job.pid) && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 100));
        }
        await new Promise((r) => setTimeout(r, 1500)); // one more straggler check
        const size = await jobs.store.logSize(job.id);
        assert(size <= 1024 * 1024, `log grew to ${size} bytes past the 1 MiB cap`);
      }, { logCapBytes: 1024 * 1024 });
    },
  ),
);

Deno.test(
  needs(
    "JobManager refuses a duplicate that arrives while the first start is in flight",
    async () => {
      await withManager(async (jobs, cwd) => {
        const gate = "until [ -f never ]; do sleep 0.05; done";
        const results = await Promise.allSettled([
          jobs.start(here(jobs), cwd, gate),
          jobs.start(here(jobs), cwd, gate),
        ]);
        assertEquals(results.map((r) => r.status).sort(), ["fulfilled", "rejected"]);
        const rejected = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
        assertStringIncludes(String(rejected.reason), "twice");
      });
    },
  ),
);

Deno.test(
  needs(
    "a job's end terminates the background children it left, and its log and record say which",
    async () => {
      await withManager(async (jobs, cwd) => {
        const job = await jobs.start(
          here(jobs),
          cwd,
          "(until [ -f never ]; do sleep 0.05; done) & echo left",
        );
        const ended = (await jobs.wait(job.id, 5000)).record;
        assertEquals(ended.status, "succeeded");
        assertEquals(runner.groupAlive(job.pid), false);
        assertStringIncludes(ended.endReason ?? "", "which were terminated");
        const log = await Deno.readTextFile(jobs.store.localFiles(job.id)!.log);
        assert(log.startsWith("left\n[anchorfs: the command exited and left "), log);
        assertEquals(ended.outputBytes, 5);
        const killed = await jobs.kill(job.id);
        assertEquals(killed.wasRunning, false);
        assertEquals(killed.killed, []);
      });
    },
  ),
);

Deno.test(
  needs("JobManager.prune drops the oldest finished logs past the byte budget", async () => {
    await withManager(async (jobs, cwd) => {
      for (let i = 0; i < 4; i++) {
        const job = await jobs.start(here(jobs), cwd, `head -c 1000 /dev/zero; echo ${i}`);
        await jobs.wait(job.id, 5000);
      }
      await jobs.prune(true);
      assertEquals((await jobs.list()).length, 2);
    }, { keepFinishedBytes: 2500 });
  }),
);

Deno.test(
  needs(
    "JobManager's refusal past the cap counts jobs still starting, and names a usable next step",
    async () => {
      await withManager(async (jobs, cwd) => {
        // Three calls at once: the third is refused while the first two may still be starting.
        const results = await Promise.allSettled(
          ["a", "b", "c"].map((name) => jobs.start(here(jobs), cwd, `${loop(50)}; echo ${name}`)),
        );
        const refused = results.filter((r) => r.status === "rejected");
        assertEquals(refused.length, 1);
        const text = String((refused[0] as PromiseRejectedResult).reason) + " " +
          JSON.stringify((refused[0] as PromiseRejectedResult).reason);
        assertStringIncludes(text, "2 jobs are already running");
        assertStringIncludes(text, "the limit is 2");
        assertEquals(text.includes("undefined"), false, text);
        // Every suggested jobs call names a job, or the hint is the list call.
        assert(/"id":"\d+-\d+"|"action":"list"/.test(text), text);
        assertEquals(/"args":\{"action":"(wait|kill)"\}/.test(text), false, text);
      }, { maxRunning: 2 });
    },
  ),
);

/**
 * The local runner, except that the manager hears of each job's exit only when the test opens
 * the gate: the process has really ended (`exited` resolves first), the manager does not know.
 */
function runnerHoldingExits(): { runner: ProcessRunner; exited: Promise<void>; open(): void } {
  let seen!: () => void;
  const exited = new Promise<void>((r) => seen = r);
  let open!: () => void;
  const gate = new Promise<void>((r) => open = r);
  const held: ProcessRunner = Object.create(localRunner);
  held.spawn = async (request) => {
    const spawned = await localRunner.spawn(request);
    return {
      ...spawned,
      exited: spawned.exited.then(async (exit) => {
        seen();
        await gate;
        return exit;
      }),
    };
  };
  return { runner: held, exited, open };
}

Deno.test(
  needs("a kill that finds the job already exited 0 reports that end, not a kill", async () => {
    await using state = await tempDir();
    await using cwd = await tempDir();
    const held = runnerHoldingExits();
    const jobs = new JobManager(held.runner, {
      store: new DiskJobStore(state.path, Deno.pid),
      pid: Deno.pid,
      killGraceMs: 500,
    });
    try {
      const job = await jobs.start(here(jobs), cwd.path, "echo done");
      await held.exited; // the shell is gone; the manager has not recorded its end yet
      const killing = jobs.kill(job.id); // in flight: its sweep finds no process of the job
      held.open();
      const result = await killing;
      assertEquals(result.record.status, "succeeded");
      assertEquals(result.record.exitCode, 0);
      assertEquals(result.wasRunning, false);
      assertEquals(
        killText(result),
        `Job ${job.id} had already ended: succeeded (exit 0). No process of it is left; nothing to kill.`,
      );
      assertEquals((await jobs.store.read(job.id))?.status, "succeeded");
    } finally {
      await jobs.shutdown();
    }
  }),
);

Deno.test(
  needs(
    "a kill that reaches a job's shell records it killed, even when the shell exits 0 on TERM",
    async () => {
      await withManager(async (jobs, cwd) => {
        const job = await jobs.start(
          here(jobs),
          cwd,
          "trap 'exit 0' TERM; echo up; while :; do sleep 0.05; done",
        );
        while ((await jobs.readTail(job.id, 100)).tail.text === "") {
          await new Promise((r) => setTimeout(r, 20));
        }
        const result = await jobs.kill(job.id);
        assertEquals(result.wasRunning, true);
        assertEquals(result.record.status, "killed");
        assert(
          result.killed.some((p) => p.pid === job.pid),
          "the shell itself was signalled",
        );
      });
    },
  ),
);

Deno.test(
  needs(
    "an unknown job id names the recent jobs, or where ids come from when there are none",
    async () => {
      await withManager(async (jobs, cwd) => {
        const none = await assertRejects(() => jobs.require("1-1"));
        assert(isAnchorError(none), String(none));
        assertEquals(none.code, "JOB_NOT_FOUND");
        // Nothing to list: no jobs list step, but how a job and its id come about.
        assertEquals(none.next, []);
        assertStringIncludes(String(none.hint), "every shell call records one");
        const job = await jobs.start(here(jobs), cwd, "true");
        await jobs.wait(job.id, 60_000);
        const some = await assertRejects(() => jobs.require("1-1"));
        assert(isAnchorError(some), String(some));
        assertStringIncludes(String(some.hint), `Recent jobs: ${job.id}.`);
        assertEquals(some.next, [step("jobs", { action: "list" })]);
      });
    },
  ),
);

Deno.test(
  needs("a running job's record counts the output its log pump dropped at the cap", async () => {
    await withManager(async (jobs, cwd) => {
      // A local job's output goes through the pump, which cuts the log itself: the watch that
      // checks the cap then finds nothing to cut, and must still carry the drops to the record.
      const job = await jobs.start(
        here(jobs),
        cwd,
        "head -c 100000 /dev/zero | tr '\\0' x; until [ -f never ]; do sleep 0.05; done",
      );
      let onDisk = await jobs.store.read(job.id);
      for (let i = 0; i < 1500 && !onDisk?.droppedBytes; i++) {
        await new Promise((r) => setTimeout(r, 20));
        onDisk = await jobs.store.read(job.id);
      }
      assertEquals(onDisk?.status, "running");
      assert((onDisk?.droppedBytes ?? 0) > 90_000, `${onDisk?.droppedBytes} bytes dropped`);
      assertEquals((await jobs.get(job.id))?.droppedBytes, onDisk?.droppedBytes);
    }, { logCapBytes: 4096, pollMs: 5 });
  }),
);
