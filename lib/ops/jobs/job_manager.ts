// The process-wide job manager: starts shell commands as jobs (duplicate guard, concurrency
// cap), watches their logs (cap, progress), records the end exactly once, waits, kills, and on
// shutdown terminates every job this server started. Every job process carries a cookie
// (ANCHORFS_JOB) so all of a job's processes end with it, even those that left its session.
// Records live in the JobStore, so other servers and `anchorfs jobs` see the same jobs; the
// store, the process runner and this server's pid are passed in.

import { commandKey } from "../../core/jobs/command_key.ts";
import {
  DuplicateJobError,
  duplicateStartingError,
  HELD_OPEN_NOTE,
  HELD_PIPE_NOTE,
  jobNotFound,
  leftoversNote,
  lostReason,
  recordUncreatable,
  recordUnwritable,
  remoteStopError,
  shuttingDown,
  spawnFailed,
  tooManyJobs,
} from "./job_messages.ts";
import {
  cookiesInTable,
  describeProcesses,
  jobCookie,
  type ProcessInfo,
} from "../../core/jobs/job_processes.ts";
import {
  finishRecord,
  isTerminal,
  type JobExit,
  type JobRecord,
  loseRecord,
  startRecord,
} from "../../core/jobs/job_state.ts";
import { stripTrailing } from "../../core/path/path_text.ts";
import { type JobLog, type JobStore, type TailRead } from "../ports/job_store.ts";
import { isJobId } from "../../core/jobs/job_uri.ts";
import { killJobProcesses, killJobProcessesNow, type ReapTarget } from "./process_reaper.ts";
import type { ProcessRunner, SpawnedJob } from "../ports/process_runner.ts";
import type { RemoteJob, RemoteJobHost, RemoteProcessInfo } from "../ports/job_host.ts";
import type { Hosts } from "../ports/host.ts";
import {
  HOST_PROBE_MS,
  type HostCheck,
  hostKey,
  type ListedJob,
  probeHosts,
} from "./host_probe.ts";

/** Where a job on another host runs: the host, and the directory there. */
export interface RemotePlace {
  host: RemoteJobHost;
  dir: string;
}

export interface JobManagerOptions {
  /** Where records and logs live (lib/backends/local/disk_job_store.ts on a real server). */
  store: JobStore;
  /** This server's pid: job ids start with it, and it is never signalled as a job's process. */
  pid: number;
  /** On-disk log cap per job (default 1 GiB). */
  logCapBytes?: number;
  /** Jobs allowed to run at once (default 16). */
  maxRunning?: number;
  /** Grace between TERM and KILL (default 2 s). */
  killGraceMs?: number;
  /** Finished records kept (default 100) and for how long (default 7 days). */
  keepFinished?: number;
  keepFinishedMs?: number;
  /** Total log bytes of finished jobs kept (default 4 GiB); older logs go first. */
  keepFinishedBytes?: number;
  /** How often a running job's log is checked against the cap (default 100 ms). */
  pollMs?: number;
  /** How long `list` waits for the host of a dead server's remote job (default 3 s). */
  hostProbeMs?: number;
  /**
   * Where the hosts of other servers' remote jobs are found (Locations, over this process's
   * pool); without it such a job cannot be stopped from here.
   */
  hosts?: Hosts;
  /** Clock, for tests. */
  now?: () => number;
}

/** What a kill did: the record now, whether the job was running, the processes signalled. */
export interface KillResult {
  record: JobRecord;
  wasRunning: boolean;
  killed: ProcessInfo[];
}

export type JobEvent = { kind: "start" | "end"; record: JobRecord };
export type JobListener = (event: JobEvent) => void;

interface RunningJob {
  record: JobRecord;
  key: string;
  cap: JobLog;
  cause: JobExit["cause"];
  done: Promise<JobRecord>;
  timer: ReturnType<typeof setInterval> | undefined;
  /** The chain of record writes (see persist). */
  writes: Promise<void>;
  /** What the end's own sweep terminated (a kill running meanwhile reports these too). */
  endKilled: ProcessInfo[];
  /** Set for a job on an ssh host. */
  remote?: RemoteJob;
  /** The output pipe the runner writes into the log (a local job on Linux or macOS). */
  output?: SpawnedJob["output"];
  /**
   * The sweep of a `jobs kill` in flight: the processes it signalled. The end waits for it to
   * tell a kill from an exit that came first (the kill then found the job's shell gone).
   */
  killing?: Promise<ProcessInfo[]>;
}

