// Process-wide services shared by every session: file backends, and (later) jobs and the undo
// history. Ops receive these as arguments; lib/compose.ts builds them.

import type { JobManager } from "./jobs/job_manager.ts";
import type { Locations } from "./location.ts";

export interface Services {
  locations: Locations;
  /** Shell jobs: started by the shell tool, durable under the state dir (lib/ops/jobs). */
  jobs: JobManager;
}
