// Local search on worker threads: each worker reads a batch of files and matches them where their
// bytes are (core/search/match_bytes.ts, the code the main thread runs for other backends), and
// answers with each file's matching lines, the context to show and the counts, so the main
// thread only renders. Files a worker cannot answer for (unreadable, over the size limit, names
// only the backend can open, re2js not importable) are left to the main thread. Workers start on
// first use from inline code (no extra module file, so bundles and compiled binaries keep
// working; that code and the per-file scan are in scan_worker.ts) and stop when idle. Batches no
// worker can take (the workers could not start, or failed) run on this thread (inline_scan.ts).

import type { FileMatches } from "../../core/search/line_matcher.ts";
import type {
  ContentScanner,
  ScanRequest,
  ScanResult,
  ScanRun,
  SummaryRun,
} from "../../ops/ports/worker_pool.ts";
import type { FileSummary } from "../../core/text/head_summary.ts";
import type { BeneathConfig } from "./beneath_fs.ts";
import { checkSpareDescriptors } from "./spare_descriptors.ts";
import { requestCollection, requestCollectionAfterSearch } from "./heap.ts";
import { WORKER_SOURCE } from "./scan_worker.ts";
import { GROWN_HEAP_BYTES, WorkerHealth } from "./worker_health.ts";
import { allUnchecked, type Batch, heldAnswer, scanInline } from "./inline_scan.ts";
import { batchOfPaths } from "../../core/search/path_batch.ts";

/** The one-entry batch that stands for bytes already read (ScanRun.match). */
const HELD_BYTES = batchOfPaths(["(bytes)"]);

interface Job extends Batch {
  resolve(result: ScanResult): void;
  /** The index of the file the worker is in (it sets it before each file). */
  progress: Int32Array;
  /** Answers the worker reported file by file, for a worker stopped before its batch ended. */
  found: [number, FileMatches][];
  binaries: number[];
  /** Set once the search stopped: when it fires with the batch unanswered, the worker ends. */
  grace?: ReturnType<typeof setTimeout>;
}

/** One search's batches waiting for a worker. */
interface Queue {
  stop: Int32Array;
  jobs: Job[];
}

/**
 * Idle workers are stopped after this long, so a quiet server holds no threads. Each worker's
 * V8 young generation grows to its cap (~30 MB per worker, 58 MB for two, measured) once it has
 * decoded many files and is only returned when the worker stops: 5 s keeps the workers of an
 * agent's burst of searches warm (no start-up per call) and returns that memory soon after.
 */
const IDLE_MS = 5_000;

/**
 * How long after a search stops the workers are looked at: its reply is rendered and written
 * first (starting a worker blocks this thread ~15 ms), as heap.ts's collection after a search.
 */
const RECYCLE_DELAY_MS = 50;

/** Descriptors free before a worker starts: its runtime's (a few) and room for its first file. */
const WORKER_SPARE_DESCRIPTORS = 8;

/**
 * How long a worker may go on with a stopped search's batch before it is terminated: it checks
 * the stop flag between files and between a file's pieces, but one regex run over one huge line
 * cannot be interrupted (6 one-line 16 MiB files took a 20 s deadline to 37 s).
 */
const STOP_GRACE_MS = 250;

// Exported for tests.
/**
 * How long after a listing that found the workers stopped they are started (see warmSoon):
 * starting them blocks this thread ~15 ms a worker, which a listing must not wait for.
 */
export const WARM_DELAY_MS = 100;

/**
 * The worker pool, shared by every search of the process. Each worker has one batch at a time;
 * waiting batches queue per search and the next free worker takes the oldest batch of the next
 * search in turn, so N searches at once each get 1/N of the workers (a search posting its
 * batches first no longer runs ahead while the others wait behind it in the workers' message
 * queues). The queue is bounded by the callers (ops/search.ts keeps a few batches in flight per
 * search, within the read budget). A stopped search leaves the queue at once: its waiting
 * batches come back unchecked without reaching a worker.
 */
