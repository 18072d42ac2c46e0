// A parallel literal prefilter for local search: worker threads read batches of files and report
// which ones contain the needle's bytes (or could not be checked), so the main thread only decodes
// those. The answer is a superset of the real matches; the search re-checks every candidate, so
// results are identical to the in-process engine. Workers start on first use from inline code
// (no extra module file, so bundles and compiled binaries keep working) and stop when idle.

import { type ByteLiteral, containsLiteral } from "../../core/search_pattern.ts";
import type { ContentScanner } from "../../ops/search.ts";

// Runs inside each worker: the same containsLiteral the main thread uses (its source text, so
// there is one implementation), plus a message loop.
const WORKER_SOURCE = `
const containsLiteral = ${containsLiteral.toString()};
self.onmessage = (e) => {
  const { id, paths, literal } = e.data;
  const hits = [];
  for (let i = 0; i < paths.length; i++) {
    try {
      const d = Deno.readFileSync(paths[i]);
      // UTF-16 files are decoded by the main thread; their bytes do not hold UTF-8 needles.
      const utf16 = d.length >= 2 && ((d[0] === 0xff && d[1] === 0xfe) || (d[0] === 0xfe && d[1] === 0xff));
      if (utf16 || containsLiteral(d, literal)) hits.push(i);
    } catch {
      hits.push(i); // unreadable: the main thread reports it the usual way
    }
  }
  self.postMessage({ id, hits });
};
`;

interface Job {
  resolve(hits: number[]): void;
  paths: readonly string[];
  literal: ByteLiteral;
}

/** Idle workers are stopped after this long, so a quiet server holds no threads. */
const IDLE_MS = 20_000;

export class ParallelScanner implements ContentScanner {
  readonly backendId = "local";
  readonly parallelism: number;
  private workers: Worker[] = [];
  private jobs = new Map<number, Job>();
  private nextId = 0;
  private turn = 0;
  private broken = false;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(parallelism = Math.max(1, Math.min(4, navigator.hardwareConcurrency || 1))) {
    this.parallelism = parallelism;
  }

  candidates(paths: readonly string[], literal: ByteLiteral): Promise<number[]> {
    this.touch();
    if (this.broken || !this.start()) return Promise.resolve(scanInline(paths, literal));
    return new Promise((resolve) => {
      const id = this.nextId++;
      this.jobs.set(id, { resolve, paths, literal });
      this.workers[this.turn++ % this.workers.length]!.postMessage({ id, paths, literal });
    });
  }

  private start(): boolean {
    if (this.workers.length > 0) return true;
    try {
      const url = URL.createObjectURL(
        new Blob([WORKER_SOURCE], { type: "application/javascript" }),
      );
      for (let i = 0; i < this.parallelism; i++) {
        const worker = new Worker(url, { type: "module" });
        worker.onmessage = (e: MessageEvent<{ id: number; hits: number[] }>) => {
          const job = this.jobs.get(e.data.id);
          this.jobs.delete(e.data.id);
          job?.resolve(e.data.hits);
        };
        worker.onerror = (e) => {
          e.preventDefault();
          this.fail();
        };
        this.workers.push(worker);
      }
      URL.revokeObjectURL(url);
      return true;
    } catch {
      this.fail();
      return false;
    }
  }

  /** Workers unavailable (no permission, a runtime without them): scan on this thread instead. */
  private fail(): void {
    this.broken = true;
    this.stopWorkers();
    for (const job of this.jobs.values()) {
      job.resolve(scanInline(job.paths, job.literal));
    }
    this.jobs.clear();
  }

  private touch(): void {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    const timer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.jobs.size === 0) this.stopWorkers();
    }, IDLE_MS);
    // The idle timer must not keep a finished CLI or server process alive.
    Deno.unrefTimer(timer);
    this.idleTimer = timer;
  }

  private stopWorkers(): void {
    for (const w of this.workers) w.terminate();
    this.workers = [];
  }

  close(): Promise<void> {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    this.stopWorkers();
    for (const job of this.jobs.values()) job.resolve(job.paths.map((_, i) => i));
    this.jobs.clear();
    return Promise.resolve();
  }
}

function scanInline(paths: readonly string[], literal: ByteLiteral): number[] {
  const hits: number[] = [];
  for (let i = 0; i < paths.length; i++) {
    try {
      const d = Deno.readFileSync(paths[i]!);
      const utf16 = d.length >= 2 &&
        ((d[0] === 0xff && d[1] === 0xfe) || (d[0] === 0xfe && d[1] === 0xff));
      if (utf16 || containsLiteral(d, literal)) hits.push(i);
    } catch {
      hits.push(i);
    }
  }
  return hits;
}
