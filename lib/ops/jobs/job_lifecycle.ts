// The lifecycle of this server's jobs: start (duplicate guard, concurrency cap), watch (the log
// cap), end (recorded exactly once, through recordEnd), kill, and on shutdown the end of every
// job this server started. Every job process carries a cookie (ANCHORFS_JOB) so all of a job's
// processes end with it, even those that left its session. Where a job runs (this machine or an
// ssh host) is its host's JobHost's business (ports/job_host.ts); other servers' records are the
// registry's.

import {
  DuplicateJobError,
  duplicateStartingError,
  endNotes,
  lostReason,
  recordUncreatable,
  recordUnwritable,
  runsNoCommands,
  shuttingDown,
  spawnFailed,
  tooManyJobs,
} from "./job_messages.ts";
import { describeProcesses, jobCookie, type ProcessInfo } from "../../core/jobs/job_processes.ts";
import {
  finishRecord,
  type JobExit,
  type JobRecord,
  loseRecord,
  startRecord,
} from "../../core/jobs/job_state.ts";
import { stripTrailing } from "../../core/path/path_text.ts";
import type { Host } from "../ports/host.ts";
import type { JobLog, JobStore } from "../ports/job_store.ts";
import { killJobProcesses, killJobProcessesNow, type ReapTarget } from "./process_reaper.ts";
import { type LocalReaping, mergeProcesses } from "./job_reaping.ts";
import { containmentFields, localJobHost } from "./job_places.ts";
import type { JobEnd, JobHost, JobHostDir, JobRun } from "../ports/job_host.ts";
import type { JobRegistry } from "./job_registry.ts";
import type { ProcessRunner } from "../ports/process_runner.ts";
import { RecordWrites } from "./record_writes.ts";
import {
  DEFAULT_LOG_CAP_BYTES,
  DEFAULT_MAX_RUNNING,
  type JobDir,
  JobEvents,
  type JobListener,
  type JobManagerOptions,
  type KillResult,
} from "./job_manager_options.ts";

interface RunningJob {
  record: JobRecord;
  key: string;
  cap: JobLog;
  cause: JobExit["cause"];
  done: Promise<JobRecord>;
  timer: ReturnType<typeof setInterval> | undefined;
  /** What the end's own sweep terminated (a kill running meanwhile reports these too). */
  endKilled: ProcessInfo[];
  /** Its process, on this machine or an ssh host (its JobHost started it). */
  run: JobRun;
  /**
   * The sweep of a `jobs kill` in flight: the processes it signalled. The end waits for it to
   * tell a kill from an exit that came first (the kill then found the job's shell gone).
   */
  killing?: Promise<ProcessInfo[]>;
}

/** This server's running jobs, from start to recorded end. */
export class JobLifecycle {
  readonly store: JobStore;
  private readonly running = new Map<string, RunningJob>();
  private readonly byKey = new Map<string, string>();
  /** This server instance in job cookies (random: see JobManager.instance). */
  readonly instance: string = crypto.randomUUID().replaceAll("-", "").slice(0, 16);
  private readonly events = new JobEvents();
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
  private readonly runner: ProcessRunner;
  /** Every record write after the start's, and those that could not be made. */
  private readonly writes: RecordWrites;
  private readonly shutdownWaitMs: number;
  /** This machine's jobs (the LocalHost's, handed over by the composition root). */
  readonly localJobs: JobHost;

  /** `registry`: other servers' records (their duplicates; pruning after an end). */
  constructor(
    private readonly reaping: LocalReaping,
    private readonly registry: JobRegistry,
    options: JobManagerOptions,
  ) {
    this.runner = reaping.runner;
    this.store = options.store;
    this.pid = options.pid;
    this.now = options.now ?? Date.now;
    this.logCapBytes = options.logCapBytes ?? DEFAULT_LOG_CAP_BYTES;
    this.maxRunning = options.maxRunning ?? DEFAULT_MAX_RUNNING;
    this.killGraceMs = options.killGraceMs ?? 2000;
    this.pollMs = options.pollMs ?? 100;
    this.shutdownWaitMs = options.shutdownWaitMs ?? 5000;
    this.writes = new RecordWrites(this.store, this.now, options.recordWrites);
    this.localJobs = localJobHost(reaping, this.store);
  }

  subscribe(listener: JobListener): () => void {
    return this.events.subscribe(listener);
  }

