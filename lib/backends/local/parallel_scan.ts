// Local search on worker threads: each worker reads a batch of files and matches them where their
// bytes are (core/search/match_bytes.ts, the code the main thread runs for other backends), and
// answers with each file's matching lines, the context to show and the counts, so the main
// thread only renders. Files a worker cannot answer for (unreadable, over the size limit, names
// only the backend can open, re2js not importable) are left to the main thread. Workers start on
// first use from inline code (no extra module file, so bundles and compiled binaries keep
// working) and stop when idle.

import * as fs from "node:fs";
import { RE2JS } from "re2js";
import type { ByteLiteral } from "../../core/search/search_pattern.ts";
import { containsLiteral } from "../../core/search/search_pattern.ts";
import { createFinder, type Finder, finderModuleBytes } from "../../core/search/simd_find.ts";
import {
  type FileMatches,
  type FileScan,
  type LineMatchers,
  type MatchOptions,
  type MatchSpec,
  openMatchers,
} from "../../core/search/line_matcher.ts";
import { matchBytes, MATCHER_FUNCTIONS } from "../../core/search/match_bytes.ts";
import type {
  ContentScanner,
  ScanRequest,
  ScanResult,
  ScanRun,
  SummaryRun,
} from "../../ops/ports/worker_pool.ts";
import {
  type FileSummary,
  HEAD_SUMMARY_FUNCTIONS,
  summarizeHead,
} from "../../core/text/head_summary.ts";
import { quickSummary, type SummaryFs } from "./quick_summary.ts";
import { type BeneathConfig, beneathSummaryFs, SUMMARY_SYMBOLS } from "./beneath_fs.ts";
import { beneathLibc } from "./beneath.ts";
import { re2LoaderSource } from "./re2_module.ts";
import { LIBC_FS_SYMBOLS, libcSummaryFs } from "./libc_fs.ts";
import { checkSpareDescriptors } from "./spare_descriptors.ts";

// Exported for tests.
/**
 * Runs inside each worker: the matching functions and scanFile as declarations (their source
 * text, so there is one implementation), then a message loop.
 */
