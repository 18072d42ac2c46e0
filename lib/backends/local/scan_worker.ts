// What a search worker runs: its source text (WORKER_SOURCE, built from the functions it needs,
// so there is one implementation) and the per-file scan it is made of: open a file beneath the
// root, read it into a reused buffer, check its literal with the SIMD finder, and match it where
// its bytes are (core/search/match_bytes.ts). The pool that runs the workers, and the main thread
// when no worker can, are in parallel_scan.ts.

import type { ByteLiteral } from "../../core/search/search_pattern.ts";
import { createFinder, type Finder, finderModuleBytes } from "../../core/search/simd_find.ts";
import {
  type FileMatches,
  type FileScan,
  type LineMatchers,
  type MatchOptions,
  openMatchers,
} from "../../core/search/line_matcher.ts";
import { type ByteLines, matchBytes, MATCHER_FUNCTIONS } from "../../core/search/match_bytes.ts";
import type { ScanRequest, ScanResult } from "../../ops/ports/worker_pool.ts";
import type { PathBatch } from "../../core/search/path_batch.ts";
import { HEAD_SUMMARY_FUNCTIONS, summarizeHead } from "../../core/text/head_summary.ts";
import { quickSummary, type SummaryFs } from "./quick_summary.ts";
import { beneathSummaryFs, SUMMARY_SYMBOLS } from "./beneath_fs.ts";
import { re2LoaderSource } from "./re2_module.ts";
import { LIBC_FS_SYMBOLS, libcSummaryFs } from "./libc_fs.ts";

/** Files this big or bigger (or of unknown size) are followed by a look at the worker's heap. */
const TIDY_AFTER_BYTES = 256 * 1024;
/**
 * The heap (V8's, with the buffers it holds) past which a worker collects after such a file: a
 * worker's heap is 9-11 MB committed while it scans files, and 16-22 MB when promoted line texts
 * piled up (--trace-gc, a node_modules tree).
 */
const TIDY_HEAP_BYTES = 16 * 1024 * 1024;

/**
 * Runs inside each worker: the matching functions and scanFile as declarations (their source
 * text, so there is one implementation), then a message loop.
 */
export const WORKER_SOURCE = `
${
  [
    ...MATCHER_FUNCTIONS,
    finderModuleBytes,
    createFinder,
    literalLines,
    scanFile,
    scanBatch,
    matchHeld,
  ].join("\n")
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
// V8's full collection, in every isolate when the server runs with --expose-gc (compile.ts
// V8_FLAGS): the pool then has a grown heap collected here instead of replacing this worker.
const collect = typeof globalThis.gc === "function" ? globalThis.gc : null;
// A file's matching, then, after a big file, a full collection when this heap has grown past
// TIDY_HEAP_BYTES. A regex that must test a long line (a source map's megabytes on one line)
// makes that line's text in V8's large-object space; promoted by a scavenge while the regex ran,
// it stays until a full collection, which V8 ran only after many such files. Sixteen 2.6 MB
// source maps searched by a regex that finds something: the server's peak 131-136 MB, 108 with
// this (issue 26). Literal searches make no such text: their heap stays under the mark.
function matchThenTidy(readAt, m, o, stopped, size, byteLines) {
  const scan = ${matchBytes.name}(readAt, m, o, stopped, size, byteLines);
  if (collect !== null && size >= ${TIDY_AFTER_BYTES}) {
    const { heapTotal, external } = Deno.memoryUsage();
    if (heapTotal + external > ${TIDY_HEAP_BYTES}) collect({ type: "major" });
  }
  return scan;
}
self.onmessage = async (e) => {
  // Until node:fs is in (no libc), a listing's batch is left to the listing: files is null.
  if (e.data.summarize) return summarize(e.data.summarize);
  // "last-resort" collects until nothing more is freed, and hands the empty pages back.
  if (e.data.collect) return collect?.({ type: "major", flavor: "last-resort" });
  if (nodeFsLoading) await nodeFsLoading;
  const { id, files, data, request, maxBytes, stop, progress, confine } = e.data;
  const m = await matchersFor(request.spec);
  // Bytes already read (matchHeld) need no file system.
  const reader = data ? null : filesFor(confine);
  // Each file's answer goes out as soon as it is known: a worker stopped inside a later file
  // (terminated at the deadline) has then told what it found before.
  const report = (i, scan) => self.postMessage({ id, partial: [i, scan] });
  const result = data
    ? ${matchHeld.name}(data, request, m, stop, ${matchBytes.name})
    : reader
    ? ${scanBatch.name}(files, request, m, finder, maxBytes, reader, stop, matchThenTidy, progress, report)
    : { found: [], binaries: [], unchecked: files.names.map((_, i) => i) };
  // This isolate's heap and the buffers it holds, for the pool to collect or replace a worker
  // whose heap has grown (parallel_scan.ts), and whether it can collect.
  const { heapTotal, external } = Deno.memoryUsage();
  self.postMessage({ id, ...result, heap: heapTotal + external, collects: collect !== null });
};
`;

