// A parallel prefilter for local search: worker threads read batches of files and report which
// ones contain the needle's bytes and match the regex probe (or could not be checked), so the
// main thread only decodes those. The answer is a superset of the real matches; the search re-checks every candidate, so
// results are identical to the in-process engine. Workers start on first use from inline code
// (no extra module file, so bundles and compiled binaries keep working) and stop when idle.

import * as fs from "node:fs";
import { type ByteLiteral, containsLiteral } from "../../core/search/search_pattern.ts";
import { createFinder, type Finder, finderModuleBytes } from "../../core/search/simd_find.ts";
import { matcherFromRecipe } from "../../core/search/linear_regex.ts";
import type { RegexProbe } from "../../core/search/search_pattern.ts";
import { RE2JS } from "re2js";
import type { ContentScanner, ScanProbe, ScanResult } from "../../ops/search.ts";

// Runs inside each worker: the same scanFile and SIMD finder the main thread uses (their source
// text, so there is one implementation), plus a message loop.
const WORKER_SOURCE = `
import * as fs from "node:fs";
const finderModuleBytes = ${finderModuleBytes.toString()};
const createFinder = ${createFinder.toString()};
const matcherFromRecipe = ${matcherFromRecipe.toString()};
const scanFile = ${scanFile.toString()};
const finder = createFinder(finderModuleBytes());
const decoder = new TextDecoder();
const tests = new Map();
// The regex probe's matcher, built once per pattern; null when it cannot be built here (re2js
// not importable, as in a bundle): the literal alone decides then.
async function regexTest(regex) {
  if (!regex) return null;
  const key = JSON.stringify(regex.recipe);
  if (!tests.has(key)) {
    let re2 = null;
    if (regex.recipe.engine === "re2") {
      re2 = await import("re2js").then((m) => m.RE2JS, () => null);
    }
    let test = null;
    try {
      test = { test: matcherFromRecipe(regex.recipe, re2), crMayHide: regex.crMayHide };
    } catch { /* no probe */ }
    tests.set(key, test);
  }
  return tests.get(key);
}
self.onmessage = async (e) => {
  const { id, paths, probe, maxBytes } = e.data;
  const regex = await regexTest(probe.regex);
  const hits = [];
  const binaries = [];
  for (let i = 0; i < paths.length; i++) {
    const verdict = scanFile(paths[i], probe.literal, regex, finder, decoder, maxBytes, fs);
    if (verdict === "binary") binaries.push(i);
    else if (verdict !== "miss") hits.push(i);
  }
  self.postMessage({ id, hits, binaries });
};
`;

/**
 * One file's verdict. Like ripgrep, a NUL byte in the first 8 KiB makes the file binary before
 * the rest is read (looksBinary in core/text/text_file.ts applies the same rule, so the plain
 * engine agrees); a UTF-16 byte order mark exempts it: those files are decoded by the main thread, and
 * their bytes do not hold UTF-8 needles. Unreadable files are hits: the main thread reports them,
 * and so are files over `maxBytes` (checked before the
 * binary rule, as the plain engine does).
 * Few system calls, as ripgrep makes: no stat; an open with O_NONBLOCK (the walk saw a regular
 * file, but if a FIFO took its place since, the open and the read fail at once instead of
 * blocking this worker forever; the main thread's bounded read then reports it), reads until
 * end of file (a big binary file stops after its first 64 KiB), a close. The bytes land in the
 * finder's reused buffer, never in a fresh allocation. Self-contained (its source text also
 * runs inside the workers, where a bundler's renamed imports would not exist), so `fs` is
 * passed in.
 */
