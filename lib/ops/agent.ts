// The state of one agent served by a multi-agent server (HTTP): its session (working directory,
// shown lines), its own undo history, its own job list and the logs of its own jobs, over the
// process-wide services. Locations (but for job logs), edit locks, the search scanner and the job
// limits stay process-wide.

import { UndoStore } from "./edit/undo_store.ts";
import { type AgentJobs, scopeJobs } from "./jobs/agent_jobs.ts";
import { JobLogFiles } from "./jobs/job_log_files.ts";
import type { Location } from "./location.ts";
import type { Services } from "./services.ts";
import { createSession, type Session } from "./session.ts";

export interface Agent {
  readonly services: Services;
  readonly session: Session;
  readonly jobs: AgentJobs;
}

export function createAgent(shared: Services, root: Location): Agent {
  const jobs = scopeJobs(shared.jobs);
  return {
    services: {
      ...shared,
      // A job URI reads this agent's jobs only, as the jobs tool does.
      locations: shared.locations.withJobLogs(new JobLogFiles(jobs.view, shared.shell)),
      // The agent's own history; its bytes go where the server's go.
      undo: new UndoStore(undefined, undefined, undefined, shared.undo.blobs),
      jobs: jobs.view,
    },
    session: createSession(root),
    jobs,
  };
}
