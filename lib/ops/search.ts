// Content search for view: walks one or more roots with the same rules as listings, prefilters
// each whole file buffer (no decoding, no per-line work for files without a match), and prints
// matches grouped by file as `N:hh|content` so edit tools can take the ids directly. Files are
// streamed in path order; output is capped with a notice saying how to narrow. File headers quote
// odd names as listings do (core/path/path_quote.ts); directories the walk could not read are reported.

import { formatLineId, hashLine, renderLine } from "../core/edit/line_id.ts";
import { linePrint } from "../core/edit/shown_lines.ts";
import type { ByteLiteral, RegexProbe, SearchPattern } from "../core/search/search_pattern.ts";
import { decodeLatin1, decodeText, looksBinary } from "../core/text/text_file.ts";
import type { FileBackend } from "./file_backend.ts";
import type { Location, Locations } from "./location.ts";
import { describeRules, emptyHint, unreadableNotice } from "./list_dir.ts";
import { renderGuide, step } from "../core/next_step.ts";
import { fileKey, type Session } from "./session.ts";
import { displayPath } from "./view_args.ts";
import {
  newWalkStats,
  readInOrder,
  walkBatches,
  walkFiles,
  type WalkItem,
  type WalkOptions,
} from "./walk.ts";
import { plural } from "../core/plural.ts";
import { quotePath, quotePathAlways } from "../core/path/path_quote.ts";
import { Budget, type StopReason, UNLIMITED } from "./budget.ts";
import { type ByteBudget, DEFAULT_MAX_FILE_BYTES, formatSize } from "./read_limits.ts";
import { searchBigFileHint } from "./big_file_hints.ts";
import { windowAround } from "../core/search/line_window.ts";

/** Printed lines (matches plus context) before the search stops. */
export const SEARCH_MAX_LINES = 400;
/** Matching lines printed per file before moving on to the next file. */
export const SEARCH_MAX_PER_FILE = 40;
/** Characters of one line printed in search output. */
export const SEARCH_MAX_LINE_CHARS = 400;
/**
 * Optional accelerator for searches on one backend: checks many files in parallel (for a
 * literal, or a regex's required literal and whole-text prefilter) and returns the indices of
 * those that may match or could not be checked (`hits`), and of those that are binary by
 * matchFile's rule (a NUL byte in the first 8 KiB, no UTF-16 byte order mark). A superset of
 * hits is fine: every hit is re-read and matched here, so results equal the plain engine's.
 */
export interface ContentScanner {
  /** Only locations on the backend with this id are scanned. */
  readonly backendId: string;
  /** Files over `maxBytes` (and anything but regular files) are hits: the consumer reports them. */
  candidates(
    paths: readonly string[],
    probe: ScanProbe,
    maxBytes: number,
  ): Promise<ScanResult>;
  close(): Promise<void>;
}

/** What a file must hold to be a hit: the literal's bytes, and a match of the regex probe. */
export interface ScanProbe {
  literal?: ByteLiteral;
  regex?: RegexProbe;
}

export interface ScanResult {
  hits: number[];
  binaries: number[];
}

/** Files per scanner request, and requests kept in flight ahead of the consumer. */
const SCAN_BATCH = 256;
const SCAN_AHEAD = 6;

export interface SearchRoot {
  location: Location;
  kind: "file" | "dir";
}

export interface SearchOptions extends WalkOptions {
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
}

