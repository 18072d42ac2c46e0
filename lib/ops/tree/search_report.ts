// What a content search says: the tally of files searched, skipped and matched, each matching
// file's block of `N:hh|content` lines (recorded as shown, so edit tools take the ids as is), and
// the result text with its header and notices, its suggested calls kept as steps (a guide) for
// each adapter to write. The search itself is lib/ops/tree/search.ts.

import { fold8, hashHex } from "../../core/edit/line_id.ts";
import { linePrint } from "../../core/edit/shown_lines.ts";
import type { FileMatches, FileScan, ShownLine } from "../../core/search/line_matcher.ts";
import { excerptWindow } from "../../core/search/line_window.ts";
import type { SearchPattern } from "../../core/search/search_pattern.ts";
import {
  type Guide,
  guide,
  type GuidePart,
  joinGuide,
  joinGuides,
  type NextStep,
  step,
  type ToolArgs,
} from "../../core/next_step.ts";
import { plural } from "../../core/plural.ts";
import { quotePath, quotePathAlways } from "../../core/path/path_quote.ts";
import { searchBigFileHint } from "../big_file_hints.ts";
import type { Budget, StopReason } from "../budget.ts";
import { describeRules, emptyHint, unreadableNotice } from "./list_dir.ts";
import type { Location, Locations } from "../location.ts";
import { formatSize } from "../../core/byte_size.ts";
import { fileKey, type Session } from "../session.ts";
import { displayPath } from "../view_args.ts";
import type { WalkOptions } from "./walk.ts";
import type { SkippedEntry, WalkStats } from "./notices.ts";
import { type ProbedDir, probeSkippedDirs } from "../ignored_probe.ts";
import type { FileBackend } from "../ports/file_backend.ts";

/** Printed lines (matches plus context) before the search stops. */
export const SEARCH_MAX_LINES = 400;
/** Matching lines printed per file before moving on to the next file. */
export const SEARCH_MAX_PER_FILE = 40;
/** Characters of one line printed in search output. */
export const SEARCH_MAX_LINE_CHARS = 400;

/** Counts and output of one search, file by file in walk order. */
export class SearchTally {
  searched = 0;
  binaries = 0;
  unreadable = 0;
  readonly tooLarge: string[] = [];
  /** The files the call stopped inside (their matches, if any, are not shown). */
  readonly cutShort: string[] = [];
  matchedFiles = 0;
  matchedLines = 0;
  printed = 0;
  readonly blocks: Guide[] = [];

  constructor(private readonly session: Session) {}

  /** Lines still to print before the output cap. */
  get room(): number {
    return SEARCH_MAX_LINES - this.printed;
  }

  /** Adds one file's answer; true once the output cap is reached. */
  add(location: Location, scan: FileScan): boolean {
    this.searched++;
    if (scan === "binary") this.binaries++;
    else if (typeof scan === "object") return this.found(location, scan);
    return false;
  }

  /** A file searched and found to hold no match (what add(location, "miss") counts). */
  missed(): void {
    this.searched++;
  }

  /** A file the call stopped inside, past its deadline or cancelled: searched in part only. */
  interrupted(location: Location): void {
    this.cutShort.push(displayPath(this.session, location));
  }

  /** A file that could not be searched: too large (named in a notice) or unreadable. */
  failed(location: Location, error: unknown): null {
    this.searched++;
    if ((error as { code?: string } | undefined)?.code === "FILE_TOO_LARGE") {
      this.tooLarge.push(displayPath(this.session, location));
    } else this.unreadable++;
    return null;
  }

  private found(location: Location, found: FileMatches): boolean {
    this.matchedFiles++;
    this.matchedLines += found.count;
    const block = renderFileMatches(this.session, location, found, this.room);
    this.printed += block.printed;
    this.blocks.push(block.text);
    return this.printed >= SEARCH_MAX_LINES;
  }
}

/** One line as printed: `N:hh|content`, a long line cut around its match. */
function printLine(line: ShownLine): { text: string; hash: number; print: number } {
  if (!line.long) {
    const print = linePrint(line.text);
    const hash = fold8(print);
    return { text: `${line.n}:${hashHex(hash)}|${line.text}`, hash, print };
  }
  // The id is the whole line's, so it works in edits as is.
  const { offset, length, print, from, to } = line.long;
  const cut = excerptWindow({ text: line.text, offset, length }, from, to, SEARCH_MAX_LINE_CHARS);
  const hash = fold8(print);
  return { text: `${line.n}:${hashHex(hash)}|${cut}`, hash, print };
}