export class ParallelScanner implements ContentScanner {
  readonly backendId = "local";
  readonly parallelism: number;
  private workers: Worker[] = [];
  private readonly health: WorkerHealth;
  private recycleTimer: ReturnType<typeof setTimeout> | undefined;
  private recycles = 0;
  private inPlace = 0;
  /** The batch each worker has (by worker index), undefined when the worker is free. */
  private running: (Job | undefined)[] = [];
  private queues: Queue[] = [];
  private broken = false;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  /** Listing batches posted to a worker and not answered yet, by id (see openSummaries). */
  private summaryWaits = new Map<number, (answer: (FileSummary | null)[] | null) => void>();
  private summaryIds = 0;
  /** Which worker each listing batch went to (a worker ended by `abandon` leaves them). */
  private summaryOwners = new Map<number, number>();
  private summaryRuns = 0;
  private warmTimer: ReturnType<typeof setTimeout> | undefined;
  /** Set by close: no listing starts the workers again (a search still may, as before). */
  private closed = false;

  /**
   * `confined`: on a confined server, the allowed directories the files are opened beneath
   * (LocalBackend.beneathConfig), read when each search or listing starts.
   */
  constructor(
    parallelism = Math.max(1, Math.min(4, navigator.hardwareConcurrency || 1)),
    private readonly confined: () => BeneathConfig | null = () => null,
    /** For tests: the heap past which a free worker is tidied after a search (worker_health.ts). */
    recycleHeapBytes = GROWN_HEAP_BYTES,
  ) {
    this.parallelism = parallelism;
    this.health = new WorkerHealth(recycleHeapBytes);
  }

  /** True once workers could not start or failed: scans then run on the calling thread. */
  get inline(): boolean {
    return this.broken;
  }

  /** Batches waiting for a worker, across all searches (for tests and benchmarks). */
  get queued(): number {
    return this.queues.reduce((n, q) => n + q.jobs.length, 0);
  }

  /** Workers running (started, not yet stopped for idleness or a failure). */
  get workerCount(): number {
    return this.workers.length;
  }

  /** Workers replaced for their heap's growth since the pool was made (tests, benchmarks). */
  get recycled(): number {
    return this.recycles;
  }

  /** Workers asked to collect their grown heap in place since the pool was made. */
  get collectedInPlace(): number {
    return this.inPlace;
  }

  /** Each worker's V8 heap and buffers after its last batch, in bytes (tests, benchmarks). */
  get workerHeaps(): number[] {
    return this.health.heaps();
  }

  /** Batches being scanned by a worker right now. */
  get busy(): number {
    return this.running.filter((j) => j !== undefined).length;
  }

  /**
   * Starts the workers WARM_DELAY_MS after a listing found them stopped, off that listing's
   * path (its answer is written by then), so the next calls of a burst (an agent's, a
   * benchmark's) find them running; they stop after IDLE_MS without work, as after a search.
   */
  private warmSoon(): void {
    if (this.warmTimer !== undefined || this.closed) return;
    const timer = setTimeout(() => {
      this.warmTimer = undefined;
      // One: a listing uses one worker (a second measured no faster); a search adds the rest.
      if (this.workers.length === 0) this.warm(1);
    }, WARM_DELAY_MS);
    // Like the idle timer: it must not keep a finished CLI or server process alive.
    Deno.unrefTimer(timer);
    this.warmTimer = timer;
  }

  /**
   * Starts workers up to `count` if fewer are running (tests, benchmarks, a listing's warm-up);
   * false when they cannot start.
   */
  warm(count = this.parallelism): boolean {
    this.touch();
    return !this.broken && this.start(Math.min(count, this.parallelism));
  }

  open(request: ScanRequest, maxBytes: number): ScanRun {
    // One flag per search, shared with the workers: set, it stops their loops between files
    // and between a big file's chunks.
    const stop = new Int32Array(new SharedArrayBuffer(4));
    const confine = this.confined() ?? undefined;
    return {
      scan: (files) => this.scan({ files, request, maxBytes, stop, confine }),
      match: async (data) =>
        heldAnswer(
          await this.scan({
            files: HELD_BYTES,
            data,
            request,
            maxBytes,
            stop,
            confine: undefined,
          }),
        ),
      stop: () => {
        Atomics.store(stop, 0, 1);
        this.drop(stop);
        this.endSoon(stop);
        requestCollectionAfterSearch();
        this.retireGrown();
      },
    };
  }

  /** Gives the workers on a stopped search's batches STOP_GRACE_MS to answer, then ends them. */
  private endSoon(stop: Int32Array): void {
    for (let w = 0; w < this.running.length; w++) {
      const job = this.running[w];
      if (!job || job.stop !== stop || job.grace !== undefined) continue;
      job.grace = setTimeout(() => this.abandon(w, job), STOP_GRACE_MS);
    }
  }

