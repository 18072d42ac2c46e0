// Listing a directory for view: gitignore-aware, recursive, one `path<TAB>N lines<TAB>~T tokens`
// row per file so an agent can budget its reads. Lines are counted on raw bytes; output is capped
// with a notice saying how to narrow; an empty result is a sentence, never an empty string.
// A path with a tab, newline, control character or bytes that are not UTF-8 is quoted
// (core/path/path_quote.ts), so every row is one file and its path works in any tool.

import { estimateTokens } from "../../core/text/token_estimate.ts";
import { type FileSummary, summarizeHead } from "../../core/text/head_summary.ts";
import type { FileBackend } from "../ports/file_backend.ts";
import type { SummaryHelper, SummaryRun } from "../ports/worker_pool.ts";
import type { PathRules } from "../../core/path/path_rules.ts";
import type { StopReason } from "../budget.ts";
import { type Location, siblingLocation } from "../location.ts";
import type { Session } from "../session.ts";
import { displayPath } from "../view_args.ts";
import { walkBatches, type WalkControl, type WalkItem, type WalkOptions } from "./walk.ts";
import { newWalkStats, type SkippedEntry, type WalkStats } from "./notices.ts";
import { readInOrder } from "./read_in_order.ts";
import { plural } from "../../core/plural.ts";
import { formatSize } from "../../core/byte_size.ts";
import { quotePath, quotePathAlways } from "../../core/path/path_quote.ts";
import {
  type Guide,
  guide,
  type GuidePart,
  joinGuide,
  joinGuides,
  step,
  type ToolArgs,
} from "../../core/next_step.ts";

/** Rows listed before the notice; the walk goes on only to count. */
const LIST_MAX_ROWS = 1000;
/** Files counted after the cap before giving up on an exact total. */
const COUNT_LIMIT = 200_000;
// Exported for tests.
/**
 * Bytes read of each listed file: its lines are counted exactly up to this size and estimated
 * from this head beyond it; binary files are told from their first 8 KiB. A 3 GB file costs a
 * 256 KiB read, and a batch of 64 files at most 16 MiB.
 */
export const LIST_HEAD_BYTES = 256 * 1024;
const LIST_BATCH = 64;
/**
 * Files per batch handed to other threads: small enough that the listing's thread, once its walk
 * is done, finds batches no worker took yet and makes them itself, from the last one back.
 */
const OVERLAP_BATCH = 32;

/** What a listing says after its rows: entries left out, or a stop before the end. */
function listNotices(
  shownPath: string,
  stats: WalkStats,
  options: WalkOptions,
  counts: { more: boolean; exact: boolean; shown: number; extra: number },
): GuidePart[] {
  const notices: GuidePart[] = [];
  if (counts.more) {
    notices.push(
      guide`Listed the first ${plural(counts.shown, "entry", "entries")}; ${
        counts.exact ? "" : "more than "
      }${plural(counts.extra, "more file")} not shown. Narrow it: ${
        step("view", { path: quotePath(shownPath), max_depth: 2 })
      }, a subdirectory, or a pattern such as ${
        step("view", { path: quotePath(shownPath), pattern: "*.ts" })
      }.`,
    );
  }
  if (stats.stopped && options.budget) {
    notices.push(
      joinGuide(
        `${options.budget.describe(stats.stopped)}: the listing stopped early and is partial. `,
        "Narrow it: ",
        step("view", { path: quotePath(shownPath), max_depth: 2 }),
        " or a subdirectory.",
      ),
    );
  }
  return notices;
}

/** One file's row: path, lines, ~tokens (scaled from a head when only that was read). */
function fileRow(rel: string, summary: FileSummary | undefined, error: Error | undefined): string {
  if (!summary) return `${quotePath(rel)}\tunreadable: ${error?.message ?? "no data"}`;
  if (summary.binary) return `${quotePath(rel)}\tbinary\t${formatSize(summary.size)}`;
  const tokens = `~${plural(estimateTokens(summary.textBytes), "token")}`;
  return summary.estimated
    ? `${quotePath(rel)}\t~${plural(summary.lines, "line")} (estimated)\t${tokens}`
    : `${quotePath(rel)}\t${plural(summary.lines, "line")}\t${tokens}`;
}

/** The rows gathered so far, and what the walk past them found. */
interface Listing {
  /** The backend's path rules: rows show paths in its form (`sub\b.txt` on Windows). */
  paths: PathRules;
  rows: string[];
  listed: number;
  cuts: number;
  binaries: number;
  /** More entries came after the last row; `extra` files of them are counted. */
  more: boolean;
  extra: number;
  /** False once counting gave up at COUNT_LIMIT. */
  exact: boolean;
}