export const WORKER_SOURCE = `
${
  [...MATCHER_FUNCTIONS, finderModuleBytes, createFinder, scanFile, scanBatch, matchHeld].join("\n")
}
${[...HEAD_SUMMARY_FUNCTIONS, quickSummary, beneathSummaryFs, libcSummaryFs].join("\n")}
${re2LoaderSource()}
const finder = ${createFinder.name}(${finderModuleBytes.name}());
let head = new Uint8Array(0);
// A confined server's files are opened beneath the allowed directories' descriptors (sent with
// each batch); null when libc cannot be opened here: the main thread then reads every file.
let beneathLibc;
let beneath;
// Unconfined reads on Linux go straight to libc when FFI is allowed (libc_fs.ts), else node:fs,
// imported only then: node:fs brings Node's compatibility layer into the isolate, ~7 MB of each
// worker's memory (12 → 19 MB at start, issue 26) that the libc path never uses.
let plainFiles = null;
const nodeFsLoading = (() => {
  if (Deno.build.os === "linux") {
    try {
      plainFiles = ${libcSummaryFs.name}(Deno.dlopen("libc.so.6", ${
  JSON.stringify(LIBC_FS_SYMBOLS)
}).symbols);
      return null;
    } catch { /* no FFI permission, or no libc.so.6: node:fs */ }
  }
  return import("node:fs").then((fs) => { plainFiles = fs; }, () => {});
})();
function plainFs() {
  return plainFiles;
}
function filesFor(confine) {
  if (!confine) return plainFs();
  if (beneath?.generation === confine.generation) return beneath.files;
  try {
    beneathLibc ??= Deno.dlopen("libc.so.6", ${JSON.stringify(SUMMARY_SYMBOLS)}).symbols;
  } catch {
    return null;
  }
  beneath = { generation: confine.generation, files: ${beneathSummaryFs.name}(beneathLibc, confine) };
  return beneath.files;
}
// A listing's batch (list_dir.ts): made unless the listing's thread claimed it first.
function summarize({ sid, claim, paths, headBytes, confine }) {
  if (Atomics.compareExchange(claim, 0, 0, 1) !== 0) return;
  if (head.length < headBytes) head = new Uint8Array(headBytes);
  const files = filesFor(confine);
  const summaries = paths.map((path) =>
    files && ${quickSummary.name}(path, head, headBytes, files, ${summarizeHead.name})
  );
  self.postMessage({ sid, summaries });
  Atomics.compareExchange(claim, 0, 1, 3); // answered: the listing awaits it instead of making it
}
const built = new Map();
// The matchers, built once per search; null when they cannot be built here (re2js not
// importable: re2_module.ts): the byte prefilter alone decides, and the main thread matches.
async function matchersFor(spec) {
  const key = JSON.stringify(spec);
  if (!built.has(key)) {
    if (built.size >= 16) built.clear();
    let re2 = null;
    if (spec.line?.engine === "re2" || spec.probe?.engine === "re2") {
      re2 = await loadRe2();
    }
    let m = null;
    try {
      m = ${openMatchers.name}(spec, re2);
    } catch { /* left to the main thread */ }
    built.set(key, m);
  }
  return built.get(key);
}
self.onmessage = async (e) => {
  // Until node:fs is in (no libc), a listing's batch is left to the listing: files is null.
  if (e.data.summarize) return summarize(e.data.summarize);
  if (nodeFsLoading) await nodeFsLoading;
  const { id, paths, data, request, maxBytes, stop, progress, confine } = e.data;
  const m = await matchersFor(request.spec);
  // Bytes already read (matchHeld) need no file system.
  const files = data ? null : filesFor(confine);
  // Each file's answer goes out as soon as it is known: a worker stopped inside a later file
  // (terminated at the deadline) has then told what it found before.
  const report = (i, scan) => self.postMessage({ id, partial: [i, scan] });
  const result = data
    ? ${matchHeld.name}(data, request, m, stop, ${matchBytes.name})
    : files
    ? ${scanBatch.name}(paths, request, m, finder, maxBytes, files, stop, ${matchBytes.name}, progress, report)
    : { found: [], binaries: [], unchecked: paths.map((_, i) => i) };
  self.postMessage({ id, ...result });
};
`;

/**
 * One batch: each file's answer, until the batch has shown lines enough to fill the output cap
 * (`request.options.room`) or `stop[0]` is set; the files after that are left unchecked (the
 * caller stops before them, or reads them itself). Self-contained, like scanFile.
 */
function scanBatch(
  paths: readonly string[],
  request: ScanRequest,
  m: LineMatchers | null,
  finder: Finder,
  maxBytes: number,
  fs: SummaryFs,
  stop: Int32Array,
  match: typeof matchBytes,
  /** Set to the index of the file being scanned (read by the pool when it stops a worker). */
  progress?: Int32Array,
  /** Told each file's matches or binary verdict as soon as it is known. */
  report?: (i: number, scan: FileMatches | "binary") => void,
): ScanResult {
  const found: [number, FileMatches][] = [];
  const binaries: number[] = [];
  const unchecked: number[] = [];
  let room = request.options.room;
  const stopped = () => Atomics.load(stop, 0) !== 0;
  for (let i = 0; i < paths.length; i++) {
    if (room <= 0 || stopped()) {
      for (; i < paths.length; i++) unchecked.push(i);
      break;
    }
    const options = { ...request.options, room };
    if (progress) Atomics.store(progress, 0, i);
    const scan = scanFile(
      paths[i]!,
      request.literal,
      m,
      finder,
      maxBytes,
      fs,
      options,
      stopped,
      match,
    );
    if (scan === "stopped") {
      // Stopped inside this file: it was searched in part, the rest of the batch not at all.
      for (let k = i + 1; k < paths.length; k++) unchecked.push(k);
      return { found, binaries, unchecked, interrupted: i };
    }
    if (scan === "binary") binaries.push(i);
    else if (scan === "unchecked") unchecked.push(i);
    else if (scan !== "miss") {
      found.push([i, scan]);
      room -= scan.shown.length + (scan.truncated ? 1 : 0);
    }
    if (scan === "binary" || typeof scan === "object") report?.(i, scan);
  }
  return { found, binaries, unchecked };
}