/**
 * One batch: each file's answer, until the batch has shown lines enough to fill the output cap
 * (`request.options.room`) or `stop[0]` is set; the files after that are left unchecked (the
 * caller stops before them, or reads them itself). Self-contained, like scanFile.
 */
export function scanBatch(
  /** File `i` is `prefixes[dirOf[i]] + names[i]` (core/search/path_batch.ts). */
  files: PathBatch,
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
  // Every match holds one of these: the literal, or the regex's alternatives.
  const literals = request.literal ? [request.literal] : request.anyOf;
  const { prefixes, names, dirOf } = files;
  // One options object for the batch, its room set before each file (the matching reads it
  // during the call and keeps nothing of it): not a copy per file, 20,000 of them a search.
  const options = { ...request.options, room };
  for (let i = 0; i < names.length; i++) {
    if (room <= 0 || stopped()) {
      for (; i < names.length; i++) unchecked.push(i);
      break;
    }
    options.room = room;
    if (progress) Atomics.store(progress, 0, i);
    const scan = scanFile(
      prefixes[dirOf[i]!]! + names[i]!,
      literals,
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
      for (let k = i + 1; k < names.length; k++) unchecked.push(k);
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
export function matchHeld(
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

// Exported for tests.
/**
 * The literals (one of which every match holds) searched for on the bytes in the finder's memory
 * (match_bytes.ts ByteLines): the lines before the next occurrence of any of them are counted
 * there, not decoded. Undefined when one has an LF (it may match across lines). Self-contained,
 * like scanFile.
 */
export function literalLines(
  finder: Finder,
  literals: readonly ByteLiteral[],
): ByteLines | undefined {
  if (literals.length === 0 || literals.some((l) => l.bytes.includes(10))) return undefined;
  return {
    indexIn: (bytes, from, to) => {
      let first = -1;
      for (const literal of literals) {
        // Past the first start found, only an earlier start counts: the rest is not searched.
        const end = first === -1 ? to : Math.min(to, first + literal.bytes.length - 1);
        const at = finder.indexIn(bytes, from, end, literal);
        if (at === null) return null;
        if (at !== -1) first = at;
      }
      return first;
    },
    lines: (bytes, from, to) => finder.lines(bytes, from, to),
  };
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
  /** Bytes of which every match holds one (a literal, or a regex's alternatives). */
  literals: readonly ByteLiteral[] | undefined,
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
    // The literals, on the bytes (UTF-16 text does not hold UTF-8 needles): a file holding none
    // of them (nor their Latin-1 twins) holds no match.
    if (literals && literals.length > 0 && !utf16) {
      let before = 0;
      while (!literals.some((literal) => finder.contains(length, literal))) {
        if (whole) return "miss";
        if (before + length > maxBytes) return "unchecked"; // it grew: the main thread says so
        // Keep the longest needle's length less one byte for a needle across the seam.
        let keep = 0;
        for (const l of literals) {
          keep = Math.max(keep, l.bytes.length - 1, (l.latin1?.bytes.length ?? 0) - 1);
        }
        buf.copyWithin(0, length - keep, length);
        before += length - keep;
        const got = fs.readSync(fd, buf, keep, WHOLE_BYTES + CHUNK - keep, null);
        if (got === 0) return "miss";
        length = keep + got;
      }
    }
    if (!m) return "unchecked";
    const byteLines = literals && !utf16 ? literalLines(finder, literals) : undefined;
    if (whole) {
      const bytes = buf.subarray(0, length);
      return match((position) => bytes.subarray(position), m, options, stopped, length, byteLines);
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
      Infinity,
      byteLines,
    );
  } catch {
    return "unchecked";
  } finally {
    if (fd !== -1) fs.closeSync(fd);
  }
}