function addCut(listing: Listing, rel: string, maxDepth: number | undefined): void {
  listing.cuts++;
  const { show, sep } = listing.paths;
  listing.rows.push(
    `${quotePath(`${show(rel)}${sep}`)}\tdirectory, not entered (max_depth ${maxDepth})`,
  );
}

function addFile(listing: Listing, rel: string, summary?: FileSummary, error?: Error): void {
  listing.listed++;
  if (summary?.binary) listing.binaries++;
  listing.rows.push(fileRow(listing.paths.show(rel), summary, error));
}

/**
 * The walk's first LIST_MAX_ROWS items, batch by batch. Pulled by hand, so that stopping here
 * does not close the walk (it goes on counting); `listing` learns whether more came and counts
 * the files of the batch the head ended in.
 */
function headOf(walk: AsyncGenerator<WalkItem[]>, listing: Listing): AsyncIterable<WalkItem[]> {
  return {
    async *[Symbol.asyncIterator]() {
      let pulled = 0;
      // The walk switches to counting after the last row (WalkControl.rows): the rest is
      // countRest's.
      while (pulled < LIST_MAX_ROWS) {
        const next = await walk.next();
        if (next.done) return;
        const items = next.value;
        const room = LIST_MAX_ROWS - pulled;
        if (items.length <= room) {
          pulled += items.length;
          yield items;
          continue;
        }
        if (room > 0) yield items.slice(0, room);
        listing.more = true;
        for (let j = room; j < items.length; j++) if (items[j]!.kind === "file") listing.extra++;
        return;
      }
    },
  };
}

/**
 * Rows from the backend's own summaries (local disk: counted beside the read, bytes never
 * handed over). The reason when the budget stopped the listing, else null.
 */
async function summarizedRows(
  backend: FileBackend,
  head: AsyncIterable<WalkItem[]>,
  options: WalkOptions,
  listing: Listing,
): Promise<StopReason | null> {
  for await (const items of head) {
    const paths = items.filter((item) => item.kind === "file").map((item) => item.path);
    const summaries = backend.summarizeFiles!(paths, LIST_HEAD_BYTES)[Symbol.iterator]();
    for (const item of items) {
      if (item.kind === "cut") {
        addCut(listing, item.rel, options.maxDepth);
        continue;
      }
      const next = summaries.next();
      const r: { summary?: FileSummary; error?: Error } = next.done
        ? { error: new Error("not summarized") }
        : next.value;
      addFile(listing, item.rel, r.summary, r.error);
      const stop = await options.budget?.breathe();
      if (stop) return stop;
    }
  }
  return null;
}

/** Rows from file heads read in order (remote backends: `readFiles` in batches). */
async function readRows(
  backend: FileBackend,
  head: AsyncIterable<WalkItem[]>,
  options: WalkOptions,
  listing: Listing,
): Promise<StopReason | null> {
  const items = (async function* () {
    for await (const batch of head) yield* batch;
  })();
  for await (
    const { item, data, size, error } of readInOrder(backend, items, {
      skip: (item) => item.kind === "cut",
      headBytes: LIST_HEAD_BYTES,
      batch: LIST_BATCH,
    })
  ) {
    if (item.kind === "cut") {
      addCut(listing, item.rel, options.maxDepth);
      continue;
    }
    addFile(listing, item.rel, data ? summarizeHead(data, size ?? data.length) : undefined, error);
    // Between reads too, not only in the walk: 1,000 head reads over ssh take a while.
    const stop = await options.budget?.breathe();
    if (stop) return stop;
  }
  return null;
}

type Summarized = { summary?: FileSummary; error?: Error };

/** The backend's own summaries of `paths`, made on this thread. */
function summarizeHere(backend: FileBackend, paths: readonly string[]): Summarized[] {
  return [...backend.summarizeFiles!(paths, LIST_HEAD_BYTES)];
}

/** Batch `k` as another thread answered it, the files it left made here; or all made here. */
async function answerOf(backend: FileBackend, run: SummaryRun, k: number, paths: string[]) {
  const answer = await run.answer(k);
  if (!answer) return summarizeHere(backend, paths);
  const left = summarizeHere(backend, paths.filter((_, i) => !answer[i]))[Symbol.iterator]();
  return answer.map((summary): Summarized =>
    summary ? { summary } : left.next().value ?? { error: new Error("not summarized") }
  );
}

