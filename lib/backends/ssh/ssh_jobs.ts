// An ssh host's JobHost: its job host (remote_job_runner.ts) starts the job there over the
// pooled connection, streams its output into the log and ends its tree; this adapts that wire to
// what the job manager asks of every host's jobs (lib/ops/ports/job_host.ts).

import { commandKey } from "../../core/jobs/command_key.ts";
import { remoteRow } from "../../core/jobs/job_processes.ts";
import type {
  JobHost,
  JobRun,
  JobStart,
  RemoteJobHost,
  RemoteJobRef,
  RemoteProcessInfo,
} from "../../ops/ports/job_host.ts";

export class SshJobs implements JobHost {
  constructor(readonly remote: RemoteJobHost) {}

  get description(): string {
    return this.remote.description;
  }

  /** The ssh:// directory as written: its real path is the host's to resolve. */
  key(command: string, dir: { url: string }): Promise<string> {
    return Promise.resolve(commandKey(command, dir.url, false));
  }

  async startJob({ command, dir, id, cookie, log, graceMs }: JobStart): Promise<JobRun> {
    const job = await this.remote.startJob({ command, dir: dir.path, log, cookie, id, graceMs });
    const rows = remoteRow(job.pid);
    /** Ends the processes of the job; none when the host cannot be reached. */
    const kill = async () => {
      try {
        return (await job.kill(graceMs)).map(rows);
      } catch {
        return [];
      }
    };
    return {
      pid: job.pid,
      host: this.remote.description,
      exited: job.exited,
      kill,
      limitEvents: () => undefined,
      // Its wrapper on the host swept what it left when it could; else it is done from here.
      sweepEnd: async (_record, end) => end.leftovers?.map(rows) ?? await kill(),
      stopLost: async () => (await job.kill(graceMs)).map(rows),
      abort: async () => void await job.kill(graceMs).catch(() => []),
      shutdown: kill,
    };
  }

  stopJob(job: RemoteJobRef, graceMs: number): Promise<RemoteProcessInfo[]> {
    return this.remote.stopJob(job, graceMs);
  }
}