  /**
   * Terminates worker `w`, still on `job` past the grace: the batch is answered with what the
   * worker reported before the file it was in (`interrupted`), and a fresh worker takes its slot.
   */
  private abandon(w: number, job: Job): void {
    if (this.running[w] !== job) return;
    this.workers[w]!.terminate();
    this.running[w] = undefined;
    // Listing batches that worker took will not be answered now: their listings make them.
    for (const [sid, owner] of this.summaryOwners) {
      if (owner !== w) continue;
      this.summaryWaits.get(sid)?.(null);
      this.summaryWaits.delete(sid);
      this.summaryOwners.delete(sid);
    }
    const at = Atomics.load(job.progress, 0);
    const unchecked: number[] = [];
    for (let i = at + 1; i < job.files.names.length; i++) unchecked.push(i);
    job.resolve({ found: job.found, binaries: job.binaries, unchecked, interrupted: at });
    try {
      this.workers[w] = this.newWorker(this.workerUrl());
      this.health.reset(w);
    } catch {
      this.fail();
      return;
    }
    this.dispatch();
  }

  /**
   * A search stopped: the workers whose heap is past the mark are collected or replaced once
   * free. Free ones RECYCLE_DELAY_MS later (off the reply's path); one busy by then (the next
   * search's batch) as soon as it answers.
   */
  private retireGrown(): void {
    if (!this.health.markGrown() || this.recycleTimer !== undefined) return;
    const timer = setTimeout(() => {
      this.recycleTimer = undefined;
      this.recycle();
    }, RECYCLE_DELAY_MS);
    // Like the idle timer: it must not keep a finished CLI or server process alive.
    Deno.unrefTimer(timer);
    this.recycleTimer = timer;
  }

  /**
   * Has each free retiring worker collect its heap (a message it takes before any later batch),
   * or replaces it with a fresh one when it cannot, then hands out the waiting batches. One to
   * replace that holds a listing's batch waits (that answer would be lost); without descriptors
   * to spare, the old worker stays.
   */
  private recycle(): void {
    if (this.closed || this.broken) return this.dispatch();
    const listing = new Set(this.summaryOwners.values());
    let url: string | undefined;
    try {
      for (let w = 0; w < this.workers.length; w++) {
        if (!this.health.due(w) || this.running[w]) continue;
        if (this.health.collects(w)) {
          this.workers[w]!.postMessage({ collect: true });
          this.inPlace++;
        } else {
          if (listing.has(w)) continue;
          try {
            checkSpareDescriptors(WORKER_SPARE_DESCRIPTORS);
          } catch {
            this.health.settled(w); // kept as it is
            continue;
          }
          url ??= this.workerUrl();
          this.workers[w]!.terminate();
          this.workers[w] = this.newWorker(url);
          this.health.reset(w);
          this.recycles++;
        }
        this.health.settled(w);
      }
    } catch {
      this.fail();
      return;
    } finally {
      if (url !== undefined) URL.revokeObjectURL(url);
    }
    this.dispatch();
  }

  /**
   * One listing's head summaries on the workers, or null when they are not running: starting
   * them blocks this thread ~15 ms a worker, more than a listing of 1,000 files saves, so only
   * a pool already warm (a search or listing in the last IDLE_MS) helps; a cold one is started
   * soon after (warmSoon). Batches go straight to
   * a worker's message queue, not through the search queues: a worker left idle while
   * the listing's thread walks on (it hears no answer until the walk gives the event loop a turn)
   * would save nothing. Each batch carries a claim flag; the listing's thread claims and makes
   * the batches no worker started, and one a worker is still making when the rows reach it (a
   * worker descheduled on a busy machine is not waited for; its answer is dropped).
   */
  openSummaries(headBytes: number): SummaryRun | null {
    if (this.broken) return null;
    if (this.workers.length === 0) {
      this.warmSoon();
      return null;
    }
    this.touch();
    // One worker per listing (in turn): a second one, on two cores beside the walking thread,
    // measured no faster.
    const run = this.summaryRuns++;
    const confine = this.confined() ?? undefined;
    const claims: Int32Array[] = [];
    const answers: Promise<(FileSummary | null)[] | null>[] = [];
    const ids: number[] = [];
    const settle = (k: number) => {
      this.summaryWaits.get(ids[k]!)?.(null);
      this.summaryWaits.delete(ids[k]!);
      this.summaryOwners.delete(ids[k]!);
    };
    return {
      post: (paths) => {
        const claim = new Int32Array(new SharedArrayBuffer(4));
        const sid = this.summaryIds++;
        claims.push(claim);
        ids.push(sid);
        answers.push(new Promise((resolve) => this.summaryWaits.set(sid, resolve)));
        const owner = run % Math.max(1, this.workers.length);
        const worker = this.workers[owner];
        if (worker) {
          this.summaryOwners.set(sid, owner);
          worker.postMessage({ summarize: { sid, claim, paths, headBytes, confine } });
        } else settle(claims.length - 1); // stopped meanwhile: the caller makes it
      },
      claim: (k, started = false) => {
        // 0: waiting, 1: a worker is making it, 2: the listing's, 3: answered (on its way).
        const flag = claims[k]!;
        const mine = Atomics.compareExchange(flag, 0, 0, 2) === 0 ||
          (started && Atomics.compareExchange(flag, 0, 1, 2) === 1);
        if (mine) settle(k);
        return mine;
      },
      answer: (k) => answers[k] ?? Promise.resolve(null),
      stop: () => {
        for (let k = 0; k < claims.length; k++) {
          if (Atomics.compareExchange(claims[k]!, 0, 0, 2) === 0) settle(k);
        }
        this.touch();
      },
    };
  }