/** A byte limit as the notices say it: "16 MiB" for whole MiB, else "1.5 MB"-style. */
function describeLimit(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MiB` : formatSize(bytes);
}

const fallbackDecoder = new TextDecoder();

/** The lines of a file when it may contain a match; null when it surely does not or is binary. */
export function matchFile(
  data: Uint8Array,
  search: SearchPattern,
): { lines: string[]; matches: number[] } | "binary" | null {
  // First, like ripgrep: a NUL in the first 8 KiB (UTF-16 with a byte order mark excepted) makes
  // the file binary before any work on the whole buffer.
  if (looksBinary(data)) return "binary";
  const utf16 = data.length >= 2 &&
    ((data[0] === 0xff && data[1] === 0xfe) || (data[0] === 0xfe && data[1] === 0xff));
  if (!utf16) {
    const byBytes = search.mayMatchBytes(data);
    if (byBytes === false) return null;
    if (byBytes === null && !mayMatchDecoded(data, search)) return null;
  }
  const decoded = decodeText(data);
  if (decoded.kind === "binary") return "binary";
  const lines = decoded.doc.lines;
  const matches: number[] = [];
  for (let i = 0; i < lines.length; i++) if (search.matchesLine(lines[i]!)) matches.push(i + 1);
  return matches.length > 0 ? { lines, matches } : null;
}

/**
 * The text prefilter for patterns without byte needles. Bytes that are not UTF-8 decode to U+FFFD
 * here, while the file itself is read as Latin-1 (decodeText): check that reading too, or a
 * regex with `é` would never match in a Latin-1 file.
 */
function mayMatchDecoded(data: Uint8Array, search: SearchPattern): boolean {
  const text = fallbackDecoder.decode(data);
  if (search.mayMatchText(text)) return true;
  return text.includes("\uFFFD") && search.mayMatchText(decodeLatin1(data));
}

export async function searchRoots(
  locations: Locations,
  session: Session,
  roots: readonly SearchRoot[],
  search: SearchPattern,
  options: SearchOptions,
  scanner?: ContentScanner,
): Promise<string> {
  const budget = options.budget ?? UNLIMITED;
  const limit = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const stats = newWalkStats();
  let searched = 0;
  let binaries = 0;
  let unreadable = 0;
  const tooLarge: string[] = [];
  let matchedFiles = 0;
  let matchedLines = 0;
  let printed = 0;
  let capped = false;
  let stopped: StopReason | null = null;
  const blocks: string[] = [];

  /** Handles one file's bytes; returns true once the output cap is reached. */
  const consider: Consider = (root, path, data, error) => {
    searched++;
    if (!data) {
      if ((error as { code?: string } | undefined)?.code === "FILE_TOO_LARGE") {
        tooLarge.push(displayPath(session, locations.sibling(root.location, path)));
      } else unreadable++;
      return false;
    }
    // An empty file has no lines (and every file the scanner ruled out comes as one).
    if (data.length === 0) return false;
    const found = matchFile(data, search);
    if (found === null) return false;
    if (found === "binary") {
      binaries++;
      return false;
    }
    const location = locations.sibling(root.location, path);
    matchedFiles++;
    matchedLines += found.matches.length;
    const block = renderFileMatches(
      session,
      location,
      found.lines,
      found.matches,
      search,
      options.context,
      SEARCH_MAX_LINES - printed,
    );
    printed += block.printed;
    blocks.push(block.text);
    return printed >= SEARCH_MAX_LINES;
  };

  for (const root of roots) {
    if (capped || stopped) break;
    const backend: FileBackend = root.location.backend;
    const probe: ScanProbe = {
      ...(search.literal ? { literal: search.literal } : {}),
      ...(search.probe ? { regex: search.probe } : {}),
    };
    const probing = probe.literal !== undefined || probe.regex !== undefined;
    if (scanner && root.kind === "dir" && probing && backend.id === scanner.backendId) {
      const outcome = await scanRoot(
        root,
        walkBatches(backend, root.location.path, { ...options, budget }, stats),
        scanner,
        probe,
        consider,
        budget,
        limit,
        options.readBudget,
      );
      capped = outcome === "capped";
      if (outcome !== "capped" && outcome !== "done") stopped = outcome;
    } else {
      const files: AsyncIterable<WalkItem> = root.kind === "file"
        ? singleFile(root.location.path)
        : walkFiles(backend, root.location.path, { ...options, budget }, stats);
      const reads = readInOrder(backend, fileItems(files), {
        skipLargerThan: limit,
        // A size from a bulk listing (remote hosts) rules a file out before any transfer.
        skip: (item) => item.kind === "file" && (item.size ?? 0) > limit,
      });
      for await (const { item, data, error } of reads) {
        const skipped = !data && !error;
        const release = data && options.readBudget
          ? await takeOrStop(options.readBudget, data.length, budget)
          : undefined;
        if (release === null) {
          stopped = "cancelled";
          break;
        }
        try {
          if (consider(root, item.path, data, skipped ? tooLargeMarker : error)) {
            capped = true;
            break;
          }
        } finally {
          release?.();
        }
        stopped = await budget.breathe();
        if (stopped) break;
      }
    }
    stopped ??= stats.stopped ?? null;
  }

  const where = roots.map((r) => quotePathAlways(displayPath(session, r.location))).join(", ");
  const unreadableDirs = unreadableNotice(stats);
  const rootsArg = roots.map((r) => displayPath(session, r.location)).join("|");
  const rules = describeRules(options, options.pattern);
  const skipped = [
    binaries > 0 ? `${plural(binaries, "binary file")} skipped` : "",
    unreadable > 0 ? `${plural(unreadable, "unreadable file")} skipped` : "",
    tooLarge.length > 0
      ? `${plural(tooLarge.length, "file")} over ${describeLimit(limit)} skipped`
      : "",
  ].filter(Boolean).join(", ");
  const notices: string[] = [];
  if (tooLarge.length > 0) {
    notices.push(
      `Not searched, over the ${describeLimit(limit)} search limit: ${
        tooLarge.slice(0, 5).map(quotePathAlways).join(", ")
      }${tooLarge.length > 5 ? ` and ${tooLarge.length - 5} more` : ""}. ${
        renderGuide(searchBigFileHint(tooLarge[0]!, search.source, search.regex), session.steps)
      }; the limit is the server's --max-file-bytes.`,
    );
  }
  if (stopped) {
    notices.push(
      `${budget.describe(stopped)}: the search stopped after ${
        plural(searched, "file")
      }, so the results are partial. Narrow it: a deeper path, a pattern such as ${
        session.steps(
          step("view", { path: rootsArg, content: search.source, pattern: "*.ts|!*_test.ts" }),
        )
      }, or more specific content.`,
    );
  }
  if (unreadableDirs) notices.push(unreadableDirs);
  const tail = notices.length > 0 ? `\n\n${notices.map((n) => `[${n}]`).join("\n")}` : "";
  if (matchedFiles === 0) {
    return `No matches for ${search.description} in ${where}: searched ${plural(searched, "file")}${
      stopped ? " before it stopped" : ""
    } (${rules}${skipped ? `; ${skipped}` : ""}).` +
      emptyHint(session.steps, stats, options, {
        path: rootsArg,
        content: search.source,
        ...(search.regex ? { regex: true } : {}),
        ...(options.pattern ? { pattern: options.pattern } : {}),
      }, (abs) => {
        // Named from the root it was found under (several roots may sit on several hosts).
        const root = roots.find((r) => abs.startsWith(r.location.path)) ?? roots[0]!;
        return displayPath(session, locations.sibling(root.location, abs));
      }) +
      (search.regex
        ? ""
        : ` Literal search is case-sensitive; to ignore case: ${
          session.steps(step("view", {
            path: rootsArg,
            content: `(?i)${escapeForRegex(search.source)}`,
            regex: true,
          }))
        }.`) +
      tail;
  }
  const partial = capped || stopped;
  const header = `${partial ? "At least " : ""}${plural(matchedLines, "matching line")} in ${
    plural(matchedFiles, "file")
  } for ${search.description} in ${where} (searched ${plural(searched, "file")}${
    capped ? " before the output cap" : stopped ? " before it stopped" : ""
  }${skipped ? `; ${skipped}` : ""}). Lines are N:hh|content; the ids work in edit tools as is.`;
  const all = capped
    ? [
      `Output capped at ${SEARCH_MAX_LINES} lines; the search stopped there. Narrow it: a ` +
      `deeper path, a pattern such as ${
        session.steps(
          step("view", { path: rootsArg, content: search.source, pattern: "*.ts|!*_test.ts" }),
        )
      }, or more specific content.`,
      ...notices,
    ]
    : notices;
  const notice = all.length > 0 ? `\n\n${all.map((n) => `[${n}]`).join("\n")}` : "";
  return `${header}\n\n${blocks.join("\n\n")}${notice}`;
}

