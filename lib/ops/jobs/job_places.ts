// This machine's JobHost: the process runner spawns, the reaper ends (by cookie, group, session
// and cgroup). It lives in ops, not beside LocalHost in lib/backends/local, because it is the job
// manager's: its logs are the manager's store's files and its ends are the manager's reaper's
// (an ops module a backend may not import); the composition root (lib/compose.ts) hands it to
// the LocalHost. An ssh host's JobHost is lib/backends/ssh/ssh_jobs.ts.

import { commandKey } from "../../core/jobs/command_key.ts";
import type { JobRecord } from "../../core/jobs/job_state.ts";
import type { JobHost } from "../ports/job_host.ts";
import type { JobStore } from "../ports/job_store.ts";
import type { LocalReaping } from "./job_reaping.ts";
import { realDirectory } from "./job_registry.ts";

/** This machine's jobs, their logs in `store`, their processes ended by `reaping`. */
export function localJobHost(reaping: LocalReaping, store: JobStore): JobHost {
  const runner = reaping.runner;
  return {
    key: async (command, dir) =>
      commandKey(command, await realDirectory(runner, dir.path), runner.caseInsensitivePaths),
    async startJob({ command, dir, id, cookie, log }) {
      const files = store.localFiles(id);
      if (!files) {
        throw new Error(`the job store (${store.root}) keeps no log file on this machine`);
      }
      const spawned = await runner.spawn({
        command,
        cwd: dir.path,
        logPath: files.log,
        log,
        scriptPath: files.script,
        cookie,
      });
      return {
        pid: spawned.pid,
        ...(spawned.startTicks !== undefined && { startTicks: spawned.startTicks }),
        ...(spawned.containment && { containment: spawned.containment }),
        exited: spawned.exited,
        ...(spawned.output && { output: spawned.output }),
        kill: (record) => reaping.kill(record),
        limitEvents: (record) => runner.cgroupLimitEvents?.(reaping.cgroupsOf(record)),
        sweepEnd: (record) => reaping.endProcesses(record),
        // A local job's end is always observed.
        stopLost: () => Promise.resolve([]),
        abort: async (record) => void await reaping.endProcesses(record),
        // The sweep of this server's cookies and cgroups ends it.
        shutdown: () => Promise.resolve(),
      };
    },
  };
}

/** The record fields of a job's containment: its cgroups, and how it is held (and why less). */
export function containmentFields(
  c: { label: string; cgroups: string[]; note?: string } | undefined,
): Partial<JobRecord> {
  if (!c) return {};
  return {
    ...(c.cgroups.length > 0 && { cgroups: c.cgroups }),
    containment: c.note === undefined ? c.label : `${c.label} (${c.note})`,
  };
}