/**
 * Bytes already read (another backend's file, or one the worker could not open by name) matched
 * like a batch of one file at index 0, a mebibyte of text at a time, stopping between pieces when
 * `stop[0]` is set. Self-contained, like scanBatch; null `m` leaves it unchecked.
 */
function matchHeld(
  data: Uint8Array,
  request: ScanRequest,
  m: LineMatchers | null,
  stop: Int32Array,
  match: typeof matchBytes,
): ScanResult {
  if (!m) return { found: [], binaries: [], unchecked: [0] };
  if (data.length === 0) return { found: [], binaries: [], unchecked: [] };
  const CHUNK = 1024 * 1024;
  const scan = match(
    (position) => data.subarray(position, position + CHUNK),
    m,
    request.options,
    () => Atomics.load(stop, 0) !== 0,
    data.length,
  );
  if (scan === "binary") return { found: [], binaries: [0], unchecked: [] };
  if (scan === "stopped") return { found: [], binaries: [], unchecked: [], interrupted: 0 };
  return { found: scan === "miss" ? [] : [[0, scan]], binaries: [], unchecked: [] };
}

/**
 * One file's answer. Like ripgrep, a NUL byte in the first 8 KiB makes the file binary before
 * the rest is read (matchBytes applies the same rule; a UTF-16 byte order mark exempts it).
 * Unreadable files and files over `maxBytes` are "unchecked": the main thread reports them.
 * Few system calls, as ripgrep makes: no stat; an open with O_NONBLOCK (the walk saw a regular
 * file, but if a FIFO took its place since, the open and the read fail at once instead of
 * blocking this worker forever; the main thread's bounded read then reports it), reads into the
 * finder's reused buffer, a close. A file of up to 1 MiB is read whole, its literal checked by
 * the SIMD finder, then matched from that buffer; a bigger one streams through it a mebibyte at
 * a time (its literal first, window by window with an overlap, then the matching from its start
 * again), so a worker's memory does not grow with the files it meets. Self-contained (its source
 * text also runs inside the workers, where a bundler's renamed imports would not exist), so
 * `fs` and `match` (matchBytes) are passed in.
 */