function renderFileMatches(
  session: Session,
  location: Location,
  found: FileMatches,
  budget: number,
): { text: Guide; printed: number } {
  const key = fileKey(location);
  const shown = displayPath(session, location);
  const out: string[] = [];
  let printed = 0;
  let last = 0;
  // A run of consecutive lines, recorded as shown once printed (batch_edit checks against it).
  let run = { from: 0, hashes: [] as number[], prints: [] as number[] };
  const record = () => {
    if (run.hashes.length > 0) {
      session.shown.recordWithPrints(key, run.from, run.hashes, run.prints);
    }
  };
  for (const line of found.shown) {
    if (printed >= budget) break;
    if (last !== 0 && line.n !== last + 1) {
      record();
      out.push("--");
    }
    if (last === 0 || line.n !== last + 1) run = { from: line.n, hashes: [], prints: [] };
    const { text, hash, print } = printLine(line);
    out.push(text);
    run.hashes.push(hash);
    run.prints.push(print);
    printed++;
    last = line.n;
  }
  record();
  const kept = found.kept;
  const label = kept.length === 1 ? `line ${kept[0]}` : `lines ${kept.join(", ")}`;
  const rest = found.count - kept.length;
  const notes: GuidePart[] = [];
  if (rest > 0) {
    const next = found.next;
    notes.push(
      guide`[${plural(rest, "more matching line")} in this file, from line ${next}: ${
        step("view", {
          path: quotePath(shown),
          start: next,
          end: Math.min(found.lineCount, next + 99),
        })
      }]`,
    );
  } else if (printed < found.shown.length || found.truncated) {
    notes.push(`[cut at the output cap after line ${last}]`);
  }
  return { text: joinGuides([`${quotePath(shown)} (${label})`, ...out, ...notes], "\n"), printed };
}

/** Where and how a search ran, for its result text. */
interface SearchScope {
  roots: readonly { location: Location }[];
  search: SearchPattern;
  options: WalkOptions & { pattern?: string | undefined };
  stats: WalkStats;
  limit: number;
  budget: Budget;
  capped: boolean;
  stopped: StopReason | null;
}

/**
 * The result: header and file blocks, or the no-match sentence; then the notices. The calls it
 * suggests stay steps, for each adapter to write in its own syntax.
 */
export async function describeSearch(
  session: Session,
  locations: Locations,
  tally: SearchTally,
  scope: SearchScope,
): Promise<Guide> {
  const { roots, search, capped, stopped } = scope;
  const where = roots.map((r) => quotePathAlways(displayPath(session, r.location))).join(", ");
  const skipped = [
    tally.binaries > 0 ? `${plural(tally.binaries, "binary file")} skipped` : "",
    tally.unreadable > 0 ? `${plural(tally.unreadable, "unreadable file")} skipped` : "",
    tally.tooLarge.length > 0
      ? `${plural(tally.tooLarge.length, "file")} over ${describeLimit(scope.limit)} skipped`
      : "",
  ].filter(Boolean).join(", ");
  const notices = searchNotices(session, tally, scope);
  if (tally.matchedFiles === 0) {
    // A stopped search took its time already: no look into what it skipped.
    const probed = scope.stopped ? [] : await probeIgnoredDirs(scope);
    return joinGuide(
      noMatches(session, locations, tally, scope, where, skipped, probed),
      bracketed(notices),
    );
  }
  const partial = capped || stopped;
  const header = `${partial ? "At least " : ""}${plural(tally.matchedLines, "matching line")} in ${
    plural(tally.matchedFiles, "file")
  } for ${search.description} in ${where} (searched ${plural(tally.searched, "file")}${
    capped ? " before the output cap" : stopped ? " before it stopped" : ""
  }${skipped ? `; ${skipped}` : ""}). Lines are N:hh|content; the ids work in edit tools as is.`;
  const all = capped
    ? [
      joinGuide(
        `Output capped at ${SEARCH_MAX_LINES} lines; the search stopped there. Narrow it: a `,
        "deeper path, a pattern such as ",
        narrowStep(session, scope),
        ", or more specific content.",
      ),
      ...notices,
    ]
    : notices;
  return joinGuide(header, "\n\n", joinGuides(tally.blocks, "\n\n"), bracketed(all));
}

