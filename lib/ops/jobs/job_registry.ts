// What the records of jobs this server is not running mean: a record left `running` by a dead
// server becomes `lost` (its processes ended, here or on its host), a finished job's leftovers
// are swept, another live server's duplicate is found, a foreign job's remote processes are
// stopped over this process's own connection, and the list probes the hosts it must reach.
// Old finished records are pruned here too. This server's own running jobs are the lifecycle's.

import { commandKey } from "../../core/jobs/command_key.ts";
import {
  cookiesInTable,
  describeProcesses,
  type ProcessInfo,
  remoteRow,
} from "../../core/jobs/job_processes.ts";
import { isTerminal, type JobRecord, loseRecord } from "../../core/jobs/job_state.ts";
import { stripTrailing } from "../../core/path/path_text.ts";
import type { JobHost } from "../ports/job_host.ts";
import type { JobStore } from "../ports/job_store.ts";
import type { ProcessRunner } from "../ports/process_runner.ts";
import {
  HOST_PROBE_MS,
  type HostCheck,
  hostKey,
  type ListedJob,
  probeHosts,
} from "./host_probe.ts";
import type { LocalReaping } from "./job_reaping.ts";
import type { JobManagerOptions } from "./job_manager_options.ts";
import { jobNotFound, remoteStopError } from "./job_messages.ts";
import { isJobId } from "../../core/jobs/job_uri.ts";
import { unsavedBecause } from "./record_writes.ts";

export class JobRegistry {
  private lastPrune = 0;
  private readonly store: JobStore;
  private readonly runner: ProcessRunner;
  private readonly now: () => number;

  /**
   * `runningHere`: this server's record of a job it runs (such a record is never reconciled);
   * `graceMs` between TERM and KILL.
   */
  constructor(
    private readonly reaping: LocalReaping,
    private readonly options: JobManagerOptions,
    private readonly graceMs: number,
    private readonly runningHere: (id: string) => JobRecord | undefined,
  ) {
    this.store = options.store;
    this.runner = reaping.runner;
    this.now = options.now ?? Date.now;
  }

  /** The current record: from memory for this server's running jobs, else from disk. */
  async get(id: string): Promise<JobRecord | undefined> {
    const running = this.runningHere(id);
    if (running) return running;
    const record = await this.store.read(id);
    // A record whose server died says `running` until someone looks: whoever reads it first
    // (another server, `anchorfs jobs`) records it lost, so no reader reports a dead job as live.
    return record && await this.reconcile(record);
  }

  /** Like get, but throws a caller error naming the known jobs. */
  async require(id: string): Promise<JobRecord> {
    const record = isJobId(id) ? await this.get(id) : undefined;
    if (record) return record;
    const recent = (await this.store.list()).slice(0, 5).map((r) => r.id);
    throw jobNotFound(id, recent);
  }

  /**
   * Start-up sweep: records left `running` by a server that is gone become `lost` (their
   * process groups are terminated when provably ours), then old finished records are pruned.
   */
  async recover(): Promise<JobRecord[]> {
    const lost: JobRecord[] = [];
    const records = await this.store.list();
    for (const record of records) {
      const next = await this.reconcile(record);
      if (next !== record) lost.push(next);
    }
    await this.sweepFinished(records);
    await this.prune(true);
    return lost;
  }

  /**
   * Leftovers of finished jobs whose server is gone (it died before it could end them, e.g.
   * `kill -9` while it was terminating them): found by cookie, terminated. One process-table
   * read for all records; a live server's jobs are left to it.
   */
  async sweepFinished(records: JobRecord[]): Promise<void> {
    // A remote job's processes are on its host (its wrapper reaped them when it ended).
    const finished = records.filter((r) =>
      isTerminal(r.status) && r.cookie !== undefined && r.host === undefined
    );
    if (finished.length === 0) return;
    const since = Math.min(...finished.map((r) => r.pidStartTicks ?? 0));
    const present = cookiesInTable(this.runner.listProcesses(since));
    for (const record of finished) {
      const cgroups = this.reaping.cgroupsOf(record);
      const inCgroups = cgroups.length > 0 &&
        (this.runner.cgroupMembers?.(cgroups).length ?? 0) > 0;
      if (!present.has(record.cookie!) && !inCgroups) {
        if (cgroups.length > 0) await this.runner.removeCgroups?.(cgroups);
        continue;
      }
      if (this.runner.processIsSame(record.serverPid, record.serverStartTicks)) continue;
      await this.reaping.endProcesses(record);
    }
  }

  /**
   * A record left `running` by a server that is gone becomes `lost`; every process provably the
   * job's (its cookie, its shell's session/group while anchored, their descendants) is
   * terminated. Returns the record as it is now.
   */
  async reconcile(record: JobRecord): Promise<JobRecord> {
    return (await this.reconcileKilling(record)).record;
  }