  private scan(batch: Batch): Promise<ScanResult> {
    const { files, stop } = batch;
    this.touch();
    if (Atomics.load(stop, 0) !== 0) return Promise.resolve(allUnchecked(files.names.length));
    // One worker more only when every running one is busy: a small tree (one batch), a file
    // root or bytes already read take one worker, not the pool. Each worker is an isolate of
    // 20-50 MB of the server's peak (its heap, young generation, stacks, and the runtime's code
    // it pages in), so a worker not needed is memory held for the burst.
    const wanted = Math.min(this.parallelism, this.busy + this.queued + 1, files.names.length);
    if (this.broken || !this.start(Math.max(1, wanted))) {
      return Promise.resolve(scanInline(batch));
    }
    return new Promise((resolve) => {
      const progress = new Int32Array(new SharedArrayBuffer(4));
      const job: Job = { ...batch, resolve, progress, found: [], binaries: [] };
      let queue = this.queues.find((q) => q.stop === stop);
      if (!queue) this.queues.push(queue = { stop, jobs: [] });
      queue.jobs.push(job);
      this.dispatch();
    });
  }

  /** Gives free workers the next batches, one search after another. */
  private dispatch(): void {
    for (let w = 0; w < this.workers.length && this.queues.length > 0; w++) {
      if (this.running[w]) continue;
      const queue = this.queues.shift()!;
      const job = queue.jobs.shift()!;
      // The search goes to the back of the turn; with nothing left waiting it leaves it.
      if (queue.jobs.length > 0) this.queues.push(queue);
      this.running[w] = job;
      const { files, data, request, maxBytes, stop, progress, confine } = job;
      // Bytes are copied, not handed over: where the worker cannot match them (no re2js in a
      // bundle's workers) the caller matches them itself.
      this.workers[w]!.postMessage({
        id: w,
        files,
        data,
        request,
        maxBytes,
        stop,
        progress,
        confine,
      });
      // A search stopped while this batch waited is not waited for past the grace either.
      if (Atomics.load(stop, 0) !== 0) this.endSoon(stop);
    }
  }

  /** A stopped search's waiting batches come back unchecked at once. */
  private drop(stop: Int32Array): void {
    const at = this.queues.findIndex((q) => q.stop === stop);
    if (at === -1) return;
    const [queue] = this.queues.splice(at, 1);
    for (const job of queue!.jobs) job.resolve(allUnchecked(job.files.names.length));
  }

  /** Starts workers up to `count` (a listing's warm-up starts one; a search wants them all). */
  private start(count = this.parallelism): boolean {
    if (this.workers.length >= count) return true;
    // A worker's runtime opens descriptors of its own (epoll, eventfds) as its thread starts, and
    // where it cannot, Deno 2.9.6 panics there and the process ends: without room, this search
    // runs inline (its unreadable files named) and a later one starts the workers.
    try {
      checkSpareDescriptors(WORKER_SPARE_DESCRIPTORS * (count - this.workers.length));
    } catch {
      return false;
    }
    try {
      const url = this.workerUrl();
      for (let i = this.workers.length; i < count; i++) {
        this.workers.push(this.newWorker(url));
        this.running.push(undefined);
        this.health.add();
      }
      URL.revokeObjectURL(url);
      return true;
    } catch {
      this.fail();
      return false;
    }
  }

