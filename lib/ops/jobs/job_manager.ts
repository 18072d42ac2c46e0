// The process-wide job manager: the one object the shell tool, the jobs tool and `anchorfs jobs`
// use. It puts together the lifecycle of this server's jobs (job_lifecycle.ts) and the registry
// of every record in the store (job_registry.ts): reads, waits and kills go to whichever holds
// the job. Records live in the JobStore, so other servers and `anchorfs jobs` see the same jobs;
// the store, the process runner and this server's pid are passed in.

import { isTerminal, type JobRecord } from "../../core/jobs/job_state.ts";
import { isJobId } from "../../core/jobs/job_uri.ts";
import type { Host } from "../ports/host.ts";
import type { JobHost } from "../ports/job_host.ts";
import { type JobStore, newestFirst, type TailRead } from "../ports/job_store.ts";
import type { ProcessRunner } from "../ports/process_runner.ts";
import type { ListedJob } from "./host_probe.ts";
import { JobLifecycle } from "./job_lifecycle.ts";
import type { JobDir, JobListener, JobManagerOptions, KillResult } from "./job_manager_options.ts";
import { LocalReaping } from "./job_reaping.ts";
import { JobRegistry } from "./job_registry.ts";

export class JobManager {
  readonly store: JobStore;
  /**
   * This server instance in job cookies (`<instance>/<job id>`): random, so a recycled server
   * pid never makes another server's processes look like ours.
   */
  readonly instance: string;
  readonly logCapBytes: number;
  readonly maxRunning: number;
  private readonly life: JobLifecycle;
  /** Other servers' records: reconcile, foreign kills and waits, the list, pruning. */
  private readonly registry: JobRegistry;
  private readonly killGraceMs: number;
  private readonly now: () => number;

  constructor(private readonly runner: ProcessRunner, readonly options: JobManagerOptions) {
    this.store = options.store;
    this.now = options.now ?? Date.now;
    this.killGraceMs = options.killGraceMs ?? 2000;
    const reaping = new LocalReaping(runner, options.pid, this.killGraceMs);
    this.registry = new JobRegistry(
      reaping,
      options,
      this.killGraceMs,
      (id) => this.life.record(id),
    );
    this.life = new JobLifecycle(reaping, this.registry, options);
    this.instance = this.life.instance;
    this.logCapBytes = this.life.logCapBytes;
    this.maxRunning = this.life.maxRunning;
  }

  /**
   * This machine's jobs, for the LocalHost (the composition root hands them over): they keep
   * their logs in this manager's store and end through its reaper.
   */
  get localJobs(): JobHost {
    return this.life.localJobs;
  }

  subscribe(listener: JobListener): () => void {
    return this.life.subscribe(listener);
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
   * Starts a command as a job on `host`, in `cwd` there. Refuses duplicates of a running command
   * and past the cap. It runs through `host.jobs` (this machine's or an ssh host's); a
   * host that only serves files is refused (SHELL_REMOTE_CWD) and nothing runs.
   */
  start(host: Host, cwd: JobDir, command: string): Promise<JobRecord> {
    return this.life.start(host, cwd, command);
  }

  /**
   * The current record: from memory for this server's running jobs (and those that ended here
   * with a record that could not be written), else from disk.
   */
  async get(id: string): Promise<JobRecord | undefined> {
    await this.life.retryUnsaved();
    return await this.registry.get(id);
  }

  /** Like get, but throws a caller error naming the known jobs. */
  async require(id: string): Promise<JobRecord> {
    await this.life.retryUnsaved();
    return await this.registry.require(id);
  }

  /**
   * Newest first. Like start-up, ends what dead servers left: their running jobs become lost,
   * and processes still alive of their jobs (finished ones too) are terminated.
   */
  async list(limit = 50): Promise<ListedJob[]> {
    // Every call that reads jobs first tries again the records the disk refused, so it catches
    // up as soon as it can (and the answer says which still are not saved).
    await this.life.retryUnsaved();
    const listed = await this.registry.list(limit);
    // What only this server knows: its jobs whose record the disk lost or never took (their
    // directory removed, or replaced by a file) are still its jobs, and listed as such.
    const shown = new Set(listed.map((r) => r.id));
    const missing = this.life.heldRecords().filter((r) => !shown.has(r.id));
    return missing.length === 0 ? listed : newestFirst([...listed, ...missing]).slice(0, limit);
  }

  isRunningHere(id: string): boolean {
    return this.life.isRunningHere(id);
  }

  runningIds(): string[] {
    return this.life.runningIds();
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
    return await this.life.waitHere(id, timeoutMs, signal) ??
      await this.registry.follow(id, record, deadline, signal);
  }

  /**
   * Kills every process of the job (TERM, then KILL after a grace; found by cookie, session and
   * parentage) and waits for its end. `killed` names the processes signalled.
   */
  async kill(id: string): Promise<KillResult> {
    await this.life.retryUnsaved();
    // Read without reconciling: a dead server's job is reconciled below, reporting its kills.
    const record = this.life.record(id) ??
      (isJobId(id) ? await this.store.read(id) : undefined) ?? await this.require(id);
    if (isTerminal(record.status)) {
      // Its shell ended; anything it left that is still alive goes now.
      return { record, wasRunning: false, killed: await this.registry.endLeftovers(record) };
    }
    const here = await this.life.killHere(id, record);
    if (here) return here;
    // A job whose server is gone: terminate what is provably its, record it as lost.
    const reconciled = await this.registry.reconcileKilling(record);
    if (isTerminal(reconciled.record.status)) return { ...reconciled, wasRunning: true };
    // Another live server's job: leave a note so that server records "killed", and end its
    // processes from here (the cookie proves them the job's; a remote job's over this
    // process's own connection to its host, and its server then sees its end).
    await this.store.requestKill(id);
    const killed = await this.registry.killForeign(record);
    const ended = await this.wait(id, this.killGraceMs + 5000);
    return { record: ended.record, wasRunning: true, killed };
  }

  /**
   * Terminates every process of every job this server started (running or ended) and records
   * that as the running jobs' end. Safe to call twice; after it, start() refuses. Returns the
   * records that could not be written before it gave up (record.json still says running).
   */
  shutdown(): Promise<JobRecord[]> {
    return this.life.shutdown();
  }

  /** Last-resort synchronous kill for abrupt exits (no records written). */
  killAllNow(): void {
    this.life.killAllNow();
  }
}