/** The head's items, its files handed to `run` in batches as the walk yields them. */
async function postHead(head: AsyncIterable<WalkItem[]>, run: SummaryRun) {
  const items: WalkItem[] = [];
  const batches: string[][] = [];
  let open: string[] = [];
  const post = () => {
    batches.push(open);
    run.post(open);
    open = [];
  };
  for await (const batch of head) {
    for (const item of batch) {
      items.push(item);
      if (item.kind !== "file") continue;
      open.push(item.path);
      if (open.length === OVERLAP_BATCH) post();
    }
  }
  if (open.length > 0) post();
  return { items, batches };
}

/**
 * summarizedRows with the reads overlapped: the head's files go to other threads batch by batch
 * while this thread walks on and counts the rest (countRest, done here before the rows); then it
 * makes the batches no thread took, from the last back, and the rows in order, making here too
 * a batch still being made elsewhere when the rows reach it (never waiting on a slow thread). The same rows,
 * counts and stops as summarizedRows then countRest: a stop while counting keeps every row, a
 * stop among the rows drops the count made after them. The reason when the budget stopped the
 * rows, else null.
 */
async function overlappedRows(
  backend: FileBackend,
  run: SummaryRun,
  walk: { head: AsyncIterable<WalkItem[]>; rest: AsyncGenerator<WalkItem[]>; control: WalkControl },
  options: WalkOptions,
  listing: Listing,
  stats: WalkStats,
): Promise<StopReason | null> {
  const { items, batches } = await postHead(walk.head, run);
  const before = { extra: listing.extra, exact: listing.exact, more: listing.more };
  const stoppedBefore = stats.stopped !== undefined;
  await countRest(walk.rest, walk.control, listing);
  const countStopped = !stoppedBefore && stats.stopped !== undefined;
  const mine: Summarized[][] = [];
  for (let k = batches.length - 1; k >= 0; k--) {
    if (run.claim(k)) mine[k] = summarizeHere(backend, batches[k]!);
  }
  let files = 0;
  let batch: Summarized[] = [];
  for (const item of items) {
    if (item.kind === "cut") {
      addCut(listing, item.rel, options.maxDepth);
      continue;
    }
    const k = Math.floor(files / OVERLAP_BATCH);
    if (files++ % OVERLAP_BATCH === 0) {
      batch = mine[k] ??
        (run.claim(k, true)
          ? summarizeHere(backend, batches[k]!)
          : await answerOf(backend, run, k, batches[k]!));
    }
    const r = batch[(files - 1) % OVERLAP_BATCH] ?? { error: new Error("not summarized") };
    addFile(listing, item.rel, r.summary, r.error);
    const stop = await options.budget?.breathe();
    if (stop && !countStopped) {
      Object.assign(listing, before);
      return stop;
    }
  }
  return null;
}

/**
 * Past the last row only the number matters: the walk counts (unsorted, no items), files it
 * counted early included. Sets `more` when any came after the rows.
 */
async function countRest(
  walk: AsyncGenerator<WalkItem[]>,
  control: WalkControl,
  listing: Listing,
): Promise<void> {
  control.countOnly = true;
  for await (const items of walk) {
    for (const item of items) if (item.kind === "file") listing.extra++;
    if (listing.extra + control.counted >= COUNT_LIMIT) break;
  }
  listing.extra += control.counted;
  if (listing.extra >= COUNT_LIMIT) {
    listing.extra = COUNT_LIMIT;
    listing.exact = false;
  }
  if (listing.extra > 0) listing.more = true;
}

/** Walks and reads: up to LIST_MAX_ROWS rows, then a count of the rest. */
async function gatherListing(
  backend: FileBackend,
  root: string,
  options: WalkOptions,
  stats: WalkStats,
  helper: SummaryHelper | undefined,
): Promise<Listing> {
  const listing: Listing = {
    paths: backend.paths,
    rows: [],
    listed: 0,
    cuts: 0,
    binaries: 0,
    more: false,
    extra: 0,
    exact: true,
  };
  const control: WalkControl = { countOnly: false, counted: 0, rows: LIST_MAX_ROWS };
  const walk = walkBatches(backend, root, options, stats, control);
  const run = backend.summarizeFiles && helper?.backendId === backend.id
    ? helper.openSummaries?.(LIST_HEAD_BYTES) ?? null
    : null;
  try {
    const head = headOf(walk, listing);
    if (run) {
      const parts = { head, rest: walk, control };
      const stop = await overlappedRows(backend, run, parts, options, listing, stats);
      if (stop) {
        stats.stopped = stop;
        listing.more = false;
      }
      return listing;
    }
    const stop = backend.summarizeFiles
      ? await summarizedRows(backend, head, options, listing)
      : await readRows(backend, head, options, listing);
    if (stop) {
      stats.stopped = stop;
      listing.more = false;
    } else await countRest(walk, control, listing);
  } finally {
    run?.stop();
    await walk.return(undefined);
  }
  return listing;
}

