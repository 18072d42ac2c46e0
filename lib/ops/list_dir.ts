// Listing a directory for view: gitignore-aware, recursive, one `path<TAB>N lines<TAB>~T tokens`
// row per file so an agent can budget its reads. Lines are counted on raw bytes; output is capped
// with a notice saying how to narrow; an empty result is a sentence, never an empty string.
// A path with a tab, newline, control character or bytes that are not UTF-8 is quoted
// (core/path/path_quote.ts), so every row is one file and its path works in any tool.

import { looksBinary } from "../core/text/text_file.ts";
import { countLines, estimateTokens, textBytes } from "../core/text/token_estimate.ts";
import { type Location, siblingLocation } from "./location.ts";
import type { Session } from "./session.ts";
import { displayPath } from "./view_args.ts";
import {
  newWalkStats,
  readInOrder,
  type SkippedEntry,
  walkBatches,
  type WalkControl,
  type WalkItem,
  type WalkOptions,
  type WalkStats,
} from "./walk.ts";
import { plural } from "../core/plural.ts";
import { quotePath, quotePathAlways } from "../core/path/path_quote.ts";
import { step, type StepSyntax, type ToolArgs } from "../core/next_step.ts";

/** Rows listed before the notice; the walk goes on only to count. */
export const LIST_MAX_ROWS = 1000;
/** Files counted after the cap before giving up on an exact total. */
const COUNT_LIMIT = 200_000;
/**
 * Bytes read of each listed file: its lines are counted exactly up to this size and estimated
 * from this head beyond it; binary files are told from their first 8 KiB. A 3 GB file costs a
 * 256 KiB read, and a batch of 64 files at most 16 MiB.
 */
export const LIST_HEAD_BYTES = 256 * 1024;
const LIST_BATCH = 64;

/** What a listing says after its rows: entries left out, or a stop before the end. */
function listNotices(
  session: Session,
  shownPath: string,
  stats: WalkStats,
  options: WalkOptions,
  counts: { more: boolean; exact: boolean; shown: number; extra: number },
): string[] {
  const notices: string[] = [];
  if (counts.more) {
    notices.push(
      `Listed the first ${plural(counts.shown, "entry", "entries")}; ${
        counts.exact ? "" : "more than "
      }${plural(counts.extra, "more file")} not shown. Narrow it: ${
        session.steps(step("view", { path: quotePath(shownPath), max_depth: 2 }))
      }, a subdirectory, or a pattern such as ${
        session.steps(step("view", { path: quotePath(shownPath), pattern: "*.ts" }))
      }.`,
    );
  }
  if (stats.stopped && options.budget) {
    notices.push(
      `${options.budget.describe(stats.stopped)}: the listing stopped early and is partial. ` +
        `Narrow it: ${
          session.steps(step("view", { path: quotePath(shownPath), max_depth: 2 }))
        } or a subdirectory.`,
    );
  }
  return notices;
}

/** One file's row: path, lines, ~tokens (scaled from a head when only that was read). */
function fileRow(
  rel: string,
  data: Uint8Array | undefined,
  size: number | undefined,
  error: Error | undefined,
): { row: string; binary?: true } {
  if (error || !data) {
    return { row: `${quotePath(rel)}\tunreadable: ${error?.message ?? "no data"}` };
  }
  if (looksBinary(data)) {
    return { row: `${quotePath(rel)}\tbinary\t${formatBytes(size ?? data.length)}`, binary: true };
  }
  if (size !== undefined && size > data.length && data.length > 0) {
    // Only the head was read: scale its counts to the whole size and say so.
    const scale = size / data.length;
    return {
      row: `${quotePath(rel)}\t~${
        plural(Math.round(countLines(data) * scale), "line")
      } (estimated)\t~${plural(estimateTokens(Math.round(textBytes(data) * scale)), "token")}`,
    };
  }
  return {
    row: `${quotePath(rel)}\t${plural(countLines(data), "line")}\t~${
      plural(estimateTokens(textBytes(data)), "token")
    }`,
  };
}