type Consider = (
  root: SearchRoot,
  path: string,
  data: Uint8Array | undefined,
  error?: unknown,
) => boolean;

/** Stands in for the error of a file ruled out by its listed size, before any read. */
const tooLargeMarker = { code: "FILE_TOO_LARGE" };

/**
 * The accelerated path: batches of walked files go to the scanner; only its candidates are read
 * and matched here, batch by batch in walk order, so the output is the plain engine's.
 */
async function scanRoot(
  root: SearchRoot,
  walk: AsyncIterable<WalkItem[]>,
  scanner: ContentScanner,
  probe: ScanProbe,
  consider: Consider,
  budget: Budget,
  limit: number,
  readBudget: ByteBudget | undefined,
): Promise<"capped" | "done" | StopReason> {
  const backend = root.location.backend;
  const inFlight: { paths: string[]; hits: Promise<ScanResult> }[] = [];
  let batch: string[] = [];
  // A worker reads one file of a batch at a time (at most `limit` bytes): each batch in flight
  // holds that from the shared budget, capped at a quarter of it so the scanner's four workers
  // (its most) can all be busy. More batches wait for room instead of piling up reads.
  const hold = readBudget ? Math.min(limit, readBudget.capacity / 4) : 0;
  const send = async () => {
    const release = readBudget ? await takeOrStop(readBudget, hold, budget) : () => {};
    if (release === null) return false;
    inFlight.push({
      paths: batch,
      hits: scanner.candidates(batch, probe, limit).finally(release),
    });
    batch = [];
    return true;
  };
  /** Settles the oldest batch: non-candidates count as searched (binaries as binary), candidates are matched. */
  const settle = async (): Promise<"capped" | StopReason | null> => {
    const { paths, hits } = inFlight.shift()!;
    const result = await hits;
    const candidates = new Set(result.hits);
    const binaries = new Set(result.binaries);
    for (let i = 0; i < paths.length; i++) {
      if (binaries.has(i)) {
        if (consider(root, paths[i]!, BINARY)) return "capped";
        continue;
      }
      if (!candidates.has(i)) {
        if (consider(root, paths[i]!, EMPTY)) return "capped";
        continue;
      }
      const { data, error } = await readBounded(backend, paths[i]!, limit);
      const release = data && readBudget
        ? await takeOrStop(readBudget, data.length, budget)
        : undefined;
      if (release === null) return "cancelled";
      try {
        if (consider(root, paths[i]!, data, error)) return "capped";
      } finally {
        release?.();
      }
      const stop = await budget.breathe();
      if (stop) return stop;
    }
    return null;
  };
  try {
    for await (const items of walk) {
      for (const item of items) {
        if (item.kind !== "file") continue;
        batch.push(item.path);
        if (batch.length >= SCAN_BATCH && !await send()) return "cancelled";
        if (inFlight.length > SCAN_AHEAD) {
          const end = await settle();
          if (end) return end;
        }
      }
    }
    if (batch.length > 0 && !await send()) return "cancelled";
    while (inFlight.length > 0) {
      const end = await settle();
      if (end) return end;
    }
    return "done";
  } finally {
    // Let requests still running finish before returning (no dangling work after a cap).
    await Promise.all(inFlight.map((f) => f.hits));
  }
}

