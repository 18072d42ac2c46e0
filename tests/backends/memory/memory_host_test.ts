// MemoryHost: files in a MemoryBackend, no jobs, a stated shell (cmd by default on Windows
// paths), and a shell command there refused by the job manager with nothing run.

import { MemoryBackend } from "../../../lib/backends/memory/memory_backend.ts";
import { MemoryHost } from "../../../lib/backends/memory/memory_host.ts";
import { MemoryJobStore } from "../../../lib/backends/memory/memory_job_store.ts";
import { localProcessRunner } from "../../../lib/backends/local/process_runner.ts";
import { isAnchorError } from "../../../lib/core/errors.ts";
import { WINDOWS_PATHS } from "../../../lib/core/path/path_rules.ts";
import { JobManager } from "../../../lib/ops/jobs/job_manager.ts";
import { Locations } from "../../../lib/ops/location.ts";
import type { Host } from "../../../lib/ops/ports/host.ts";
import { assert, assertEquals, assertRejects } from "../../_assert.ts";

Deno.test("MemoryHost serves its files, states its shell and runs no commands", async () => {
  const host: Host = new MemoryHost({ "/app/a.txt": "a\n" });
  assertEquals([host.id, host.shell, host.jobs], ["memory", "bash", undefined]);
  const here = new Locations(host).localAt("/app/a.txt");
  assertEquals(new TextDecoder().decode(await here.backend.readFile(here.path)), "a\n");
  assertEquals(new MemoryHost({}, "pwsh").shell, "pwsh");
  assertEquals(new MemoryHost(new MemoryBackend({}, { paths: WINDOWS_PATHS })).shell, "cmd");
});

Deno.test("a job started on a MemoryHost is refused and nothing runs", async () => {
  const store = new MemoryJobStore();
  const jobs = new JobManager(localProcessRunner, { store, pid: Deno.pid, killGraceMs: 500 });
  try {
    const host = new MemoryHost({ "/app/a.txt": "" });
    const error = await assertRejects(() => jobs.start(host, "/app", "echo ran"));
    assert(isAnchorError(error) && error.code === "SHELL_REMOTE_CWD", String(error));
    assertEquals(await jobs.list(), []);
  } finally {
    await jobs.shutdown();
  }
});
