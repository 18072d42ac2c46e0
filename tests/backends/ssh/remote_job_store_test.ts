// A job on an ssh host kept in the in-memory job store: the remote output reaches the store only
// through JobLog.append (the seam the ssh runner writes through), the log cap cuts it there, and
// the record ends there. Real sshd on 127.0.0.1; nothing of the job is written to disk here.

import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { tempDir } from "../../_harness.ts";
import { needing } from "../../_requires.ts";
import { createSshWorld } from "./_sshd.ts";
import { createLocalProcessRunner } from "../../../lib/backends/local/process_runner.ts";
import { MemoryJobStore } from "../../../lib/backends/memory/memory_job_store.ts";
import { JobManager } from "../../../lib/ops/jobs/job_manager.ts";

const sshTest = needing("sshd", "bash");

Deno.test(
  sshTest("a remote job streams into the memory job store, capped, and ends there", async () => {
    await using world = await createSshWorld({
      config: (port) => `Host box\n  HostName 127.0.0.1\n  Port ${port}\n`,
    });
    await using dir = await tempDir();
    const pool = world.pool({ timeoutSeconds: 30 });
    const store = new MemoryJobStore();
    const jobs = new JobManager(createLocalProcessRunner(), {
      store,
      pid: Deno.pid,
      killGraceMs: 500,
      logCapBytes: 64 * 1024,
    });
    try {
      const sshHost = await pool.open({ host: "box" });
      const remote = { path: dir.path, url: `ssh://box${dir.path}` };

      const small = await jobs.start(sshHost, remote, "echo one; echo two >&2; exit 3");
      const ended = (await jobs.wait(small.id, 60_000)).record;
      assertEquals([ended.status, ended.exitCode], ["failed", 3]);
      assertEquals(ended.host, sshHost.jobs!.description);
      assertEquals((await store.read(small.id))?.status, "failed");
      assertEquals((await jobs.readTail(small.id, 100)).tail.text, "one\ntwo\n");
      assertEquals(ended.outputBytes, 8);
      assertEquals(store.localFiles(), undefined);

      const flood = await jobs.start(
        sshHost,
        remote,
        "head -c 300000 /dev/zero | tr '\\0' x; echo; echo END",
      );
      const capped = (await jobs.wait(flood.id, 60_000)).record;
      assertEquals(capped.status, "output_capped");
      assertEquals(capped.outputBytes, 300_000 + 1 + 4);
      assert(capped.droppedBytes > 0);
      assert((await store.logSize(flood.id)) <= 64 * 1024);
      const tail = (await jobs.readTail(flood.id, 100)).tail;
      assert(tail.text.endsWith("x\nEND\n"), tail.text);
      const head = new TextDecoder().decode(await store.readRange(flood.id, 0, 64 * 1024));
      assertStringIncludes(head, "[anchorfs: output passed the log cap of 65,536 bytes;");
    } finally {
      await jobs.shutdown();
      await pool.close();
    }
  }),
);