/** Notices after a blank line, one `[notice]` a line; nothing when there are none. */
function bracketed(notices: readonly GuidePart[]): Guide {
  if (notices.length === 0) return joinGuide();
  return joinGuide("\n\n", joinGuides(notices.map((n) => guide`[${n}]`), "\n"));
}

function rootsArg(session: Session, scope: SearchScope): string {
  return scope.roots.map((r) => displayPath(session, r.location)).join("|");
}

function narrowStep(session: Session, scope: SearchScope): NextStep {
  return step("view", {
    path: rootsArg(session, scope),
    content: scope.search.source,
    pattern: "*.ts|!*_test.ts",
  });
}

/** Files over the size limit, a stop before the end, directories that could not be read. */
function searchNotices(
  session: Session,
  tally: SearchTally,
  scope: SearchScope,
): GuidePart[] {
  const { search, limit, stopped } = scope;
  const notices: GuidePart[] = [];
  const tooLarge = tally.tooLarge;
  if (tooLarge.length > 0) {
    notices.push(
      guide`Not searched, over the ${describeLimit(limit)} search limit: ${
        tooLarge.slice(0, 5).map(quotePathAlways).join(", ")
      }${tooLarge.length > 5 ? ` and ${tooLarge.length - 5} more` : ""}. ${
        // The suggested call runs in the session's directory (or on the file's ssh host).
        searchBigFileHint(
          tooLarge[0]!,
          search.source,
          search.regex,
          session.cwd.host.shell,
        )}; the limit is the server's --max-file-bytes.`,
    );
  }
  if (stopped) {
    const cut = tally.cutShort;
    const inside = cut.length === 0
      ? ""
      : ` It stopped inside ${cut.slice(0, 3).map(quotePathAlways).join(", ")}${
        cut.length > 3 ? ` and ${cut.length - 3} more` : ""
      } (not searched to the end; a file ` +
        "with very long lines takes long to match).";
    notices.push(
      guide`${scope.budget.describe(stopped)}: the search stopped after ${
        plural(tally.searched, "file")
      }, so the results are partial.${inside} Narrow it: a deeper path, a pattern such as ${
        narrowStep(session, scope)
      }, or more specific content.`,
    );
  }
  const unreadableDirs = unreadableNotice(scope.stats);
  if (unreadableDirs) notices.push(unreadableDirs);
  return notices;
}

/** The ignored directories (hidden or not) the search skipped, with what they hold. */
async function probeIgnoredDirs(scope: SearchScope): Promise<ProbedDir[]> {
  const ignored = scope.stats.skippedDirs.filter((d) => d.reason !== undefined);
  if (ignored.length === 0) return [];
  const root = (abs: string) =>
    scope.roots.find((r) => abs.startsWith(r.location.path)) ?? scope.roots[0]!;
  const byBackend = new Map<FileBackend, SkippedEntry[]>();
  for (const d of ignored) {
    const backend = root(d.path).location.backend;
    byBackend.set(backend, [...(byBackend.get(backend) ?? []), d]);
  }
  const out: ProbedDir[] = [];
  for (const [backend, dirs] of byBackend) out.push(...await probeSkippedDirs(backend, dirs));
  return out.sort((a, b) => b.textFiles - a.textFiles);
}

/**
 * The tip on ignored directories a search that found nothing skipped: those that can hold the
 * text first (most text files first), with the rule that skipped each and the call that searches
 * the first; binary-only ones after. Undefined when none was skipped.
 */
function ignoredDirsTip(
  probed: readonly ProbedDir[],
  args: ToolArgs["view"],
  show: (abs: string) => string,
): Guide | undefined {
  if (probed.length === 0) return undefined;
  const name = (p: ProbedDir) => {
    const r = p.entry.reason!;
    const rule = `${r.source ? show(r.source) : "rule"}:${r.line} \`${r.pattern}\``;
    const count = `${p.more ? "over " : ""}${plural(p.files, "file")}${
      p.textFiles > 0 && p.textFiles < p.files ? `, ${p.textFiles} text` : ""
    }`;
    return `${JSON.stringify(`${show(p.entry.path)}/`)} (${
      p.entry.hidden ? "hidden, " : ""
    }${rule}; ${count})`;
  };
  const text = probed.filter((p) => p.textFiles > 0).slice(0, 3);
  const binary = probed.filter((p) => p.textFiles === 0 && p.files > 0).slice(0, 3);
  const parts: (string | Guide)[] = [];
  if (text.length > 0) {
    parts.push(
      guide` Ignored directories not searched that can hold the text: ${
        text.map(name).join(", ")
      }; a directory named as the path is searched whatever the ignore rules: ${
        step("view", { ...args, path: show(text[0]!.entry.path) })
      }.`,
    );
  }
  if (binary.length > 0) {
    parts.push(
      ` ${
        text.length > 0
          ? "Also skipped, binary files only"
          : "Ignored directories skipped hold binary files only"
      }: ${binary.map(name).join(", ")}.`,
    );
  }
  return parts.length === 0 ? undefined : joinGuides(parts, "");
}