function scanFile(
  path: string,
  literal: ByteLiteral | undefined,
  m: LineMatchers | null,
  finder: Finder,
  maxBytes: number,
  fs: SummaryFs,
  options: MatchOptions,
  stopped: () => boolean,
  match: typeof matchBytes,
): FileScan | "unchecked" {
  const SNIFF_BYTES = 8192;
  const CHUNK = 65536;
  const WHOLE_BYTES = 1024 * 1024;
  // A name that is not UTF-8 (lone surrogates, see core/path/path_quote.ts) is opened only by the
  // backend: Deno would open the name with U+FFFD instead, another file or none.
  if (!path.isWellFormed()) return "unchecked";
  let fd = -1;
  try {
    fd = fs.openSync(path, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    let buf = finder.room(WHOLE_BYTES + CHUNK);
    let length = fs.readSync(fd, buf, 0, CHUNK, null);
    if (length === 0) return "miss";
    // Too large comes before binary, as in the plain engine (it never reads such a file).
    if (length > maxBytes || (length === CHUNK && fs.fstatSync(fd).size > maxBytes)) {
      return "unchecked";
    }
    const utf16 = length >= 2 &&
      ((buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff));
    if (!utf16 && finder.hasZero(Math.min(length, SNIFF_BYTES))) return "binary";
    for (let got = -1; got !== 0 && length < WHOLE_BYTES + CHUNK;) {
      got = fs.readSync(fd, buf, length, WHOLE_BYTES + CHUNK - length, null);
      length += got;
    }
    if (length > maxBytes) return "unchecked"; // it grew: the main thread says so
    const whole = length < WHOLE_BYTES + CHUNK;
    // The literal, on the bytes (UTF-16 text does not hold UTF-8 needles).
    if (literal && !utf16) {
      let before = 0;
      while (!finder.contains(length, literal)) {
        if (whole) return "miss";
        if (before + length > maxBytes) return "unchecked"; // it grew: the main thread says so
        // Keep the needle's length less one byte for a needle across the seam.
        const keep = Math.max(literal.bytes.length, literal.latin1?.bytes.length ?? 0) - 1;
        buf.copyWithin(0, length - keep, length);
        before += length - keep;
        const got = fs.readSync(fd, buf, keep, WHOLE_BYTES + CHUNK - keep, null);
        if (got === 0) return "miss";
        length = keep + got;
      }
    }
    if (!m) return "unchecked";
    if (whole) {
      const bytes = buf.subarray(0, length);
      return match((position) => bytes.subarray(position), m, options, stopped, length);
    }
    return match(
      (position) => {
        if (position >= maxBytes) return buf.subarray(0, 0);
        buf = finder.room(WHOLE_BYTES);
        return buf.subarray(0, fs.readSync(fd, buf, 0, WHOLE_BYTES, position));
      },
      m,
      options,
      stopped,
    );
  } catch {
    return "unchecked";
  } finally {
    if (fd !== -1) fs.closeSync(fd);
  }
}

/** The finder for scans on this thread: the SIMD one, or plain JavaScript without WebAssembly. */
function mainThreadFinder(): Finder {
  try {
    return createFinder(finderModuleBytes());
  } catch {
    let buf = new Uint8Array(0);
    return {
      room: (bytes) => {
        if (buf.length < bytes) {
          const grown = new Uint8Array(bytes);
          grown.set(buf);
          buf = grown;
        }
        return buf;
      },
      contains: (length, literal) => containsLiteral(buf.subarray(0, length), literal),
      hasZero: (length) => buf.subarray(0, length).includes(0),
    };
  }
}

let inlineFinder: Finder | undefined;

interface Job {
  resolve(result: ScanResult): void;
  /** The files of the batch; for bytes already read (`data`), one entry standing for them. */
  paths: readonly string[];
  data?: Uint8Array;
  request: ScanRequest;
  maxBytes: number;
  stop: Int32Array;
  /** Set on a confined server: open the files beneath these directories (beneath_fs.ts). */
  confine: BeneathConfig | undefined;
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
  ) {
    this.parallelism = parallelism;
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
      scan: (paths) => this.scan(paths, request, maxBytes, stop, confine),
      match: async (data) =>
        heldAnswer(await this.scan(["(bytes)"], request, maxBytes, stop, undefined, data)),
      stop: () => {
        Atomics.store(stop, 0, 1);
        this.drop(stop);
        this.endSoon(stop);
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
    const unchecked = job.paths.map((_, i) => i).filter((i) => i > at);
    job.resolve({ found: job.found, binaries: job.binaries, unchecked, interrupted: at });
    try {
      this.workers[w] = this.newWorker(this.workerUrl());
    } catch {
      this.fail();
      return;
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

  private scan(
    paths: readonly string[],
    request: ScanRequest,
    maxBytes: number,
    stop: Int32Array,
    confine: BeneathConfig | undefined,
    data?: Uint8Array,
  ): Promise<ScanResult> {
    this.touch();
    if (Atomics.load(stop, 0) !== 0) return Promise.resolve(allUnchecked(paths));
    // One worker more only when every running one is busy: a small tree (one batch), a file
    // root or bytes already read take one worker, not the pool. Each worker is an isolate of
    // 20-50 MB, and V8 keeps a terminated isolate's pages for the process (measured: RSS does
    // not fall when the idle workers stop), so a worker not needed is memory held for good.
    const wanted = Math.min(this.parallelism, this.busy + this.queued + 1, paths.length);
    if (this.broken || !this.start(Math.max(1, wanted))) {
      return Promise.resolve(scanInline(paths, request, maxBytes, stop, confine, data));
    }
    return new Promise((resolve) => {
      const progress = new Int32Array(new SharedArrayBuffer(4));
      const job: Job = {
        resolve,
        paths,
        ...(data && { data }),
        request,
        maxBytes,
        stop,
        confine,
        progress,
        found: [],
        binaries: [],
      };
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
      const { paths, data, request, maxBytes, stop, progress, confine } = job;
      // Bytes are copied, not handed over: where the worker cannot match them (no re2js in a
      // bundle's workers) the caller matches them itself.
      this.workers[w]!.postMessage({
        id: w,
        paths,
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
    for (const job of queue!.jobs) job.resolve(allUnchecked(job.paths));
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
      if (job?.grace !== undefined) clearTimeout(job.grace);
      const { found, binaries, unchecked, interrupted } = e.data;
      job?.resolve({
        found,
        binaries,
        unchecked,
        ...(interrupted !== undefined && { interrupted }),
      });
      this.dispatch();
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
        scanInline(job.paths, job.request, job.maxBytes, job.stop, job.confine, job.data),
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
    this.closed = true;
    const jobs = this.takeAll();
    this.stopWorkers();
    for (const job of jobs) job.resolve(allUnchecked(job.paths));
    return Promise.resolve();
  }
}

/** A worker's answer to a batch: one file's (`partial`, as it goes), or the whole batch's. */
type WorkerAnswer =
  | { id: number; partial: [number, FileMatches | "binary"] }
  | ({ id: number } & ScanResult);

/** A batch of bytes already read (ScanRun.match) as the caller reads it. */
function heldAnswer(result: ScanResult): FileScan | "unchecked" | "interrupted" {
  if (result.interrupted !== undefined) return "interrupted";
  if (result.found.length > 0) return result.found[0]![1];
  if (result.binaries.length > 0) return "binary";
  return result.unchecked.length > 0 ? "unchecked" : "miss";
}

/** A worker's answer to a listing's batch. */
interface SummaryAnswer {
  sid: number;
  summaries: (FileSummary | null)[];
}

function allUnchecked(paths: readonly string[]): ScanResult {
  return { found: [], binaries: [], unchecked: paths.map((_, i) => i) };
}

const inlineMatchers = new Map<string, LineMatchers>();

function scanInline(
  paths: readonly string[],
  request: ScanRequest,
  maxBytes: number,
  stop: Int32Array,
  confine: BeneathConfig | undefined,
  data?: Uint8Array,
): ScanResult {
  const files = data ? fs : confine ? inlineBeneath(confine) : fs;
  if (!files) return allUnchecked(paths);
  const key = JSON.stringify(request.spec);
  let m = inlineMatchers.get(key);
  if (!m) {
    if (inlineMatchers.size > 16) inlineMatchers.clear();
    m = openMatchers(request.spec as MatchSpec, RE2JS);
    inlineMatchers.set(key, m);
  }
  if (data) return matchHeld(data, request, m, stop, matchBytes);
  const finder = inlineFinder ??= mainThreadFinder();
  return scanBatch(paths, request, m, finder, maxBytes, files, stop, matchBytes);
}

let inlineFiles: { generation: number; files: SummaryFs } | undefined;

/** The main thread's SummaryFs beneath `confine`'s directories (null without libc). */
function inlineBeneath(confine: BeneathConfig): SummaryFs | null {
  if (inlineFiles?.generation === confine.generation) return inlineFiles.files;
  const c = beneathLibc();
  if (!c) return null;
  inlineFiles = { generation: confine.generation, files: beneathSummaryFs(c, confine) };
  return inlineFiles.files;
}