function scanFile(
  path: string,
  literal: ByteLiteral | undefined,
  regex: RegexTest | null,
  finder: Finder,
  decoder: TextDecoder,
  maxBytes: number,
  fs: NodeFs,
): "hit" | "miss" | "binary" {
  const SNIFF_BYTES = 8192;
  const CHUNK = 65536;
  // The most bytes of one file held at once: past it the file streams (see below), so the
  // scanners' memory does not grow with the files they meet.
  const WHOLE_BYTES = 1024 * 1024;
  // A name that is not UTF-8 (lone surrogates, see core/path/path_quote.ts) is opened only by the
  // backend: Deno would open the name with U+FFFD instead, another file or none.
  if (!path.isWellFormed()) return "hit";
  let fd = -1;
  try {
    fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    let buf = finder.room(CHUNK);
    let length = fs.readSync(fd, buf, 0, CHUNK, null);
    if (length === 0) return "miss";
    // Too large comes before binary, as in the plain engine (it never reads such a file).
    if (length === CHUNK && fs.fstatSync(fd).size > maxBytes) return "hit";
    const utf16 = length >= 2 &&
      ((buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff));
    if (utf16) return "hit";
    if (finder.hasZero(Math.min(length, SNIFF_BYTES))) return "binary";
    // Bytes read before this one (the buffer holds only the rest when a big file streams).
    let before = 0;
    while (true) {
      if (before + length > maxBytes) return "hit";
      if (length >= WHOLE_BYTES + CHUNK) {
        // A big file streams through a bounded buffer: the literal is checked window by window,
        // keeping its length less one byte from each for a needle across the seam; the regex is
        // left to the main thread, which reads one candidate at a time within the read budget.
        if (!literal) return "hit";
        if (finder.contains(length, literal)) return "hit";
        const keep = Math.max(0, literal.bytes.length - 1, (literal.latin1?.bytes.length ?? 0) - 1);
        buf.copyWithin(0, length - keep, length);
        before += length - keep;
        length = keep;
      }
      if (buf.length - length < CHUNK) {
        buf = finder.room(Math.min(Math.max(buf.length * 2, length + CHUNK), WHOLE_BYTES + CHUNK));
      }
      const room = Math.min(buf.length, WHOLE_BYTES + CHUNK) - length;
      const got = fs.readSync(fd, buf, length, room, null);
      if (got === 0) break;
      length += got;
    }
    if (literal && !finder.contains(length, literal)) return "miss";
    if (before > 0) return "hit";
    if (!regex) return "hit";
    // The regex probe on the text as UTF-8; invalid UTF-8 (maybe Latin-1) is left to the main
    // thread, as is a `\r` that may hide an RE2 `$` match.
    const text = decoder.decode(buf.subarray(0, length));
    if (text.includes("\uFFFD") || (regex.crMayHide && text.includes("\r"))) return "hit";
    return regex.test(text) ? "hit" : "miss";
  } catch {
    return "hit";
  } finally {
    if (fd !== -1) fs.closeSync(fd);
  }
}

/** A regex probe built in this thread (see SearchPattern.probe). */
interface RegexTest {
  test(text: string): boolean;
  crMayHide: boolean;
}

/** The parts of node:fs that scanFile uses. */
interface NodeFs {
  openSync(path: string, flags: number): number;
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: null): number;
  closeSync(fd: number): void;
  fstatSync(fd: number): { size: number };
  constants: { O_RDONLY: number; O_NONBLOCK: number };
}

/** The finder for scans on this thread: the SIMD one, or plain JavaScript without WebAssembly. */
function mainThreadFinder(): Finder {
  try {
    return createFinder(finderModuleBytes());
  } catch {
    let buf = new Uint8Array(0);
    return {
      room: (bytes) => buf.length >= bytes ? buf : (buf = new Uint8Array(bytes)),
      contains: (length, literal) => containsLiteral(buf.subarray(0, length), literal),
      hasZero: (length) => buf.subarray(0, length).includes(0),
    };
  }
}

let inlineFinder: Finder | undefined;

interface Job {
  resolve(result: ScanResult): void;
  paths: readonly string[];
  probe: ScanProbe;
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
    probe: ScanProbe,
    maxBytes: number,
  ): Promise<ScanResult> {
    this.touch();
    if (this.broken || !this.start()) return Promise.resolve(scanInline(paths, probe, maxBytes));
    return new Promise((resolve) => {
      const id = this.nextId++;
      this.jobs.set(id, { resolve, paths, probe, maxBytes });
      this.workers[this.turn++ % this.workers.length]!.postMessage({
        id,
        paths,
        probe,
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
      job.resolve(scanInline(job.paths, job.probe, job.maxBytes));
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

const inlineDecoder = new TextDecoder();

function scanInline(paths: readonly string[], probe: ScanProbe, maxBytes: number): ScanResult {
  const regex = probe.regex ? inlineTest(probe.regex) : null;
  const finder = inlineFinder ??= mainThreadFinder();
  const hits: number[] = [];
  const binaries: number[] = [];
  for (let i = 0; i < paths.length; i++) {
    const verdict = scanFile(paths[i]!, probe.literal, regex, finder, inlineDecoder, maxBytes, fs);
    if (verdict === "binary") binaries.push(i);
    else if (verdict !== "miss") hits.push(i);
  }
  return { hits, binaries };
}

function inlineTest(regex: RegexProbe): RegexTest {
  return { test: matcherFromRecipe(regex.recipe, RE2JS), crMayHide: regex.crMayHide };
}