export const DEFAULT_LOG_CAP_BYTES = 1024 ** 3;
export const DEFAULT_MAX_RUNNING = 16;

export class JobManager {
  readonly store: JobStore;
  private readonly running = new Map<string, RunningJob>();
  private readonly byKey = new Map<string, string>();
  /**
   * This server instance in job cookies (`<instance>/<job id>`): random, so a recycled server
   * pid never makes another server's processes look like ours.
   */
  readonly instance: string = crypto.randomUUID().replaceAll("-", "").slice(0, 16);
  private readonly listeners = new Set<JobListener>();
  private counter = 0;
  /** Starts in flight (counted against the running cap). */
  private starting = 0;
  private closing = false;
  private lastPrune = 0;
  private readonly now: () => number;
  readonly logCapBytes: number;
  readonly maxRunning: number;
  private readonly killGraceMs: number;
  private readonly pollMs: number;

  private readonly pid: number;

  constructor(private readonly runner: ProcessRunner, readonly options: JobManagerOptions) {
    this.store = options.store;
    this.pid = options.pid;
    this.now = options.now ?? Date.now;
    this.logCapBytes = options.logCapBytes ?? DEFAULT_LOG_CAP_BYTES;
    this.maxRunning = options.maxRunning ?? DEFAULT_MAX_RUNNING;
    this.killGraceMs = options.killGraceMs ?? 2000;
    this.pollMs = options.pollMs ?? 100;
  }

  /** The job host of a remote record's directory, reached through `options.hosts`. */
  private async jobHostAt(url: string): Promise<RemoteJobHost> {
    const host = await this.options.hosts!.hostAt(url);
    if (!host.jobs) throw new Error(`${JSON.stringify(url)} does not run commands`);
    return host.jobs;
  }

