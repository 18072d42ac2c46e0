// This machine as the host a test's job runs on, for tests that start jobs through a JobManager
// of their own: `jobs.start(here(jobs), cwd, command)`. The local disk, bash, and the manager's
// own jobs (as lib/compose.ts hands them to the LocalHost). Holds no handle of its own.

import { LocalBackend } from "../lib/backends/local/local_backend.ts";
import { LocalHost } from "../lib/backends/local/local_host.ts";
import type { JobManager } from "../lib/ops/jobs/job_manager.ts";
import type { Host } from "../lib/ops/ports/host.ts";

const disk = new LocalBackend();

export function here(jobs: Pick<JobManager, "localJobs">): Host {
  return new LocalHost(disk, "bash", jobs.localJobs);
}