export async function listDirectory(
  session: Session,
  location: Location,
  options: WalkOptions,
  pattern: string | undefined,
): Promise<string> {
  const backend = location.backend;
  const { show, sep } = backend.paths;
  const stats = newWalkStats();
  const shown = displayPath(session, location);
  const rows: string[] = [];
  let listed = 0;
  let cuts = 0;
  let binaries = 0;
  let extra = 0;
  let exact = true;

  const control: WalkControl = { countOnly: false, counted: 0 };
  const walk = walkBatches(backend, location.path, options, stats, control);
  // The first LIST_MAX_ROWS entries are read (for line counts); the rest only counted. Pulled
  // by hand so that stopping the head does not close the walk.
  let pulled = 0;
  let more = false;
  const head: AsyncIterable<WalkItem> = {
    async *[Symbol.asyncIterator]() {
      while (true) {
        const next = await walk.next();
        if (next.done) return;
        const items = next.value;
        for (let i = 0; i < items.length; i++) {
          if (pulled >= LIST_MAX_ROWS) {
            more = true;
            for (let j = i; j < items.length && extra < COUNT_LIMIT; j++) {
              if (items[j]!.kind === "file") extra++;
            }
            if (extra >= COUNT_LIMIT) exact = false;
            return;
          }
          pulled++;
          yield items[i]!;
        }
      }
    },
  };
  for await (
    const { item, data, size, error } of readInOrder(backend, head, {
      skip: (item) => item.kind === "cut",
      headBytes: LIST_HEAD_BYTES,
      batch: LIST_BATCH,
    })
  ) {
    if (item.kind === "cut") {
      cuts++;
      rows.push(
        `${
          quotePath(`${show(item.rel)}${sep}`)
        }\tdirectory, not entered (max_depth ${options.maxDepth})`,
      );
      continue;
    }
    listed++;
    const { row, binary } = fileRow(show(item.rel), data, size, error);
    if (binary) binaries++;
    rows.push(row);
    // Between reads too, not only in the walk: 1,000 head reads over ssh take a while.
    if (options.budget) {
      const stop = await options.budget.breathe();
      if (stop) {
        stats.stopped = stop;
        more = false;
        break;
      }
    }
  }
  if (more && !stats.stopped && exact) {
    // Past the last row only the number matters: the walk counts (unsorted, no items).
    control.countOnly = true;
    for await (const items of walk) {
      for (const item of items) if (item.kind === "file") extra++;
      if (extra + control.counted >= COUNT_LIMIT) break;
    }
    extra += control.counted;
    if (extra >= COUNT_LIMIT) {
      extra = COUNT_LIMIT;
      exact = false;
    }
  }
  await walk.return(undefined);

  const rules = describeRules(options, pattern);
  if (listed === 0 && cuts === 0) {
    return `No files to list in ${quotePathAlways(shown)}${
      pattern ? ` matching pattern ${JSON.stringify(pattern)}` : ""
    }: scanned ${plural(stats.filesSeen, "file")} (${rules}).` +
      emptyHint(session.steps, stats, options, {
        path: quotePath(shown),
        ...(pattern ? { pattern } : {}),
        ...(options.maxDepth !== undefined ? { max_depth: options.maxDepth } : {}),
      }, (abs) => displayPath(session, siblingLocation(location, abs)));
  }
  const total = listed + extra;
  const header = `${quotePath(shown)}: ${plural(total, "file")}${exact ? "" : "+"}${
    cuts > 0 ? `, ${plural(cuts, "directory", "directories")} not entered` : ""
  } (${rules}${binaries > 0 ? `; ${binaries} binary` : ""}). Columns: path, lines, ~tokens.`;
  const notices = listNotices(session, shown, stats, options, {
    more,
    exact,
    shown: listed + cuts,
    extra,
  });
  const unreadable = unreadableNotice(stats);
  if (unreadable) notices.push(unreadable);
  return [header, ...rows].join("\n") +
    (notices.length > 0 ? `\n\n${notices.map((n) => `[${n}]`).join("\n")}` : "");
}

/** The sentence on directories the walk could not read (listing and search), or "". */
export function unreadableNotice(stats: { unreadable: readonly string[] }): string {
  if (stats.unreadable.length === 0) return "";
  return `${plural(stats.unreadable.length, "directory", "directories")} could not be read: ${
    stats.unreadable.slice(0, 3).map(quotePathAlways).join(", ")
  }${stats.unreadable.length > 3 ? ", ..." : ""}.`;
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
  steps: StepSyntax,
  stats: Pick<
    WalkStats,
    "filesSeen" | "ignored" | "hidden" | "hiddenIgnoreFiles" | "ignoredSamples" | "hiddenSamples"
  >,
  options: WalkOptions,
  args: ToolArgs["view"],
  show: (abs: string) => string,
): string {
  const tips: string[] = [];
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
      `${plural(stats.ignored, "entry", "entries")} gitignored, not ${
        searching ? "searched" : "listed"
      }: ${named.join(", ")}${more(named.length, stats.ignored)}` +
        (first
          ? `; an ignored ${first.isDir ? "directory" : "file"} is ${
            searching ? "searched" : first.isDir ? "listed" : "shown"
          } when named as the path: ${
            steps(step("view", { ...withoutPattern(args, first.isDir), path: show(first.path) }))
          }`
          : ""),
    );
  }
  const hidden = stats.hidden - stats.hiddenIgnoreFiles;
  if (hidden > 0 && !options.includeHidden) {
    // .gitignore files alone are not worth a retry: their rules were applied, as the text says.
    const named = stats.hiddenSamples.map(name);
    tips.push(
      `${plural(hidden, "hidden entry", "hidden entries")} skipped (${named.join(", ")}${
        more(named.length, hidden)
      }): ${steps(step("view", { ...args, include_hidden: true }))} includes ${
        hidden === 1 ? "it" : "them"
      }`,
    );
  }
  if (stats.filesSeen > 0 && options.filter) {
    const { pattern: _pattern, ...rest } = args;
    tips.push(`try a broader pattern or none: ${steps(step("view", rest))}`);
  }
  if (tips.length === 0) return "";
  // Sentences of their own: they follow "...(rules)." in the empty-result text.
  return tips.map((t) => ` ${t[0]!.toUpperCase()}${t.slice(1)}.`).join("");
}

/** A file named as the path is read whatever the pattern says; a directory keeps the pattern. */
function withoutPattern(args: ToolArgs["view"], keep: boolean): ToolArgs["view"] {
  if (keep) return args;
  const { pattern: _pattern, max_depth: _depth, ...rest } = args;
  return rest;
}

function formatBytes(n: number): string {
  if (n < 1024) return plural(n, "byte");
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(1)} GB`;
}
