// This machine as the host a test's job runs on, for tests that start jobs through a JobManager
// of their own (jobs.start(here, cwd, command)). Holds no handle: nothing to release.

import { LocalBackend } from "../lib/backends/local/local_backend.ts";
import { LocalHost } from "../lib/backends/local/local_host.ts";
import type { Host } from "../lib/ops/ports/host.ts";

export const here: Host = new LocalHost(new LocalBackend(), "bash");
