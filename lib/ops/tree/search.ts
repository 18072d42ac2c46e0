// Content search for view: walks one or more roots with the same rules as listings and matches
// each file where its bytes are (core/search/match_bytes.ts: decoded and searched a window at a
// time, only the shown lines kept), on the backend's parallel scanner when it has one. Matches
// are printed grouped by file, in path order, as `N:hh|content` (lib/ops/tree/search_report.ts);
// output is capped with a notice saying how to narrow.

import type { SearchPattern } from "../../core/search/search_pattern.ts";
import type { MatchOptions } from "../../core/search/line_matcher.ts";
import { matchData } from "../../core/search/match_bytes.ts";
import type { Guide } from "../../core/next_step.ts";
import type { FileBackend } from "../ports/file_backend.ts";
import type { ContentScanner, ScanResult, ScanRun } from "../ports/worker_pool.ts";
import type { Location, Locations } from "../location.ts";
import type { Session } from "../session.ts";
import { walkBatches, WalkFile, walkFiles, type WalkItem, type WalkOptions } from "./walk.ts";
import { pathAt, type PathBatch, PathBatchBuilder } from "../../core/search/path_batch.ts";
import { newWalkStats } from "./notices.ts";
import { readInOrder } from "./read_in_order.ts";
import { Budget, type StopReason, UNLIMITED } from "../budget.ts";
import { DEFAULT_MAX_FILE_BYTES } from "../read_limits.ts";
import { type ByteBudget } from "../../core/byte_budget.ts";
import {
  describeSearch,
  SEARCH_MAX_LINE_CHARS,
  SEARCH_MAX_LINES,
  SEARCH_MAX_PER_FILE,
  SearchTally,
} from "./search_report.ts";

// Exported for tests.
export { SEARCH_MAX_LINES };

/**
 * Files per scanner request, and requests kept ahead of the one being settled. The read budget's
 * holds (see scanRoot) bound the batches being scanned; SCAN_AHEAD bounds only the answers that
 * wait for an earlier batch (a few matches each). It must not stop the walk first: a batch with
 * a 12 MB file at the head kept 6 answered ones waiting, and the second worker idle (node_modules
 * search: 10 % of the wall time). Answered batches at the head are settled at once, not when 32
 * wait (see scanRoot).
 */
const SCAN_BATCH = 256;
const SCAN_AHEAD = 32;

export interface SearchRoot {
  location: Location;
  kind: "file" | "dir";
}

interface SearchOptions extends WalkOptions {
  context: number;
  pattern?: string;
  /**
   * Files larger than this are not read (named in the result instead): one call's memory stays
   * bounded, and a multi-gigabyte log or sparse file cannot stall the server. The server's
   * --max-file-bytes; DEFAULT_MAX_FILE_BYTES when absent.
   */
  maxFileBytes?: number;
  /**
   * The process-wide read budget (shared with views, edits and job reads). The main thread takes
   * each file's bytes before matching it and gives them back once matched; it pulls the next
   * file only then, so a search holds at most one file outside the budget (the one it waits
   * with). Each batch at the parallel scanner holds a share too (see scanRoot).
   */
  readBudget?: ByteBudget;
  /** Told how many lines matched once the search has run (the CLI's exit code). */
  onSearched?: (matchedLines: number) => void;
}

/** One search over its roots, with what each needs (see searchRoots). */
interface SearchRun {
  locations: Locations;
  search: SearchPattern;
  options: SearchOptions;
  tally: SearchTally;
  budget: Budget;
  limit: number;
  /** The root's run on the scanner (workers), when there is one: its files are matched there. */
  scan?: ScanRun;
  /** Set the moment the call stops (deadline, cancel), while this thread waits on workers. */
  halted?: StopReason;
}

type RootEnd = "capped" | "done" | StopReason;

/** Searches the roots in order; the result keeps the calls it suggests as steps. */
export async function searchRoots(
  locations: Locations,
  session: Session,
  roots: readonly SearchRoot[],
  search: SearchPattern,
  options: SearchOptions,
  scanner?: ContentScanner,
): Promise<Guide> {
  const budget = options.budget ?? UNLIMITED;
  const limit = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const stats = newWalkStats();
  const tally = new SearchTally(session);
  const run: SearchRun = { locations, search, options, tally, budget, limit };
  let capped = false;
  let stopped: StopReason | null = null;
  for (const root of roots) {
    const backend = root.location.backend;
    const walkOptions = { ...options, budget };
    // Every match runs off this thread when there is a scanner: the files of a local root are
    // read and matched by its workers, other backends' files matched there once read here.
    const path = root.location.path;
    const file = root.kind === "file";
    const end = await onScanner(
      run,
      scanner,
      () =>
        scanner && backend.id === scanner.backendId
          ? scanRoot(
            run,
            root,
            file ? singleBatch(path) : walkBatches(backend, path, walkOptions, stats),
          )
          : plainRoot(
            run,
            root,
            file ? singleFile(path) : walkFiles(backend, path, walkOptions, stats),
          ),
    );
    capped = end === "capped";
    if (end !== "capped" && end !== "done") stopped = end;
    stopped ??= stats.stopped ?? null;
    if (capped || stopped) break;
  }
  options.onSearched?.(tally.matchedLines);
  const guide = await describeSearch(session, locations, tally, {
    roots,
    search,
    options,
    stats,
    limit,
    budget,
    capped,
    stopped,
  });
  // The scanner's batch holds asked for no collection (see scanRoot): this thread's garbage
  // from the walk is collected, when due, once the answer is made. A forced collection (35-120
  // ms) due in the middle of a search stopped the walk, and the workers waited for batches.
  options.readBudget?.reclaimSoon();
  return guide;
}