  /**
   * Starts a command as a job on `host`, in `dir` there, through `host.jobs`. Refuses a host that
   * only serves files (SHELL_REMOTE_CWD), duplicates of a running command and past the cap.
   */
  async start(host: Host, dir: JobDir, command: string): Promise<JobRecord> {
    // The record keeps the directory as shown (an ssh:// URL remotely); the host gets its path.
    const where = typeof dir === "string" ? { path: dir, url: dir } : dir;
    const cwd = where.url;
    if (this.closing) throw shuttingDown(command);
    const place = host.jobs;
    if (!place) throw runsNoCommands(host.id, command, cwd);
    const key = await place.key(command, where);
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
      return await this.launch(command, where, key, place);
    } catch (e) {
      if (this.byKey.get(key) === STARTING) this.byKey.delete(key);
      throw e;
    } finally {
      this.starting--;
    }
  }

  private async launch(command: string, dir: JobHostDir, key: string, place: JobHost) {
    const cwd = dir.url;
    let id: string;
    do {
      id = `${this.pid}-${++this.counter}`;
    } while (
      !(await this.store.reserve(id).catch((e) => {
        throw recordUncreatable(this.store.root, e);
      }))
    );
    const cookie = jobCookie(this.instance, id);
    const log = this.store.openLog(id, this.logCapBytes);
    let run: JobRun;
    try {
      run = await place.startJob({ command, dir, id, cookie, log, graceMs: this.killGraceMs });
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
      pid: run.pid,
      ...(run.host !== undefined && { host: run.host }),
      ...(run.startTicks !== undefined && { pidStartTicks: run.startTicks }),
      ...containmentFields(run.containment),
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
      await run.abort(record);
      run.output?.close();
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
      endKilled: [],
      run,
    };
    job.timer = setInterval(() => this.watch(job), this.pollMs);
    job.done = run.exited.then((exit) => this.finish(job, exit));
    this.byKey.set(key, id);
    this.running.set(id, job);
    this.events.emit({ kind: "start", record });
    return record;
  }

  private watch(job: RunningJob): void {
    job.cap.enforce();
    // Against the record, not the count before this check: a local job's pump cuts the log
    // too (log_pump.ts), and those drops belong in the record as much as the watch's own.
    if (job.cap.droppedBytes !== job.record.droppedBytes) {
      job.record = { ...job.record, droppedBytes: job.cap.droppedBytes };
      // One that cannot be written is kept with why (record() shows it) and tried again.
      this.writes.write(job.record);
    }
  }

  private async finish(job: RunningJob, exit: JobEnd): Promise<JobRecord> {
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
    const limits = job.run.limitEvents(job.record);
    const leftovers = await job.run.sweepEnd(job.record, exit);
    job.endKilled = leftovers;
    // The output the ended processes left in the pipe is theirs; then the pipe is closed, so a
    // process still holding it (none the job's: they are gone) cannot grow the log.
    const drained = job.run.output ? await job.run.output.settle() : true;
    job.run.output?.close();
    const ending = endNotes({
      leftovers: cause === "exit" ? leftovers : [],
      heldOpen: exit.heldOpen === true,
      drained,
      limits,
    });
    job.cap.enforce(ending.log.reduce((n, t) => n + new TextEncoder().encode(t).length + 2, 0));
    for (const n of ending.log) job.cap.appendNote(n);
    const size = await this.store.logSize(job.record.id);
    const result = finishRecord(job.record, {
      exitCode: exit.exitCode,
      signal: exit.signal,
      cause,
      ...(cause === "exit" && leftovers.length > 0 &&
        { leftovers: describeProcesses(leftovers) }),
      ...(ending.record !== undefined && { note: ending.record }),
      outputBytes: job.cap.outputBytes(size),
      droppedBytes: job.cap.droppedBytes,
      endedAt: this.now(),
    });
    const ended = await this.recordEnd(job, result);
    this.registry.prune().catch(() => {});
    return ended;
  }

  /**
   * A remote job whose end could not be observed (the connection dropped): recorded `lost` with
   * the reason, never started again. Whatever of it still runs there is stopped if the host can
   * be reached again.
   */
  private async finishLost(job: RunningJob, why: string): Promise<JobRecord> {
    const { killed, unreached } = await job.run.stopLost().then(
      (killed) => ({ killed, unreached: undefined }),
      (e: Error) => ({ killed: [], unreached: stripTrailing(e.message, ".") }),
    );
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
   * after any earlier write, retried), the job no longer running, and the end announced. An end
   * that could not be written is still this job's end: it is kept in memory with why, and every
   * answer about the job says its record is not saved (see record()).
   */
  private async recordEnd(
    job: RunningJob,
    result: { record: JobRecord; changed: boolean },
  ): Promise<JobRecord> {
    job.cap.close();
    if (result.changed) await this.writes.write(result.record);
    // Only now does the end show in memory: a wait's heartbeat, a read, the list and a kill take
    // this job's record from here while it runs, and one that saw the end before the write was
    // done would answer "ended" while record.json (what an agent or another process reads next)
    // still said running.
    job.record = result.record;
    this.running.delete(job.record.id);
    if (this.byKey.get(job.key) === job.record.id) this.byKey.delete(job.key);
    const ended = this.writes.unsaved(job.record.id) ?? result.record;
    if (result.changed) this.events.emit({ kind: "end", record: ended });
    return ended;
  }

  /**
   * The record of a job this server runs, or of one that ended here whose record could not be
   * written (record.json still says running: only this memory knows its end); undefined
   * otherwise. A record not on disk carries `unsaved`.
   */
  record(id: string): JobRecord | undefined {
    const running = this.running.get(id)?.record;
    const unsaved = this.writes.unsaved(id);
    if (running) return unsaved ? { ...running, unsaved: unsaved.unsaved! } : running;
    return unsaved;
  }

  /** Every record this server holds in memory: its running jobs and its unsaved ends. */
  heldRecords(): JobRecord[] {
    const ids = new Set([...this.running.keys(), ...this.writes.allUnsaved().map((r) => r.id)]);
    return [...ids].map((id) => this.record(id)!);
  }

  /** One more write of every record that could not be written (see RecordWrites.retry). */
  retryUnsaved(): Promise<void> {
    return this.writes.retry();
  }

  isRunningHere(id: string): boolean {
    return this.running.has(id);
  }

  runningIds(): string[] {
    return [...this.running.keys()];
  }

  /**
   * Waits for the end of a job this server runs, at most `timeoutMs`; undefined when it runs
   * elsewhere (the caller follows its record).
   */
  async waitHere(
    id: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<{ record: JobRecord; done: boolean } | undefined> {
    const here = this.running.get(id);
    if (!here) return undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), timeoutMs);
      signal?.addEventListener("abort", () => resolve(undefined), { once: true });
    });
    const ended = await Promise.race([here.done, timeout]);
    clearTimeout(timer);
    return ended ? { record: ended, done: true } : { record: here.record, done: false };
  }

  /**
   * Kills a job this server runs (`record`, not yet ended) and waits for its end; undefined when
   * it does not run here. `killed` names the processes signalled.
   */
  async killHere(id: string, record: JobRecord): Promise<KillResult | undefined> {
    const here = this.running.get(id);
    if (!here) return undefined;
    // The end reads what this sweep signalled to tell a kill from an exit that came first.
    const killed = await (here.killing = here.run.kill(record));
    const ended = await here.done;
    // The shell's end sweeps concurrently and may have terminated some of them first; an end
    // that is not "killed" came before the kill reached the shell: report it as it was.
    return {
      record: ended,
      wasRunning: ended.status === "killed",
      killed: mergeProcesses(killed, here.endKilled),
    };
  }

  /** The cookie prefix of every job this server started, and its running jobs' cgroups. */
  private ownTarget(): ReapTarget {
    return this.reaping.serverTarget(
      this.instance,
      [...this.running.values()].map((j) => j.record),
    );
  }

  /**
   * Terminates every process of every job this server started (running or ended) and records
   * that as the running jobs' end. Safe to call twice; after it, start() refuses. Returns the
   * records that could not be written (the caller says so where a person reads it).
   */
  async shutdown(): Promise<JobRecord[]> {
    this.closing = true;
    const jobs = [...this.running.values()];
    for (const job of jobs) job.cause = "shutdown";
    await Promise.all([
      killJobProcesses(this.runner, this.ownTarget(), this.killGraceMs),
      ...jobs.map((j) => j.run.shutdown()),
    ]);
    // One budget for all of it, not one per job: the ends, then every record write still on
    // its way (a slow disk) and one more try of those that failed, before the process exits.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const outOfTime = new Promise<void>((r) => (timer = setTimeout(r, this.shutdownWaitMs)));
    await Promise.race([
      Promise.all(jobs.map((job) => job.done))
        .then(() => this.writes.retry())
        .then(() => this.writes.settle()),
      outOfTime,
    ]);
    clearTimeout(timer);
    // Anything forked during the sweep.
    killJobProcessesNow(this.runner, this.ownTarget());
    for (const job of this.running.values()) clearInterval(job.timer);
    return this.writes.allUnsaved();
  }

  /** Last-resort synchronous kill for abrupt exits (no records written). */
  killAllNow(): void {
    killJobProcessesNow(this.runner, this.ownTarget());
  }
}

/** byKey placeholder while a start is in flight. */
const STARTING = "starting";
