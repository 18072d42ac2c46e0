// Search on the calling thread, for when no worker can take a batch: workers that could not
// start or failed (no permission, a runtime without them, no descriptors to spare). The same
// per-file scan the workers run (scan_worker.ts), with this thread's finder, matchers and
// confined file access; the pool (parallel_scan.ts) decides when to call it.

import * as fs from "node:fs";
import { RE2JS } from "re2js";
import { containsLiteral } from "../../core/search/search_pattern.ts";
import { createFinder, type Finder, finderModuleBytes } from "../../core/search/simd_find.ts";
import {
  type FileScan,
  type LineMatchers,
  type MatchSpec,
  openMatchers,
} from "../../core/search/line_matcher.ts";
import { matchBytes } from "../../core/search/match_bytes.ts";
import type { ScanRequest, ScanResult } from "../../ops/ports/worker_pool.ts";
import type { PathBatch } from "../../core/search/path_batch.ts";
import type { SummaryFs } from "./quick_summary.ts";
import { type BeneathConfig, beneathSummaryFs } from "./beneath_fs.ts";
import { beneathLibc } from "./beneath.ts";
import { matchHeld, scanBatch } from "./scan_worker.ts";

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
      // Without WebAssembly every line is decoded: no answer from the bytes.
      indexIn: () => null,
      lines: () => null,
    };
  }
}

let inlineFinder: Finder | undefined;

/** A batch of bytes already read (ScanRun.match) as the caller reads it. */
export function heldAnswer(result: ScanResult): FileScan | "unchecked" | "interrupted" {
  if (result.interrupted !== undefined) return "interrupted";
  if (result.found.length > 0) return result.found[0]![1];
  if (result.binaries.length > 0) return "binary";
  return result.unchecked.length > 0 ? "unchecked" : "miss";
}

/** Every file of a batch of `count` left to the caller. */
export function allUnchecked(count: number): ScanResult {
  return { found: [], binaries: [], unchecked: Array.from({ length: count }, (_, i) => i) };
}

const inlineMatchers = new Map<string, LineMatchers>();

/** One batch of a search, as the pool hands it to a worker or to scanInline. */
export interface Batch {
  /** The files of the batch; for bytes already read (`data`), one entry standing for them. */
  files: PathBatch;
  data?: Uint8Array;
  request: ScanRequest;
  maxBytes: number;
  /** The search's stop flag, shared with the workers. */
  stop: Int32Array;
  /** Set on a confined server: open the files beneath these directories (beneath_fs.ts). */
  confine: BeneathConfig | undefined;
}

/** One batch scanned on this thread: its `files`, or the bytes of `data`. */
export function scanInline({ files, data, request, maxBytes, stop, confine }: Batch): ScanResult {
  const reader = data ? fs : confine ? inlineBeneath(confine) : fs;
  if (!reader) return allUnchecked(files.names.length);
  const key = JSON.stringify(request.spec);
  let m = inlineMatchers.get(key);
  if (!m) {
    if (inlineMatchers.size > 16) inlineMatchers.clear();
    m = openMatchers(request.spec as MatchSpec, RE2JS);
    inlineMatchers.set(key, m);
  }
  if (data) return matchHeld(data, request, m, stop, matchBytes);
  const finder = inlineFinder ??= mainThreadFinder();
  return scanBatch(files, request, m, finder, maxBytes, reader, stop, matchBytes);
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