function noMatches(
  session: Session,
  locations: Locations,
  tally: SearchTally,
  scope: SearchScope,
  where: string,
  skipped: string,
  probed: readonly ProbedDir[],
): Guide {
  const { roots, search, options, stopped } = scope;
  const path = rootsArg(session, scope);
  const rules = describeRules(options, options.pattern);
  // A stopped search is partial first of all: "No matches" alone reads as an answer.
  const why = stopped ? scope.budget.describe(stopped).replace(/^The call/, "the search") : "";
  const head = !stopped
    ? `No matches for ${search.description} in ${where}: searched ${plural(tally.searched, "file")}`
    : tally.searched === 0
    ? `Partial: ${why} before any file was searched, so whether ${search.description} is in ${where} is not known`
    : `Partial: ${why} after ${
      plural(tally.searched, "file")
    }, and none of them matches ${search.description} in ${where}`;
  const args: ToolArgs["view"] = {
    path,
    content: search.source,
    ...(search.regex ? { regex: true } : {}),
    ...(options.pattern ? { pattern: options.pattern } : {}),
  };
  const show = (abs: string) => {
    // Named from the root it was found under (several roots may sit on several hosts).
    const root = roots.find((r) => abs.startsWith(r.location.path)) ?? roots[0]!;
    return displayPath(session, locations.sibling(root.location, abs));
  };
  const dirsTip = ignoredDirsTip(probed, args, show);
  return joinGuide(
    `${head} (${rules}${skipped ? `; ${skipped}` : ""}).`,
    dirsTip ?? "",
    emptyHint(dirsTip ? withoutProbed(scope.stats, probed) : scope.stats, options, args, show),
    alternationHint(search, path, tally.searched),
    // Ignoring case cannot find anything when no file was searched.
    search.regex || tally.searched === 0
      ? ""
      : guide` Literal search is case-sensitive; to ignore case: ${
        step("view", { path, content: `(?i)${escapeForRegex(search.source)}`, regex: true })
      }.`,
  );
}

/**
 * A literal search for `a|b` that found nothing: the `|` was most likely meant as alternation,
 * which only a regex search reads so (the literal text `a|b` is rare in files).
 */
function alternationHint(search: SearchPattern, path: string, searched: number): Guide | string {
  if (search.regex || searched === 0 || !/[^|]\|[^|]/.test(search.source)) return "";
  return guide` The literal text ${
    JSON.stringify(search.source)
  } was searched; its | looks like alternation (this or that), which needs "regex": true: ${
    step("view", {
      path,
      content: search.source.split("|").map(escapeForRegex).join("|"),
      regex: true,
    })
  }.`;
}

/**
 * The walk's counts without the directories the ignored-directories tip names: the hidden tip
 * would offer `include_hidden` for `.venv`, which its ignore rule still skips.
 */
function withoutProbed(stats: WalkStats, probed: readonly ProbedDir[]): WalkStats {
  const named = new Set(probed.map((p) => p.entry.path));
  const ignoredSamples = stats.ignoredSamples.filter((e) => !named.has(e.path));
  const hiddenSamples = stats.hiddenSamples.filter((e) => !named.has(e.path));
  const namedHidden = probed.filter((p) => p.entry.hidden).length;
  return {
    ...stats,
    ignoredSamples,
    ignored: ignoredSamples.length === 0
      ? 0
      : Math.max(0, stats.ignored - (named.size - namedHidden)),
    hiddenSamples,
    hidden: hiddenSamples.length === 0
      ? stats.hiddenIgnoreFiles
      : Math.max(0, stats.hidden - namedHidden),
  };
}

/** A byte limit as the notices say it: "16 MiB" for whole MiB, else "1.5 MB"-style. */
function describeLimit(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MiB` : formatSize(bytes);
}

function escapeForRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