/**
 * Runs one root's search with a run on the scanner (when there is one) in `run.scan`: stopped the
 * moment the call stops, even while this thread waits for a worker's answer, and at the end.
 */
async function onScanner(
  run: SearchRun,
  scanner: ContentScanner | undefined,
  body: () => Promise<RootEnd>,
): Promise<RootEnd> {
  if (!scanner) return await body();
  const scan = scanner.open({
    spec: run.search.spec,
    ...(run.search.literal ? { literal: run.search.literal } : {}),
    ...(run.search.anyOf ? { anyOf: run.search.anyOf } : {}),
    options: matchOptions(run),
  }, run.limit);
  run.scan = scan;
  const off = run.budget.onStop((reason) => {
    run.halted = reason;
    scan.stop();
  });
  try {
    return await body();
  } finally {
    off();
    scan.stop();
    run.scan = undefined;
  }
}

/** Options for matching on this thread: the file may print what the output cap has room for. */
function matchOptions(run: SearchRun): MatchOptions {
  return {
    context: run.options.context,
    perFile: SEARCH_MAX_PER_FILE,
    maxChars: SEARCH_MAX_LINE_CHARS,
    room: run.tally.room,
  };
}

/** Matches bytes read here; an empty file has no lines. */
function matchHere(run: SearchRun, location: Location, data: Uint8Array): boolean {
  const scan = data.length === 0
    ? "miss"
    : matchData(data, run.search.matchers(), matchOptions(run));
  return run.tally.add(location, scan);
}

/** The plain path: each file read here in walk order (bulk reads on remote hosts) and matched. */
async function plainRoot(
  run: SearchRun,
  root: SearchRoot,
  files: AsyncIterable<WalkItem>,
): Promise<RootEnd> {
  const { locations, limit, budget } = run;
  const backend = root.location.backend;
  const reads = readInOrder(backend, fileItems(files), {
    skipLargerThan: limit,
    // A size from a bulk listing (remote hosts) rules a file out before any transfer.
    skip: (item) => item.kind === "file" && (item.size ?? 0) > limit,
  });
  for await (const { item, data, error } of reads) {
    const location = locations.sibling(root.location, item.path);
    const end = data
      ? await matchTaken(run, location, data)
      : run.tally.failed(location, error ?? tooLargeMarker);
    if (end) return end;
    const stop = await budget.breathe();
    if (stop) return stop;
  }
  return "done";
}

/**
 * The file's bytes matched (on the scanner's workers when the search has them, with the bytes
 * taken from the read budget meanwhile); "capped" at the output cap, a stop reason when the call
 * stopped inside the file.
 */
async function matchTaken(
  run: SearchRun,
  location: Location,
  data: Uint8Array,
): Promise<"capped" | StopReason | null> {
  const release = run.options.readBudget
    ? await takeOrStop(run.options.readBudget, data.length, run.budget)
    : undefined;
  if (release === null) return "cancelled";
  try {
    const answer = run.scan && data.length > 0 ? await run.scan.match(data) : "unchecked";
    if (answer === "interrupted") {
      run.tally.interrupted(location);
      return run.halted ?? run.budget.stopped() ?? "cancelled";
    }
    // Unchecked there (the workers cannot build this matcher, e.g. in a bundle): matched here.
    if (answer === "unchecked") return matchHere(run, location, data) ? "capped" : null;
    return run.tally.add(location, answer) ? "capped" : null;
  } finally {
    release?.();
  }
}

/** Stands in for the error of a file ruled out by its listed size, before any read. */
const tooLargeMarker = { code: "FILE_TOO_LARGE" };

/**
 * The accelerated path: batches of walked files go to the scanner, which answers with each
 * file's matches; settled batch by batch in walk order, so the output is the plain path's. Once
 * the output cap is reached or the call stops, the scans in flight are told to stop.
 */