/**
 * The listing of a directory; the calls it suggests stay steps, for each adapter to write.
 * `helper` (the local parallel scanner) may read the listed files' heads on other threads: the
 * text is the same with or without it.
 */
export async function listDirectory(
  session: Session,
  location: Location,
  options: WalkOptions,
  pattern: string | undefined,
  helper?: SummaryHelper,
): Promise<Guide> {
  const stats = newWalkStats();
  const shown = displayPath(session, location);
  const listing = await gatherListing(location.backend, location.path, options, stats, helper);
  const { listed, cuts, extra, exact } = listing;
  const rules = describeRules(options, pattern);
  if (listed === 0 && cuts === 0) {
    const unreadable = unreadableNotice(stats);
    return guide`No files to list in ${quotePathAlways(shown)}${
      pattern ? ` matching pattern ${JSON.stringify(pattern)}` : ""
    }: scanned ${plural(stats.filesSeen, "file")} (${rules}).${
      emptyHint(stats, options, {
        path: quotePath(shown),
        ...(pattern ? { pattern } : {}),
        ...(options.maxDepth !== undefined ? { max_depth: options.maxDepth } : {}),
      }, (abs) => displayPath(session, siblingLocation(location, abs)))
    }${unreadable ? `\n\n[${unreadable}]` : ""}`;
  }
  const header =
    `${quotePath(shown)}: ${plural(listed + extra, "file")}${exact ? "" : "+"}${
      cuts > 0 ? `, ${plural(cuts, "directory", "directories")} not entered` : ""
    } (${rules}${listing.binaries > 0 ? `; ${listing.binaries} binary` : ""}). ` +
    "Columns: path, lines, ~tokens.";
  const notices = listNotices(shown, stats, options, {
    more: listing.more,
    exact,
    shown: listed + cuts,
    extra,
  });
  const unreadable = unreadableNotice(stats);
  if (unreadable) notices.push(unreadable);
  return joinGuide(
    [header, ...listing.rows].join("\n"),
    notices.length > 0
      ? joinGuide("\n\n", joinGuides(notices.map((n) => guide`[${n}]`), "\n"))
      : "",
  );
}

/** The sentence on directories the walk could not read (listing and search), or "". */
export function unreadableNotice(
  stats: { unreadable: readonly string[]; unreadableWhy?: readonly string[] },
): string {
  if (stats.unreadable.length === 0) return "";
  const named = stats.unreadable.slice(0, 3).map((dir, i) => {
    const { text, levels } = shortPath(dir);
    const why = [levels, stats.unreadableWhy?.[i]].filter((w) => w).join(": ");
    return `${quotePathAlways(text)}${why ? ` (${why})` : ""}`;
  });
  return `${plural(stats.unreadable.length, "directory", "directories")} could not be read: ${
    named.join(", ")
  }${stats.unreadable.length > 3 ? ", ..." : ""}.`;
}

/** A path cut in its middle past 160 characters, with its depth: a deep one is kilobytes long. */
function shortPath(path: string): { text: string; levels?: string } {
  if (path.length <= 160) return { text: path };
  const levels = path.split(/[\\/]/).filter((p) => p !== "").length;
  return {
    text: `${path.slice(0, 70)}…${path.slice(-70)}`,
    levels: `${levels.toLocaleString("en-US")} levels deep`,
  };
}

export function describeRules(options: WalkOptions, pattern: string | undefined): string {
  const parts = [".gitignore rules applied"];
  parts.push(options.includeHidden ? "hidden files included" : "hidden files skipped");
  if (options.maxDepth !== undefined) parts.push(`max_depth ${options.maxDepth}`);
  if (pattern) parts.push(`pattern ${JSON.stringify(pattern)}`);
  return parts.join("; ");
}

/**
 * Tips after an empty result, each a concrete call: `args` is the call that found nothing (path,
 * content, regex, pattern, ...), varied to include hidden files, name an ignored entry as the
 * path, or drop the pattern. Ignored entries are named with the rule that excluded them; `show`
 * turns an absolute path into the form the agent passes back.
 */
