// The worker threads a backend can lend the use cases (local disk: lib/backends/local/
// parallel_scan.ts): a search's content matching and a listing's head summaries, made where the
// files are read. Interfaces only; the ops work the same without them.

import type { ByteLiteral } from "../../core/search/search_pattern.ts";
import type {
  FileMatches,
  FileScan,
  MatchOptions,
  MatchSpec,
} from "../../core/search/line_matcher.ts";
import type { FileSummary } from "../../core/text/head_summary.ts";
import type { PathBatch } from "../../core/search/path_batch.ts";

/**
 * Optional accelerator for searches on one backend: matches batches of files in parallel where
 * they are read, with the same code and answers as this module's own matching (matchData).
 */
export interface ContentScanner {
  /** Only locations on the backend with this id are scanned. */
  readonly backendId: string;
  /** Starts one search; files over `maxBytes` (and anything but regular files) come back unchecked. */
  open(request: ScanRequest, maxBytes: number): ScanRun;
  /**
   * Optional: one listing's head summaries made by the scanner's threads while the listing walks
   * on (list_dir.ts); null when it cannot help now (its threads are not running: starting them
   * costs more than a listing saves).
   */
  openSummaries?(headBytes: number): SummaryRun | null;
  /**
   * Optional: loads what the scanner runs on; a caller awaits it before its first `open` or
   * `openSummaries` (a scanner without it is ready at once).
   */
  ready?(): Promise<void>;
  close(): Promise<void>;
}

/** One search on a ContentScanner. */
export interface ScanRun {
  /** Scans one batch of files (see PathBatch); the answer's indexes are the batch's. */
  scan(files: PathBatch): Promise<ScanResult>;
  /**
   * Matches bytes this thread read (another backend's file, a name only the backend opens) off
   * this thread: "unchecked" when it cannot be matched there, "interrupted" when the search
   * stopped inside it.
   */
  match(data: Uint8Array): Promise<FileScan | "unchecked" | "interrupted">;
  /**
   * Stops the scans in flight at their next file (their remaining files come back unchecked);
   * one still inside a file after a short grace is ended there (ScanResult.interrupted).
   */
  stop(): void;
}

/** What a scanner's batch looks for: the search as data, and how much of each file to keep. */
export interface ScanRequest {
  spec: MatchSpec;
  /** Bytes every match holds (checked before any decoding), when the search has them. */
  literal?: ByteLiteral;
  /** Without `literal`: bytes of which every match holds one (checked the same way). */
  anyOf?: readonly ByteLiteral[];
  /** `room` bounds the shown lines of a whole batch: no more can be printed. */
  options: MatchOptions;
}

/** A batch's answer, by index in the batch; a file in no list holds no match. */
export interface ScanResult {
  found: [number, FileMatches][];
  binaries: number[];
  /** Left to the caller: read and matched here (unreadable, too large, not reached...). */
  unchecked: number[];
  /** The file a worker was inside when the stopped search ended it: searched only in part. */
  interrupted?: number;
}

/**
 * One listing's head summaries made on other threads while the listing walks on (local disk: the
 * search workers). Batches are numbered in the order posted; each is made once, by a worker or
 * by the caller, whichever claims it first.
 */
export interface SummaryRun {
  /** Hands the next batch of files to the other threads. */
  post(paths: readonly string[]): void;
  /**
   * True when batch `k` is now the caller's: no other thread took it (none will), or, with
   * `started`, another thread is still making it (its answer is dropped). False when its answer
   * is on its way (`answer`).
   */
  claim(k: number, started?: boolean): boolean;
  /**
   * Batch `k`'s summaries from another thread, null for a file it left to the caller (the
   * backend's careful path decides it); null for the whole batch when the caller must make it
   * (claimed by the caller, or the threads failed).
   */
  answer(k: number): Promise<(FileSummary | null)[] | null>;
  /** Ends the run: batches no thread took are dropped. */
  stop(): void;
}

/** Where a listing's summaries can be made off its thread (the local parallel scanner). */
export interface SummaryHelper {
  /** Only listings on the backend with this id are helped. */
  readonly backendId: string;
  /** Null when it cannot help now (see ContentScanner.openSummaries). */
  openSummaries?(headBytes: number): SummaryRun | null;
}