  private workerUrl(): string {
    return URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "application/javascript" }));
  }

  private newWorker(url: string): Worker {
    const worker = new Worker(url, { type: "module" });
    worker.onmessage = (e: MessageEvent<WorkerAnswer | SummaryAnswer>) => {
      if ("sid" in e.data) return this.summaryAnswered(e.data);
      const job = this.running[e.data.id];
      if ("partial" in e.data) {
        const [i, scan] = e.data.partial;
        if (scan === "binary") job?.binaries.push(i);
        else job?.found.push([i, scan]);
        return;
      }
      this.running[e.data.id] = undefined;
      this.health.answered(e.data.id, e.data.heap ?? 0, e.data.collects === true);
      if (job?.grace !== undefined) clearTimeout(job.grace);
      const { found, binaries, unchecked, interrupted } = e.data;
      job?.resolve({
        found,
        binaries,
        unchecked,
        ...(interrupted !== undefined && { interrupted }),
      });
      if (this.health.due(e.data.id)) this.recycle();
      else this.dispatch();
      // A long search's batches (their names, the answers) wait long enough to outlive V8's young
      // generation and reach the old one dead, where V8 let them pile up to its own limit (when
      // batches still held a path string per file, core/search/path_batch.ts): over 931,000 files
      // this thread's heap went from 19 to 85 MB (22 live), `deno run main.ts` to 181-192 MB;
      // with a collection under pressure between batches 135-137, for ~40 ms a collection (4
      // in that 3.8 s search; none in one of a 20,000-file tree, which stays under the mark).
      requestCollection();
    };
    worker.onerror = (e) => {
      e.preventDefault();
      this.fail();
    };
    return worker;
  }

  /** Workers unavailable (no permission, a runtime without them): scan on this thread instead. */
  private fail(): void {
    this.broken = true;
    const jobs = this.takeAll();
    this.stopWorkers();
    for (const job of jobs) {
      if (job.grace !== undefined) clearTimeout(job.grace);
      job.resolve(
        scanInline(job),
      );
    }
  }

  /** Every batch waiting or running, taken out of the pool. */
  private takeAll(): Job[] {
    const jobs = [
      ...this.running.filter((j): j is Job => j !== undefined),
      ...this.queues.flatMap((q) => q.jobs),
    ];
    this.running = this.running.map(() => undefined);
    this.queues = [];
    for (const job of jobs) if (job.grace !== undefined) clearTimeout(job.grace);
    return jobs;
  }

  private touch(): void {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    const timer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.busy === 0 && this.queued === 0) this.stopWorkers();
    }, IDLE_MS);
    // The idle timer must not keep a finished CLI or server process alive.
    Deno.unrefTimer(timer);
    this.idleTimer = timer;
  }

  private summaryAnswered({ sid, summaries }: SummaryAnswer): void {
    this.summaryWaits.get(sid)?.(summaries);
    this.summaryWaits.delete(sid);
    this.summaryOwners.delete(sid);
  }

  private stopWorkers(): void {
    for (const w of this.workers) w.terminate();
    this.workers = [];
    this.running = [];
    this.health.clear();
    // Listing batches a worker took and will not answer now: their listings make them.
    for (const resolve of this.summaryWaits.values()) resolve(null);
    this.summaryWaits.clear();
    this.summaryOwners.clear();
  }

  close(): Promise<void> {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (this.warmTimer !== undefined) clearTimeout(this.warmTimer);
    this.warmTimer = undefined;
    if (this.recycleTimer !== undefined) clearTimeout(this.recycleTimer);
    this.recycleTimer = undefined;
    this.closed = true;
    const jobs = this.takeAll();
    this.stopWorkers();
    for (const job of jobs) job.resolve(allUnchecked(job.files.names.length));
    return Promise.resolve();
  }
}

/** A worker's answer to a batch: one file's (`partial`, as it goes), or the whole batch's. */
type WorkerAnswer =
  | { id: number; partial: [number, FileMatches | "binary"] }
  | ({ id: number; heap?: number; collects?: boolean } & ScanResult);

/** A worker's answer to a listing's batch. */
interface SummaryAnswer {
  sid: number;
  summaries: (FileSummary | null)[];
}