async function scanRoot(
  run: SearchRun,
  root: SearchRoot,
  walk: AsyncIterable<WalkItem[]>,
): Promise<RootEnd> {
  const { limit, budget } = run;
  const readBudget = run.options.readBudget;
  const scan = run.scan!;
  const inFlight: InFlight[] = [];
  // Each file as its directory's prefix and its name: no path string per file (path_batch.ts).
  const batch = new PathBatchBuilder(SCAN_BATCH);
  // A worker reads one file of a batch at a time (at most `limit` bytes): each batch in flight
  // holds that from the shared budget, capped at a quarter of it so the scanner's four workers
  // (its most) can all be busy. More batches wait for room instead of piling up reads. The
  // holds are reservations: the bytes are read in the workers' heaps, not this thread's.
  const hold = readBudget ? Math.min(limit, readBudget.capacity / 4) : 0;
  const send = async () => {
    const release = readBudget ? await takeOrStop(readBudget, hold, budget, true) : () => {};
    if (release === null) return false;
    const files = batch.take();
    inFlight.push(inFlightBatch(files, scan.scan(files).finally(release)));
    return true;
  };
  try {
    for await (const items of walk) {
      for (const item of items) {
        if (item.kind !== "file") continue;
        batch.add(item.prefix, item.name);
        if (!batch.full) continue;
        if (!await send()) return "cancelled";
        // The answered head goes now: left until 32 waited, each batch's paths and answers
        // outlived V8's young generation, and a search of 931,000 files grew this thread's
        // heap by ~12 MB a second of dead paths between collections (peak 123 -> 104-110 MB).
        while (inFlight.length > SCAN_AHEAD || inFlight[0]?.answered === true) {
          const end = await settle(run, root, inFlight.shift()!);
          if (end) return end;
        }
      }
    }
    if (batch.length > 0 && !await send()) return "cancelled";
    while (inFlight.length > 0) {
      const end = await settle(run, root, inFlight.shift()!);
      if (end) return end;
    }
    return "done";
  } finally {
    // Stop the scans still running and let them finish (no dangling work after a cap).
    scan.stop();
    await Promise.all(inFlight.map((f) => f.result));
  }
}

/** A batch sent to the scanner, and whether its answer is in (settling it then waits for nothing). */
interface InFlight {
  files: PathBatch;
  result: Promise<ScanResult>;
  answered: boolean;
}

function inFlightBatch(files: PathBatch, result: Promise<ScanResult>): InFlight {
  const sent: InFlight = { files, result, answered: false };
  // A failed scan is settled like an answered one: settle awaits it and the error goes up.
  result.then(() => sent.answered = true, () => sent.answered = true);
  return sent;
}

/** Adds a batch's answers in order; files the scanner left unchecked are read and matched here. */
async function settle(
  run: SearchRun,
  root: SearchRoot,
  sent: InFlight,
): Promise<"capped" | StopReason | null> {
  const { files } = sent;
  const result = await sent.result;
  const found = new Map(result.found);
  const binaries = new Set(result.binaries);
  const unchecked = new Set(result.unchecked);
  // A Location only for a file the tally names (most of a big tree's files are misses): a search
  // of 20,463 files made 1.1 MB of them, garbage on the main thread (sampling heap profile).
  const at = (i: number) => run.locations.sibling(root.location, pathAt(files, i));
  for (let i = 0; i < files.names.length; i++) {
    if (result.interrupted === i) {
      run.tally.interrupted(at(i));
      return run.halted ?? run.budget.stopped() ?? "cancelled";
    }
    if (!unchecked.has(i)) {
      const scan = found.get(i) ?? (binaries.has(i) ? "binary" : "miss");
      if (scan === "miss") run.tally.missed();
      else if (run.tally.add(at(i), scan)) return "capped";
      continue;
    }
    // Stopped: the files the workers left are not read and matched here instead.
    const halt = run.halted ?? run.budget.stopped();
    if (halt) return halt;
    const location = at(i);
    const { data, error } = await readBounded(root.location.backend, pathAt(files, i), run.limit);
    const end = data ? await matchTaken(run, location, data) : run.tally.failed(location, error);
    if (end) return end;
    const stop = await run.budget.breathe();
    if (stop) return stop;
  }
  return await run.budget.breathe();
}

/** Bytes from the read budget, or null when the call was cancelled while it waited for them. */
async function takeOrStop(
  readBudget: ByteBudget,
  bytes: number,
  budget: Budget,
  reserve = false,
): Promise<(() => void) | null> {
  try {
    return await readBudget.take(bytes, budget.signal, reserve);
  } catch (e) {
    if (budget.signal?.aborted) return null;
    throw e;
  }
}

/** One file, read only if it is a regular file within the search limit. */
async function readBounded(
  backend: FileBackend,
  path: string,
  limit: number,
): Promise<{ data?: Uint8Array; error?: unknown }> {
  try {
    if (backend.readFiles) {
      for await (const r of backend.readFiles([path], { skipLargerThan: limit })) {
        return r.data ? { data: r.data } : { error: r.error };
      }
      return { error: new Error("not returned by readFiles") };
    }
    return { data: await backend.readFile(path) };
  } catch (error) {
    return { error };
  }
}

async function* singleFile(path: string): AsyncGenerator<WalkItem> {
  yield new WalkFile("", "", path);
}

async function* singleBatch(path: string): AsyncGenerator<WalkItem[]> {
  yield [new WalkFile("", "", path)];
}

async function* fileItems(items: AsyncIterable<WalkItem>): AsyncGenerator<WalkItem> {
  for await (const item of items) if (item.kind === "file") yield item;
}
