// A parallel literal prefilter for local search: worker threads read batches of files and report
// which ones contain the needle's bytes (or could not be checked), so the main thread only decodes
// those. The answer is a superset of the real matches; the search re-checks every candidate, so
// results are identical to the in-process engine. Workers start on first use from inline code
// (no extra module file, so bundles and compiled binaries keep working) and stop when idle.

import { type ByteLiteral, containsLiteral } from "../../core/search/search_pattern.ts";
import type { ContentScanner, ScanResult } from "../../ops/search.ts";

// Runs inside each worker: the same containsLiteral and scanFile the main thread uses (their
// source text, so there is one implementation), plus a message loop.
const WORKER_SOURCE = `
const containsLiteral = ${containsLiteral.toString()};
const scanFile = ${scanFile.toString()};
self.onmessage = (e) => {
  const { id, paths, literal, maxBytes } = e.data;
  const hits = [];
  const binaries = [];
  for (let i = 0; i < paths.length; i++) {
    const verdict = scanFile(paths[i], literal, containsLiteral, maxBytes);
    if (verdict === "binary") binaries.push(i);
    else if (verdict !== "miss") hits.push(i);
  }
  self.postMessage({ id, hits, binaries });
};
`;

/**
 * One file's verdict. Like ripgrep, a NUL byte in the first 8 KiB makes the file binary before
 * the rest is read (looksBinary in core/text_file.ts applies the same rule, so the plain engine
 * agrees); a UTF-16 byte order mark exempts it: those files are decoded by the main thread, and
 * their bytes do not hold UTF-8 needles. Unreadable files are hits: the main thread reports them.
 * Anything but a regular file, and files over `maxBytes`, are hits without being opened or
 * read: the main thread's bounded read reports them (a FIFO would block this worker forever).
 * Self-contained (its source text also runs inside the workers, where a bundler's renamed
 * imports would not exist), so the literal matcher is passed in.
 */
function scanFile(
  path: string,
  literal: ByteLiteral,
  contains: typeof containsLiteral,
  maxBytes: number,
): "hit" | "miss" | "binary" {
  const SNIFF_BYTES = 8192;
  // A name that is not UTF-8 (lone surrogates, see core/path_quote.ts) is opened only by the
  // backend: Deno would open the name with U+FFFD instead, another file or none.
  if (!path.isWellFormed()) return "hit";
  let file;
  try {
    const info = Deno.statSync(path);
    if (!info.isFile || info.size > maxBytes) return "hit";
    file = Deno.openSync(path);
    const head = new Uint8Array(SNIFF_BYTES);
    let n = 0;
    while (n < SNIFF_BYTES) {
      const got = file.readSync(head.subarray(n));
      if (got === null || got === 0) break;
      n += got;
    }
    const sniffed = head.subarray(0, n);
    const utf16 = n >= 2 &&
      ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff));
    if (utf16) return "hit";
    if (sniffed.includes(0)) return "binary";
    const data = n < SNIFF_BYTES ? sniffed : Deno.readFileSync(path);
    return contains(data, literal) ? "hit" : "miss";
  } catch {
    return "hit";
  } finally {
    file?.close();
  }
}

interface Job {
  resolve(result: ScanResult): void;
  paths: readonly string[];
  literal: ByteLiteral;
  maxBytes: number;
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

  candidates(
    paths: readonly string[],
    literal: ByteLiteral,
    maxBytes: number,
  ): Promise<ScanResult> {
    this.touch();
    if (this.broken || !this.start()) return Promise.resolve(scanInline(paths, literal, maxBytes));
    return new Promise((resolve) => {
      const id = this.nextId++;
      this.jobs.set(id, { resolve, paths, literal, maxBytes });
      this.workers[this.turn++ % this.workers.length]!.postMessage({
        id,
        paths,
        literal,
        maxBytes,
      });
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
        worker.onmessage = (e: MessageEvent<{ id: number } & ScanResult>) => {
          const job = this.jobs.get(e.data.id);
          this.jobs.delete(e.data.id);
          job?.resolve({ hits: e.data.hits, binaries: e.data.binaries });
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
      job.resolve(scanInline(job.paths, job.literal, job.maxBytes));
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
    for (const job of this.jobs.values()) {
      job.resolve({ hits: job.paths.map((_, i) => i), binaries: [] });
    }
    this.jobs.clear();
    return Promise.resolve();
  }
}

function scanInline(paths: readonly string[], literal: ByteLiteral, maxBytes: number): ScanResult {
  const hits: number[] = [];
  const binaries: number[] = [];
  for (let i = 0; i < paths.length; i++) {
    const verdict = scanFile(paths[i]!, literal, containsLiteral, maxBytes);
    if (verdict === "binary") binaries.push(i);
    else if (verdict !== "miss") hits.push(i);
  }
  return { hits, binaries };
}