  /** reconcile, also returning the processes it terminated. */
  async reconcileKilling(
    record: JobRecord,
  ): Promise<{ record: JobRecord; killed: ProcessInfo[] }> {
    if (isTerminal(record.status) || this.runningHere(record.id)) return { record, killed: [] };
    if (this.runner.processIsSame(record.serverPid, record.serverStartTicks)) {
      return { record, killed: [] };
    }
    let why = `its anchorfs server (pid ${record.serverPid}) ended without recording an end`;
    let killed: ProcessInfo[];
    if (record.host !== undefined) {
      const stopped = await this.stopRemote(record);
      killed = stopped.killed;
      if (stopped.failed !== undefined) {
        why += `; whatever of it still runs on ${record.host} could not be stopped ` +
          `(${stopped.failed})`;
      } else if (killed.length > 0) {
        why += `; ${describeProcesses(killed)} of it were still running on ${record.host} and ` +
          "have been terminated";
      }
    } else {
      killed = await this.reaping.endProcesses(record);
      if (killed.length > 0) {
        why += `; ${describeProcesses(killed)} of it were still running and have been terminated`;
      }
    }
    const next = loseRecord(record, this.now(), why);
    if (!next.changed) return { record, killed };
    try {
      await this.store.write(next.record);
    } catch (e) {
      // The disk refused (full, read-only): the job is lost all the same and its processes are
      // ended. The answer says so and that its record still says running; the next reader
      // finds it running, reconciles it again and tries the write again.
      const now = this.now();
      const unsaved = unsavedBecause(this.store, record.id, e, { attempts: 1, since: now });
      return { record: { ...next.record, unsaved }, killed };
    }
    return { record: next.record, killed };
  }

  /** Deletes finished records beyond the count/age limits. Never touches running jobs. */
  async prune(force = false): Promise<void> {
    const now = this.now();
    if (!force && now - this.lastPrune < 60_000) return;
    this.lastPrune = now;
    const keep = this.options.keepFinished ?? 100;
    const maxAge = this.options.keepFinishedMs ?? 7 * 24 * 3600_000;
    const maxBytes = this.options.keepFinishedBytes ?? 4 * 1024 ** 3;
    let kept = 0;
    let keptBytes = 0;
    for (const record of await this.store.list()) {
      if (!isTerminal(record.status)) continue;
      const age = now - (record.endedAt ?? record.startedAt);
      const bytes = await this.store.logSize(record.id);
      // The newest finished record is always kept, however big its log.
      if (kept === 0 || (kept < keep && age <= maxAge && keptBytes + bytes <= maxBytes)) {
        kept++;
        keptBytes += bytes;
        continue;
      }
      await this.store.remove(record.id);
    }
  }

  /**
   * The same command running in the same directory as a job of another live anchorfs server on
   * this state dir (two agent sessions in one checkout): those two runs would fight just the
   * same. Only records whose server is provably alive count; a dead server's are `lost`.
   */
  async runningElsewhere(key: string): Promise<JobRecord | undefined> {
    // An unreadable state dir is reported by the launch that follows, with its own message.
    const ids = await this.store.ids().catch(() => [] as string[]);
    // Ids start with their server's pid: read only the records of other servers still alive
    // (usually none), so a shell call does not read every record on disk.
    const alive = new Map<number, boolean>();
    for (const id of ids) {
      const serverPid = Number(id.slice(0, id.indexOf("-")));
      if (serverPid === this.options.pid) continue;
      if (!alive.has(serverPid)) {
        alive.set(serverPid, this.runner.processIsSame(serverPid, undefined));
      }
      if (!alive.get(serverPid)) continue;
      const record = await this.store.read(id);
      if (!record || isTerminal(record.status)) continue;
      const realCwd = await realDirectory(this.runner, record.cwd);
      if (commandKey(record.command, realCwd, this.runner.caseInsensitivePaths) !== key) continue;
      if (this.runner.processIsSame(record.serverPid, record.serverStartTicks)) return record;
    }
    return undefined;
  }