/** Bytes from the read budget, or null when the call was cancelled while it waited for them. */
async function takeOrStop(
  readBudget: ByteBudget,
  bytes: number,
  budget: Budget,
): Promise<(() => void) | null> {
  try {
    return await readBudget.take(bytes, budget.signal);
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

/** Stands in for a file the scanner ruled out: no bytes, so no match (and not "unreadable"). */
const EMPTY = new Uint8Array(0);
/** Stands in for a file the scanner found binary: one NUL byte, which matchFile calls binary. */
const BINARY = new Uint8Array(1);

async function* singleFile(path: string): AsyncGenerator<WalkItem> {
  yield { kind: "file", path, rel: path };
}

async function* fileItems(items: AsyncIterable<WalkItem>): AsyncGenerator<WalkItem> {
  for await (const item of items) if (item.kind === "file") yield item;
}

function renderFileMatches(
  session: Session,
  location: Location,
  lines: readonly string[],
  matches: readonly number[],
  search: SearchPattern,
  context: number,
  budget: number,
): { text: string; printed: number } {
  const key = fileKey(location);
  const shown = displayPath(session, location);
  const kept = matches.slice(0, SEARCH_MAX_PER_FILE);
  const matched = new Set(kept);
  // Merge each match's context window into contiguous runs.
  const runs: [number, number][] = [];
  for (const m of kept) {
    const from = Math.max(1, m - context);
    const to = Math.min(lines.length, m + context);
    const last = runs[runs.length - 1];
    if (last && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else runs.push([from, to]);
  }
  const out: string[] = [];
  let printed = 0;
  let stoppedAt = 0;
  for (const [from, to] of runs) {
    if (printed >= budget) break;
    if (out.length > 0) out.push("--");
    const hashes: number[] = [];
    const prints: number[] = [];
    let n = from;
    for (; n <= to && printed < budget; n++) {
      const content = lines[n - 1]!;
      hashes.push(hashLine(content));
      prints.push(linePrint(content));
      if (content.length > SEARCH_MAX_LINE_CHARS) {
        // A long line shows around its match (a context line, its head); the id is the whole
        // line's, so it works in edits as is.
        const [from, to] = (matched.has(n) ? search.findInLine(content) : null) ?? [0, 0];
        out.push(
          `${formatLineId(n, content)}|${windowAround(content, from, to, SEARCH_MAX_LINE_CHARS)}`,
        );
      } else out.push(renderLine(n, content));
      printed++;
    }
    stoppedAt = n - 1;
    // Only what was actually printed counts as shown (batch_edit checks ranges against it).
    session.shown.recordWithPrints(key, from, hashes, prints);
  }
  const label = kept.length === 1 ? `line ${kept[0]}` : `lines ${kept.join(", ")}`;
  const rest = matches.length - kept.length;
  const notes: string[] = [];
  if (rest > 0) {
    const next = matches[kept.length]!;
    notes.push(
      `[${plural(rest, "more matching line")} in this file, from line ${next}: ${
        session.steps(step("view", {
          path: quotePath(shown),
          start: next,
          end: Math.min(lines.length, next + 99),
        }))
      }]`,
    );
  } else if (stoppedAt < (runs[runs.length - 1]?.[1] ?? 0)) {
    notes.push(`[cut at the output cap after line ${stoppedAt}]`);
  }
  return {
    text: [`${quotePath(shown)} (${label})`, ...out, ...notes].join("\n"),
    printed,
  };
}

function escapeForRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
