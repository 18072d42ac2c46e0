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
import { describeProcesses, jobCookie, type ProcessInfo } from "../../core/jobs/job_processes.ts";
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
import { LocalReaping, mergeProcesses, remoteRow } from "./job_reaping.ts";
import { JobRegistry, realDirectory } from "./job_registry.ts";
import type { ProcessRunner, SpawnedJob } from "../ports/process_runner.ts";
import type { RemoteJob, RemoteJobHost, RemoteProcessInfo } from "../ports/job_host.ts";
import type { Hosts } from "../ports/host.ts";
import type { ListedJob } from "./host_probe.ts";

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
  private readonly now: () => number;
  readonly logCapBytes: number;
  readonly maxRunning: number;
  private readonly killGraceMs: number;
  private readonly pollMs: number;

  private readonly pid: number;
  private readonly reaping: LocalReaping;
  /** Other servers' records: reconcile, foreign kills and waits, the list, pruning. */
  private readonly registry: JobRegistry;

  constructor(private readonly runner: ProcessRunner, readonly options: JobManagerOptions) {
    this.store = options.store;
    this.pid = options.pid;
    this.now = options.now ?? Date.now;
    this.logCapBytes = options.logCapBytes ?? DEFAULT_LOG_CAP_BYTES;
    this.maxRunning = options.maxRunning ?? DEFAULT_MAX_RUNNING;
    this.killGraceMs = options.killGraceMs ?? 2000;
    this.pollMs = options.pollMs ?? 100;
    this.reaping = new LocalReaping(runner, this.pid, this.killGraceMs);
    this.registry = new JobRegistry(
      this.reaping,
      options,
      this.killGraceMs,
      (id) => this.running.get(id)?.record,
    );
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
  recover(): Promise<JobRecord[]> {
    return this.registry.recover();
  }

  /** The containment new jobs get, for the start-up log. */
  async containmentLine(): Promise<string | undefined> {
    return await this.runner.containmentLine?.();
  }

  /** Deletes finished records beyond the count/age limits. Never touches running jobs. */
  prune(force = false): Promise<void> {
    return this.registry.prune(force);
  }

  /**
   * Starts a command as a job. Refuses duplicates of a running command and past the cap. With
   * `remote`, it runs on that host (`cwd` is then the directory's ssh:// URL, as shown).
   */
  async start(command: string, cwd: string, remote?: RemotePlace): Promise<JobRecord> {
    if (this.closing) {
      throw shuttingDown(command);
    }
    const key = remote ? commandKey(command, cwd, false) : commandKey(
      command,
      await realDirectory(this.runner, cwd),
      this.runner.caseInsensitivePaths,
    );
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
      const elsewhere = await this.registry.runningElsewhere(key);
      if (elsewhere) throw new DuplicateJobError(elsewhere, this.now(), this.pid);
      return await this.launch(command, cwd, key, remote);
    } catch (e) {
      if (this.byKey.get(key) === STARTING) this.byKey.delete(key);
      throw e;
    } finally {
      this.starting--;
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
      else await this.reaping.endProcesses(record);
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
      : this.runner.cgroupLimitEvents?.(this.reaping.cgroupsOf(job.record));
    const leftovers = job.remote
      ? exit.leftovers?.map(remoteRow(job.remote.pid)) ?? await this.killRemote(job.remote)
      : await this.reaping.endProcesses(job.record);
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
    const ended = await this.recordEnd(job, result);
    this.prune().catch(() => {});
    return ended;
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
    return await this.recordEnd(job, result);
  }

  /**
   * The one place a job's end is recorded: the log closed, the record written (once, in order
   * after any earlier write), the job no longer running, and the end announced.
   */
  private async recordEnd(
    job: RunningJob,
    result: { record: JobRecord; changed: boolean },
  ): Promise<JobRecord> {
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
    return record && await this.registry.reconcile(record);
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
    return await this.registry.list(limit);
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
    return await this.registry.follow(id, record, deadline, signal);
  }

  /**
   * Kills every process of the job (TERM, then KILL after a grace; found by cookie, session and
   * parentage) and waits for its end. `killed` names the processes signalled.
   */
  async kill(id: string): Promise<KillResult> {
    // Read without reconciling: a dead server's job is reconciled below, reporting its kills.
    const record = this.running.get(id)?.record ??
      (isJobId(id) ? await this.store.read(id) : undefined) ?? await this.require(id);
    // A remote record's pid and cookie name processes on its host, never local ones.
    const killAll = async () =>
      record.host !== undefined
        ? (await this.registry.stopRemote(record)).killed
        : await this.reaping.endProcesses(record);
    if (isTerminal(record.status)) {
      // Its shell ended; anything it left that is still alive goes now.
      return { record, wasRunning: false, killed: await killAll() };
    }
    const here = this.running.get(id);
    if (here) {
      const sweep = here.remote ? this.killRemote(here.remote) : this.reaping.kill(record);
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
    const reconciled = await this.registry.reconcileKilling(record);
    if (isTerminal(reconciled.record.status)) return { ...reconciled, wasRunning: true };
    // Another live server's job: leave a note so that server records "killed", and end its
    // processes from here (the cookie proves them the job's; a remote job's over this
    // process's own connection to its host, and its server then sees its end).
    await this.store.requestKill(id);
    let killed: ProcessInfo[];
    if (record.host !== undefined) {
      const stopped = await this.registry.stopRemote(record);
      if (stopped.failed !== undefined) throw remoteStopError(record, stopped.failed);
      killed = stopped.killed;
    } else killed = await this.reaping.kill(record);
    const ended = await this.wait(id, this.killGraceMs + 5000);
    return { record: ended.record, wasRunning: true, killed };
  }

  /** The cookie prefix of every job this server started, and its running jobs' cgroups. */
  private ownTarget(): ReapTarget {
    const since = this.runner.ownStartTicks();
    return {
      cgroups: [...this.running.values()].flatMap((j) => this.reaping.cgroupsOf(j.record)),
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

/** byKey placeholder while a start is in flight. */
const STARTING = "starting";