  /**
   * The newest `limit` records. A dead server's remote job is reconciled on its host: every
   * such host is asked first, at once and briefly, and the jobs of those that do not answer are
   * listed as recorded, marked; the others are reconciled as `reconcile` does.
   */
  async list(limit: number): Promise<ListedJob[]> {
    const records = (await this.store.list()).slice(0, limit);
    const remote = records.filter((r) => this.needsHost(r));
    const down = remote.length > 0 && this.options.hosts
      ? await probeHosts(
        remote.map((r) => r.cwd),
        (url) => this.jobHostAt(url),
        this.options.hostProbeMs ?? HOST_PROBE_MS,
        this.now,
      )
      : new Map<string, HostCheck>();
    const listed = await Promise.all(records.map((r): Promise<ListedJob> | ListedJob => {
      const running = this.runningHere(r.id);
      if (running) return running;
      const unreachable = this.needsHost(r) ? down.get(hostKey(r.cwd)) : undefined;
      return unreachable ? { ...r, unreachable } : this.reconcile(r);
    }));
    await this.sweepFinished(listed);
    return listed;
  }

  /** Whether reconciling `record` means reaching its host: a dead server's running remote job. */
  private needsHost(record: JobRecord): boolean {
    return record.host !== undefined && !isTerminal(record.status) &&
      !this.runningHere(record.id) &&
      !this.runner.processIsSame(record.serverPid, record.serverStartTicks);
  }

  /**
   * Follows a job of another server through its record on disk until it ends, `deadline`
   * passes or `signal` aborts; `record` is the one read before.
   */
  async follow(
    id: string,
    record: JobRecord,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<{ record: JobRecord; done: boolean }> {
    while (this.now() < deadline && !signal?.aborted) {
      await new Promise((r) => setTimeout(r, Math.min(250, Math.max(1, deadline - this.now()))));
      const read = await this.store.read(id);
      const now = read ? await this.reconcile(read) : undefined;
      if (now && isTerminal(now.status)) return { record: now, done: true };
    }
    return { record: (await this.store.read(id)) ?? record, done: false };
  }

  /**
   * Ends the processes of a remote job this server is not running (another server's, or a dead
   * server's) over this process's own connection to its host. `failed` says why nothing could
   * be done: the host is unreachable, or the record's ssh:// directory now resolves to another
   * host than the one it ran on (then nothing there is touched).
   */
  async stopRemote(record: JobRecord): Promise<{ killed: ProcessInfo[]; failed?: string }> {
    if (!this.options.hosts) {
      return { killed: [], failed: "this process cannot open ssh connections" };
    }
    if (record.cookie === undefined) return { killed: [], failed: "its record has no cookie" };
    try {
      const host = await this.jobHostAt(record.cwd);
      if (record.host !== undefined && host.description !== record.host) {
        return {
          killed: [],
          failed: `${JSON.stringify(record.cwd)} now leads to ${host.description}, not to ` +
            `${record.host} where it ran, so nothing there was touched`,
        };
      }
      const killed = await host.stopJob(
        { id: record.id, pid: record.pid, cookie: record.cookie },
        this.graceMs,
      );
      return { killed: killed.map(remoteRow(record.pid)) };
    } catch (e) {
      return {
        killed: [],
        failed: `could not reach it: ${stripTrailing((e as Error).message, ".")}`,
      };
    }
  }

  /**
   * What a finished job left that is still alive, ended: on its host for a remote record (whose
   * pid and cookie name processes there, never local ones), else on this machine.
   */
  async endLeftovers(record: JobRecord): Promise<ProcessInfo[]> {
    return record.host !== undefined
      ? (await this.stopRemote(record)).killed
      : await this.reaping.endProcesses(record);
  }

  /**
   * The processes of another live server's running job, ended from here (the cookie proves them
   * the job's; a remote job's over this process's own connection to its host). Throws
   * REMOTE_KILL_FAILED when its host cannot be reached.
   */
  async killForeign(record: JobRecord): Promise<ProcessInfo[]> {
    if (record.host === undefined) return await this.reaping.kill(record);
    const stopped = await this.stopRemote(record);
    if (stopped.failed !== undefined) throw remoteStopError(record, stopped.failed);
    return stopped.killed;
  }

  /** The job host of a remote record's directory, found through `options.hosts` (Locations). */
  private async jobHostAt(
    url: string,
  ): Promise<Required<Pick<JobHost, "description" | "stopJob">>> {
    const jobs = (await this.options.hosts!.hostAt(url)).jobs;
    if (jobs?.stopJob === undefined || jobs.description === undefined) {
      throw new Error(`${JSON.stringify(url)} does not run commands`);
    }
    return { description: jobs.description, stopJob: (job, grace) => jobs.stopJob!(job, grace) };
  }
}

/**
 * The directory with symlinks resolved, so `a` and a link to it are one place for the
 * duplicate guard; as given when it cannot be resolved (the spawn then reports why).
 */
export async function realDirectory(runner: ProcessRunner, cwd: string): Promise<string> {
  if (/^(ssh|sftp):\/\//.test(cwd)) return cwd;
  try {
    return await runner.realDirectory(cwd);
  } catch {
    return cwd;
  }
}