  subscribe(listener: JobListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: JobEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch {
        // a broken listener must not stop the others
      }
    }
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
   * The processes of a job: its cookie, its shell's session/group, their descendants, and every
   * process in its cgroups (those of the record that name this job's own).
   */
  private targetOf(record: JobRecord): ReapTarget {
    return {
      cgroups: this.cgroupsOf(record),
      ...(record.cookie !== undefined && { cookie: record.cookie }),
      leader: { pid: record.pid, startTicks: record.pidStartTicks },
      exclude: [this.pid],
      ...(record.pidStartTicks !== undefined && { sinceTicks: record.pidStartTicks }),
    };
  }

  /** The record's cgroups this machine may touch (none for a remote job: they are on its host). */
  private cgroupsOf(record: JobRecord): string[] {
    if (record.host !== undefined || !record.cgroups) return [];
    return this.runner.acceptedCgroups?.(record.cgroups, record.cookie) ?? [];
  }

  /** Ends every process of a local job (see targetOf), then removes its cgroups. */
  private async endProcesses(record: JobRecord): Promise<ProcessInfo[]> {
    const killed = await killJobProcesses(this.runner, this.targetOf(record), this.killGraceMs);
    const cgroups = this.cgroupsOf(record);
    if (cgroups.length > 0) await this.runner.removeCgroups?.(cgroups);
    return killed;
  }

  /** The containment new jobs get, for the start-up log. */
  async containmentLine(): Promise<string | undefined> {
    return await this.runner.containmentLine?.();
  }

  /**
   * Leftovers of finished jobs whose server is gone (it died before it could end them, e.g.
   * `kill -9` while it was terminating them): found by cookie, terminated. One process-table
   * read for all records; a live server's jobs are left to it.
   */
  private async sweepFinished(records: JobRecord[]): Promise<void> {
    // A remote job's processes are on its host (its wrapper reaped them when it ended).
    const finished = records.filter((r) =>
      isTerminal(r.status) && r.cookie !== undefined && r.host === undefined
    );
    if (finished.length === 0) return;
    const since = Math.min(...finished.map((r) => r.pidStartTicks ?? 0));
    const present = cookiesInTable(this.runner.listProcesses(since));
    for (const record of finished) {
      const cgroups = this.cgroupsOf(record);
      const inCgroups = cgroups.length > 0 &&
        (this.runner.cgroupMembers?.(cgroups).length ?? 0) > 0;
      if (!present.has(record.cookie!) && !inCgroups) {
        if (cgroups.length > 0) await this.runner.removeCgroups?.(cgroups);
        continue;
      }
      if (this.runner.processIsSame(record.serverPid, record.serverStartTicks)) continue;
      await this.endProcesses(record);
    }
  }

  /**
   * A record left `running` by a server that is gone becomes `lost`; every process provably the
   * job's (its cookie, its shell's session/group while anchored, their descendants) is
   * terminated. Returns the record as it is now.
   */
  private async reconcile(record: JobRecord): Promise<JobRecord> {
    return (await this.reconcileKilling(record)).record;
  }

  /** reconcile, also returning the processes it terminated. */
  private async reconcileKilling(
    record: JobRecord,
  ): Promise<{ record: JobRecord; killed: ProcessInfo[] }> {
    if (isTerminal(record.status) || this.running.has(record.id)) return { record, killed: [] };
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
      killed = await this.endProcesses(record);
      if (killed.length > 0) {
        why += `; ${describeProcesses(killed)} of it were still running and have been terminated`;
      }
    }
    const next = loseRecord(record, this.now(), why);
    if (!next.changed) return { record, killed };
    await this.store.write(next.record);
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
   * Starts a command as a job. Refuses duplicates of a running command and past the cap. With
   * `remote`, it runs on that host (`cwd` is then the directory's ssh:// URL, as shown).
   */
  async start(command: string, cwd: string, remote?: RemotePlace): Promise<JobRecord> {
    if (this.closing) {
      throw shuttingDown(command);
    }
    const key = remote
      ? commandKey(command, cwd, false)
      : commandKey(command, await this.realDirectory(cwd), this.runner.caseInsensitivePaths);
    const duplicateId = this.byKey.get(key);
    const duplicate = duplicateId ? this.running.get(duplicateId) : undefined;
    if (duplicate) throw new DuplicateJobError(duplicate.record, this.now(), this.pid);
    if (duplicateId === STARTING) throw duplicateStartingError(command, cwd);
    if (this.running.size + this.starting >= this.maxRunning) {
      throw tooManyJobs(command, [...this.running.keys()], this.starting, this.maxRunning);
    }
    // Claim the key and a slot before the first await, so concurrent calls see them.
    this.byKey.set(key, STARTING);
    this.starting++;
    try {
      const elsewhere = await this.runningElsewhere(key);
      if (elsewhere) throw new DuplicateJobError(elsewhere, this.now(), this.pid);
      return await this.launch(command, cwd, key, remote);
    } catch (e) {
      if (this.byKey.get(key) === STARTING) this.byKey.delete(key);
      throw e;
    } finally {
      this.starting--;
    }
  }

  /**
   * The same command running in the same directory as a job of another live anchorfs server on
   * this state dir (two agent sessions in one checkout): those two runs would fight just the
   * same. Only records whose server is provably alive count; a dead server's are `lost`.
   */
  private async runningElsewhere(key: string): Promise<JobRecord | undefined> {
    // An unreadable state dir is reported by the launch that follows, with its own message.
    const ids = await this.store.ids().catch(() => [] as string[]);
    // Ids start with their server's pid: read only the records of other servers still alive
    // (usually none), so a shell call does not read every record on disk.
    const alive = new Map<number, boolean>();
    for (const id of ids) {
      const serverPid = Number(id.slice(0, id.indexOf("-")));
      if (serverPid === this.pid) continue;
      if (!alive.has(serverPid)) {
        alive.set(serverPid, this.runner.processIsSame(serverPid, undefined));
      }
      if (!alive.get(serverPid)) continue;
      const record = await this.store.read(id);
      if (!record || isTerminal(record.status)) continue;
      const realCwd = await this.realDirectory(record.cwd);
      if (commandKey(record.command, realCwd, this.runner.caseInsensitivePaths) !== key) continue;
      if (this.runner.processIsSame(record.serverPid, record.serverStartTicks)) return record;
    }
    return undefined;
  }

  /**
   * The directory with symlinks resolved, so `a` and a link to it are one place for the
   * duplicate guard; as given when it cannot be resolved (the spawn then reports why).
   */
  private async realDirectory(cwd: string): Promise<string> {
    if (/^(ssh|sftp):\/\//.test(cwd)) return cwd;
    try {
      return await this.runner.realDirectory(cwd);
    } catch {
      return cwd;
    }
  }

  private async launch(
    command: string,
    cwd: string,
    key: string,
    remote?: RemotePlace,
  ): Promise<JobRecord> {
    let id: string;
    do {
      id = `${this.pid}-${++this.counter}`;
    } while (!(await this.reserveId(id)));
    const cookie = jobCookie(this.instance, id);
    const log = this.store.openLog(id, this.logCapBytes);
    let spawned;
    let remoteJob: RemoteJob | undefined;
    try {
      ({ spawned, remoteJob } = await this.spawn(command, cwd, id, cookie, log, remote));
    } catch (e) {
      log.close();
      await this.store.remove(id);
      throw spawnFailed(command, cwd, e);
    }
    const record = startRecord({
      id,
      command,
      cwd,
      cookie,
      pid: spawned.pid,
      ...(remote && { host: remote.host.description }),
      ...(spawned.startTicks !== undefined && { pidStartTicks: spawned.startTicks }),
      ...containmentFields(spawned.containment),
      serverPid: this.pid,
      ...(this.runner.ownStartTicks() !== undefined &&
        { serverStartTicks: this.runner.ownStartTicks() }),
      startedAt: this.now(),
      logCapBytes: this.logCapBytes,
    });
    try {
      await this.store.write(record);
    } catch (e) {
      // An untracked job must not run: stop it before reporting.
      if (remoteJob) await remoteJob.kill(this.killGraceMs).catch(() => []);
      else await this.endProcesses(record);
      spawned.output?.close();
      log.close();
      throw recordUnwritable(this.store.root, e);
    }
    const job: RunningJob = {
      record,
      key,
      cap: log,
      cause: "exit",
      done: Promise.resolve(record),
      timer: undefined,
      writes: Promise.resolve(),
      endKilled: [],
      ...(remoteJob && { remote: remoteJob }),
      ...(spawned.output && { output: spawned.output }),
    };
    job.timer = setInterval(() => this.watch(job), this.pollMs);
    job.done = spawned.exited.then((exit) => this.finish(job, exit));
    this.byKey.set(key, id);
    this.running.set(id, job);
    this.emit({ kind: "start", record });
    return record;
  }

  /** Starts the job's process: on the remote host when there is one, else through the runner. */
  private async spawn(
    command: string,
    cwd: string,
    id: string,
    cookie: string,
    log: JobLog,
    remote: RemotePlace | undefined,
  ): Promise<{ spawned: SpawnedJob; remoteJob?: RemoteJob }> {
    if (remote) {
      const remoteJob = await remote.host.startJob({
        command,
        dir: remote.dir,
        log,
        cookie,
        id,
        graceMs: this.killGraceMs,
      });
      return {
        spawned: { pid: remoteJob.pid, startTicks: undefined, exited: remoteJob.exited },
        remoteJob,
      };
    }
    const files = this.store.localFiles(id);
    if (!files) {
      throw new Error(`the job store (${this.store.root}) keeps no log file on this machine`);
    }
    const spawned = await this.runner.spawn({
      command,
      cwd,
      logPath: files.log,
      log,
      scriptPath: files.script,
      cookie,
    });
    return { spawned };
  }

  /** Record writes of one job happen in order, so a late write never undoes the end. */
  private persist(job: RunningJob, record: JobRecord): Promise<void> {
    job.writes = job.writes.then(() => this.store.write(record)).catch(() => {});
    return job.writes;
  }

  private async reserveId(id: string): Promise<boolean> {
    try {
      return await this.store.reserve(id);
    } catch (e) {
      throw recordUncreatable(this.store.root, e);
    }
  }

  private watch(job: RunningJob): void {
    const before = job.cap.droppedBytes;
    job.cap.enforce();
    if (job.cap.droppedBytes !== before) {
      job.record = { ...job.record, droppedBytes: job.cap.droppedBytes };
      this.persist(job, job.record);
    }
  }

  private async finish(
    job: RunningJob,
    exit: {
      exitCode: number | null;
      signal: string | null;
      lost?: string;
      leftovers?: RemoteProcessInfo[];
      heldOpen?: boolean;
      containment?: string;
    },
  ): Promise<JobRecord> {
    clearInterval(job.timer);
    if (exit.containment !== undefined) {
      job.record = { ...job.record, containment: exit.containment };
    }
    if (exit.lost !== undefined) return await this.finishLost(job, exit.lost);
    let cause = job.cause;
    // A kill that reached the job's shell ended it; one that found the shell already gone (it
    // exited by itself while the kill was on its way) did not: the exit code is the real end.
    if (cause === "exit" && job.killing) {
      const signalled = await job.killing;
      if (signalled.some((p) => p.pid === job.record.pid)) cause = "killed";
    }
    if (cause === "exit" && await this.store.killRequested(job.record.id)) cause = "killed";
    // Every process of the job ends with it: whatever its shell left running (`cmd &`, setsid,
    // nohup) is terminated before the end is recorded, so nothing grows the log after that.
    // Read before the cgroups go with the processes.
    const limits = job.remote
      ? undefined
      : this.runner.cgroupLimitEvents?.(this.cgroupsOf(job.record));
    const leftovers = job.remote
      ? exit.leftovers?.map(remoteRow(job.remote.pid)) ?? await this.killRemote(job.remote)
      : await this.endProcesses(job.record);
    job.endKilled = leftovers;
    // The output the ended processes left in the pipe is theirs; then the pipe is closed, so a
    // process still holding it (none the job's: they are gone) cannot grow the log.
    const drained = job.output ? await job.output.settle() : true;
    job.output?.close();
    const note = cause === "exit" && leftovers.length > 0 ? leftoversNote(leftovers) : undefined;
    const held = exit.heldOpen ? HELD_OPEN_NOTE : drained ? undefined : HELD_PIPE_NOTE;
    const limitNote = limits && `[anchorfs: its limits were reached: ${limits}.]`;
    const notes = [note, held && `[anchorfs: ${held}.]`, limitNote].filter((n) => n !== undefined);
    job.cap.enforce(notes.reduce((n, t) => n + new TextEncoder().encode(t).length + 2, 0));
    for (const n of notes) job.cap.appendNote(n);
    const size = await this.store.logSize(job.record.id);
    const result = finishRecord(job.record, {
      exitCode: exit.exitCode,
      signal: exit.signal,
      cause,
      ...(cause === "exit" && leftovers.length > 0 &&
        { leftovers: describeProcesses(leftovers) }),
      ...((held ?? limits) !== undefined && {
        note: [held, limits && `its limits were reached: ${limits}`].filter(Boolean).join("; "),
      }),
      outputBytes: job.cap.outputBytes(size),
      droppedBytes: job.cap.droppedBytes,
      endedAt: this.now(),
    });
    job.cap.close();
    job.record = result.record;
    if (result.changed) await this.persist(job, result.record);
    this.running.delete(job.record.id);
    if (this.byKey.get(job.key) === job.record.id) this.byKey.delete(job.key);
    if (result.changed) this.emit({ kind: "end", record: result.record });
    this.prune().catch(() => {});
    return result.record;
  }

  /** Ends the processes of a remote job; none when the host cannot be reached. */
  private async killRemote(remote: RemoteJob): Promise<ProcessInfo[]> {
    try {
      return (await remote.kill(this.killGraceMs)).map(remoteRow(remote.pid));
    } catch {
      return [];
    }
  }

  /**
   * Ends the processes of a remote job this server is not running (another server's, or a dead
   * server's) over this process's own connection to its host. `failed` says why nothing could
   * be done: the host is unreachable, or the record's ssh:// directory now resolves to another
   * host than the one it ran on (then nothing there is touched).
   */
  private async stopRemote(
    record: JobRecord,
  ): Promise<{ killed: ProcessInfo[]; failed?: string }> {
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
        this.killGraceMs,
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
   * A remote job whose end could not be observed (the connection dropped): recorded `lost` with
   * the reason, never started again. Whatever of it still runs there is stopped if the host can
   * be reached again.
   */
  private async finishLost(job: RunningJob, why: string): Promise<JobRecord> {
    let killed: ProcessInfo[] = [];
    let unreached: string | undefined;
    if (job.remote) {
      try {
        killed = (await job.remote.kill(this.killGraceMs)).map(remoteRow(job.remote.pid));
      } catch (e) {
        unreached = stripTrailing((e as Error).message, ".");
      }
    }
    const reason = lostReason(why, killed, unreached);
    job.cap.enforce();
    const size = await this.store.logSize(job.record.id);
    const result = loseRecord(
      { ...job.record, droppedBytes: job.cap.droppedBytes, outputBytes: job.cap.outputBytes(size) },
      this.now(),
      reason,
    );
    job.cap.close();
    job.record = result.record;
    if (result.changed) await this.persist(job, result.record);
    this.running.delete(job.record.id);
    if (this.byKey.get(job.key) === job.record.id) this.byKey.delete(job.key);
    if (result.changed) this.emit({ kind: "end", record: result.record });
    return result.record;
  }

  /** The current record: from memory for this server's running jobs, else from disk. */
  async get(id: string): Promise<JobRecord | undefined> {
    const running = this.running.get(id);
    if (running) return running.record;
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
   * Newest first. Like start-up, ends what dead servers left: their running jobs become lost,
   * and processes still alive of their jobs (finished ones too) are terminated.
   */
  async list(limit = 50): Promise<ListedJob[]> {
    const records = (await this.store.list()).slice(0, limit);
    // A dead server's remote job is reconciled on its host: ask every such host first, at once
    // and briefly, and list the jobs of those that do not answer as recorded, marked.
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
      const running = this.running.get(r.id);
      if (running) return running.record;
      const unreachable = this.needsHost(r) ? down.get(hostKey(r.cwd)) : undefined;
      return unreachable ? { ...r, unreachable } : this.reconcile(r);
    }));
    await this.sweepFinished(listed);
    return listed;
  }

  /** Whether reconciling `record` means reaching its host: a dead server's running remote job. */
  private needsHost(record: JobRecord): boolean {
    return record.host !== undefined && !isTerminal(record.status) &&
      !this.running.has(record.id) &&
      !this.runner.processIsSame(record.serverPid, record.serverStartTicks);
  }

  isRunningHere(id: string): boolean {
    return this.running.has(id);
  }

  runningIds(): string[] {
    return [...this.running.keys()];
  }

  async readTail(id: string, maxBytes: number): Promise<{ record: JobRecord; tail: TailRead }> {
    const record = await this.require(id);
    const tail = await this.store.readTail(id, maxBytes, record.droppedBytes);
    return { record, tail };
  }

  /**
   * Size of the job's log and where it is on disk (for a shell command that reads it; undefined
   * when the store keeps no file).
   */
  async logInfo(id: string): Promise<{ record: JobRecord; bytes: number; path?: string }> {
    const record = await this.require(id);
    const path = this.store.localFiles(id)?.log;
    return { record, bytes: await this.store.logSize(id), ...(path !== undefined && { path }) };
  }

  /** Raw bytes of the job's log from `offset` (the log keeps what the command wrote). */
  async readLog(id: string, offset: number, length: number): Promise<Uint8Array> {
    await this.require(id);
    return await this.store.readRange(id, offset, length);
  }

  /**
   * Waits until the job ends or `timeoutMs` passes; never kills. `done` says which. Jobs of
   * another server (shared state dir) are followed through their record on disk.
   */
  async wait(
    id: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<{ record: JobRecord; done: boolean }> {
    const record = await this.require(id);
    if (isTerminal(record.status)) return { record, done: true };
    const deadline = this.now() + timeoutMs;
    const here = this.running.get(id);
    if (here) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), timeoutMs);
        signal?.addEventListener("abort", () => resolve(undefined), { once: true });
      });
      const ended = await Promise.race([here.done, timeout]);
      clearTimeout(timer);
      if (ended) return { record: ended, done: true };
      return { record: here.record, done: false };
    }
    while (this.now() < deadline && !signal?.aborted) {
      await new Promise((r) => setTimeout(r, Math.min(250, Math.max(1, deadline - this.now()))));
      const read = await this.store.read(id);
      const now = read ? await this.reconcile(read) : undefined;
      if (now && isTerminal(now.status)) return { record: now, done: true };
    }
    return { record: (await this.store.read(id)) ?? record, done: false };
  }

  /**
   * Kills every process of the job (TERM, then KILL after a grace; found by cookie, session and
   * parentage) and waits for its end. `killed` names the processes signalled.
   */
  async kill(id: string): Promise<KillResult> {
    // Read without reconciling: a dead server's job is reconciled below, reporting its kills.
    const record = this.running.get(id)?.record ??
      (isJobId(id) ? await this.store.read(id) : undefined) ?? await this.require(id);
    const target = this.targetOf(record);
    // A remote record's pid and cookie name processes on its host, never local ones.
    const killAll = async () =>
      record.host !== undefined
        ? (await this.stopRemote(record)).killed
        : await this.endProcesses(record);
    if (isTerminal(record.status)) {
      // Its shell ended; anything it left that is still alive goes now.
      return { record, wasRunning: false, killed: await killAll() };
    }
    const here = this.running.get(id);
    if (here) {
      const sweep = here.remote
        ? this.killRemote(here.remote)
        : killJobProcesses(this.runner, target, this.killGraceMs);
      here.killing = sweep;
      const killed = await sweep;
      const ended = await here.done;
      // The shell's end sweeps concurrently and may have terminated some of them first; an end
      // that is not "killed" came before the kill reached the shell: report it as it was.
      return {
        record: ended,
        wasRunning: ended.status === "killed",
        killed: mergeProcesses(killed, here.endKilled),
      };
    }
    // A job whose server is gone: terminate what is provably its, record it as lost.
    const reconciled = await this.reconcileKilling(record);
    if (isTerminal(reconciled.record.status)) return { ...reconciled, wasRunning: true };
    // Another live server's job: leave a note so that server records "killed", and end its
    // processes from here (the cookie proves them the job's; a remote job's over this
    // process's own connection to its host, and its server then sees its end).
    await this.store.requestKill(id);
    let killed: ProcessInfo[];
    if (record.host !== undefined) {
      const stopped = await this.stopRemote(record);
      if (stopped.failed !== undefined) throw remoteStopError(record, stopped.failed);
      killed = stopped.killed;
    } else killed = await killJobProcesses(this.runner, target, this.killGraceMs);
    const ended = await this.wait(id, this.killGraceMs + 5000);
    return { record: ended.record, wasRunning: true, killed };
  }

  /** The cookie prefix of every job this server started, and its running jobs' cgroups. */
  private ownTarget(): ReapTarget {
    const since = this.runner.ownStartTicks();
    return {
      cgroups: [...this.running.values()].flatMap((j) => this.cgroupsOf(j.record)),
      cookiePrefix: `${this.instance}/`,
      exclude: [this.pid],
      ...(since !== undefined && { sinceTicks: since }),
    };
  }

  /**
   * Terminates every process of every job this server started (running or ended) and records
   * that as the running jobs' end. Safe to call twice; after it, start() refuses.
   */
  async shutdown(): Promise<void> {
    this.closing = true;
    const jobs = [...this.running.values()];
    for (const job of jobs) job.cause = "shutdown";
    await Promise.all([
      killJobProcesses(this.runner, this.ownTarget(), this.killGraceMs),
      ...jobs.filter((j) => j.remote).map((j) => this.killRemote(j.remote!)),
    ]);
    await Promise.all(
      jobs.map((job) => Promise.race([job.done, new Promise((r) => setTimeout(r, 3000))])),
    );
    // Anything forked during the sweep.
    killJobProcessesNow(this.runner, this.ownTarget());
    for (const job of this.running.values()) clearInterval(job.timer);
  }

  /** Last-resort synchronous kill for abrupt exits (no records written). */
  killAllNow(): void {
    killJobProcessesNow(this.runner, this.ownTarget());
  }
}

/** The record fields of a job's containment: its cgroups, and how it is held (and why less). */
function containmentFields(
  c: { label: string; cgroups: string[]; note?: string } | undefined,
): Partial<JobRecord> {
  if (!c) return {};
  return {
    ...(c.cgroups.length > 0 && { cgroups: c.cgroups }),
    containment: c.note === undefined ? c.label : `${c.label} (${c.note})`,
  };
}

/** A remote process as a table row (its group is the job's; no start time is known here). */
function remoteRow(pgid: number): (p: RemoteProcessInfo) => ProcessInfo {
  return (p) => ({
    pid: p.pid,
    name: p.name,
    ppid: 0,
    pgrp: pgid,
    sid: pgid,
    startTicks: 0,
    state: "?",
  });
}

/** Both lists without repeats, in start order. */
function mergeProcesses(a: ProcessInfo[], b: ProcessInfo[]): ProcessInfo[] {
  const all = new Map<string, ProcessInfo>();
  for (const p of [...a, ...b]) all.set(`${p.pid}:${p.startTicks}`, p);
  return [...all.values()].sort((x, y) => x.startTicks - y.startTicks || x.pid - y.pid);
}

/** byKey placeholder while a start is in flight. */
const STARTING = "starting";