export function emptyHint(
  stats: Pick<
    WalkStats,
    | "filesSeen"
    | "ignored"
    | "hidden"
    | "hiddenIgnoreFiles"
    | "ignoredSamples"
    | "hiddenSamples"
    | "symlinks"
    | "symlinkSamples"
    | "dirsPassedOver"
  >,
  options: WalkOptions,
  args: ToolArgs["view"],
  show: (abs: string) => string,
): Guide {
  const tips: Guide[] = [];
  const name = (e: SkippedEntry) => JSON.stringify(`${show(e.path)}${e.isDir ? "/" : ""}`);
  const more = (shown: number, all: number) => (all > shown ? ", …" : "");
  if (stats.ignored > 0) {
    const named = stats.ignoredSamples.map((e) => {
      const r = e.reason;
      return r
        ? `${name(e)} (${r.source ? show(r.source) : "rule"}:${r.line} \`${r.pattern}\`)`
        : name(e);
    });
    // The call that reaches one: a directory if one was ignored (the usual question).
    const first = stats.ignoredSamples.find((e) => e.isDir) ?? stats.ignoredSamples[0];
    const searching = "content" in args;
    tips.push(
      guide`${plural(stats.ignored, "entry", "entries")} gitignored, not ${
        searching ? "searched" : "listed"
      }: ${named.join(", ")}${more(named.length, stats.ignored)}${
        first
          ? guide`; an ignored ${first.isDir ? "directory" : "file"} is ${
            searching ? "searched" : first.isDir ? "listed" : "shown"
          } when named as the path: ${
            step("view", { ...withoutPattern(args, first.isDir), path: show(first.path) })
          }`
          : ""
      }`,
    );
  }
  const hidden = stats.hidden - stats.hiddenIgnoreFiles;
  if (hidden > 0 && !options.includeHidden) {
    // .gitignore files alone are not worth a retry: their rules were applied, as the text says.
    const named = stats.hiddenSamples.map(name);
    tips.push(
      guide`${plural(hidden, "hidden entry", "hidden entries")} skipped (${named.join(", ")}${
        more(named.length, hidden)
      }): ${step("view", { ...args, include_hidden: true })} includes ${
        hidden === 1 ? "it" : "them"
      }`,
    );
  }
  if (stats.symlinks > 0) tips.push(symlinkTip(stats, args, show));
  // Files the pattern rejected, or directories it could not reach into: a broader one may help.
  if ((stats.filesSeen > 0 || stats.dirsPassedOver > 0) && options.filter) {
    const { pattern: _pattern, ...rest } = args;
    tips.push(guide`try a broader pattern or none: ${step("view", rest)}`);
  }
  // Sentences of their own: they follow "...(rules)." in the empty-result text.
  return joinGuide(...tips.map(asSentence));
}

/** A tip as a sentence of its own: a space before, a capital first letter, a full stop after. */
function asSentence(tip: Guide): Guide {
  const [first = "", ...rest] = tip.text;
  const text = [`${first.charAt(0).toUpperCase()}${first.slice(1)}`, ...rest];
  return joinGuide(" ", { text, next: tip.next }, ".");
}

/**
 * The tip on skipped symlinks: links are not followed (one could leave the tree or loop, as
 * ripgrep reasons), and the call on one link reads or searches what it points to.
 */
function symlinkTip(
  stats: Pick<WalkStats, "symlinks" | "symlinkSamples">,
  args: ToolArgs["view"],
  show: (abs: string) => string,
): Guide {
  const named = stats.symlinkSamples.map((e) => JSON.stringify(show(e.path)));
  const first = stats.symlinkSamples[0];
  const searching = "content" in args;
  return guide`${plural(stats.symlinks, "symlink")} skipped (${named.join(", ")}${
    stats.symlinks > named.length ? ", …" : ""
  }): links are not followed in ${searching ? "a search" : "a listing"}${
    first
      ? guide`; naming one as the path ${searching ? "searches" : "views"} its target: ${
        step("view", { ...withoutPattern(args, false), path: show(first.path) })
      }`
      : ""
  }`;
}

/** A file named as the path is read whatever the pattern says; a directory keeps the pattern. */
function withoutPattern(args: ToolArgs["view"], keep: boolean): ToolArgs["view"] {
  if (keep) return args;
  const { pattern: _pattern, max_depth: _depth, ...rest } = args;
  return rest;
}
