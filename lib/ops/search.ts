// Content search for view: walks one or more roots with the same rules as listings, prefilters
// each whole file buffer (no decoding, no per-line work for files without a match), and prints
// matches grouped by file as `N:hh|content` so edit tools can take the ids directly. Files are
// streamed in path order; output is capped with a notice saying how to narrow.

import { formatLineId, hashLine, renderLine } from "../core/line_id.ts";
import { linePrint } from "../core/shown_lines.ts";
import type { SearchPattern } from "../core/search_pattern.ts";
import { decodeText, looksBinary } from "../core/text_file.ts";
import type { FileBackend } from "./file_backend.ts";
import type { Location, Locations } from "./location.ts";
import { describeRules, emptyHint } from "./list_dir.ts";
import { fileKey, type Session } from "./session.ts";
import { displayPath, plural } from "./view_args.ts";
import { newWalkStats, readInOrder, walkFiles, type WalkOptions } from "./walk.ts";

/** Printed lines (matches plus context) before the search stops. */
export const SEARCH_MAX_LINES = 400;
/** Matching lines printed per file before moving on to the next file. */
export const SEARCH_MAX_PER_FILE = 40;
/** Characters of one line printed in search output. */
export const SEARCH_MAX_LINE_CHARS = 400;

export interface SearchRoot {
  location: Location;
  kind: "file" | "dir";
}

export interface SearchOptions extends WalkOptions {
  context: number;
  pattern?: string;
}

const fallbackDecoder = new TextDecoder();

/** The lines of a file when it may contain a match; null when it surely does not or is binary. */
export function matchFile(
  data: Uint8Array,
  search: SearchPattern,
): { lines: string[]; matches: number[] } | "binary" | null {
  const utf16 = data.length >= 2 &&
    ((data[0] === 0xff && data[1] === 0xfe) || (data[0] === 0xfe && data[1] === 0xff));
  if (!utf16) {
    const byBytes = search.mayMatchBytes(data);
    if (byBytes === false) return null;
    if (looksBinary(data)) return "binary";
    if (byBytes === null && !search.mayMatchText(fallbackDecoder.decode(data))) return null;
  }
  const decoded = decodeText(data);
  if (decoded.kind === "binary") return "binary";
  const lines = decoded.doc.lines;
  const matches: number[] = [];
  for (let i = 0; i < lines.length; i++) if (search.matchesLine(lines[i]!)) matches.push(i + 1);
  return matches.length > 0 ? { lines, matches } : null;
}

export async function searchRoots(
  locations: Locations,
  session: Session,
  roots: readonly SearchRoot[],
  search: SearchPattern,
  options: SearchOptions,
): Promise<string> {
  const stats = newWalkStats();
  let searched = 0;
  let binaries = 0;
  let unreadable = 0;
  let matchedFiles = 0;
  let matchedLines = 0;
  let printed = 0;
  let capped = false;
  const blocks: string[] = [];

  for (const root of roots) {
    if (capped) break;
    const backend: FileBackend = root.location.backend;
    const files = root.kind === "file"
      ? singleFile(root.location.path)
      : walkFiles(backend, root.location.path, options, stats);
    for await (const { item, data } of readInOrder(backend, fileItems(files))) {
      searched++;
      if (!data) {
        unreadable++;
        continue;
      }
      const found = matchFile(data, search);
      if (found === null) continue;
      if (found === "binary") {
        binaries++;
        continue;
      }
      const location = locations.sibling(root.location, item.path);
      matchedFiles++;
      matchedLines += found.matches.length;
      const block = renderFileMatches(
        session,
        location,
        found.lines,
        found.matches,
        options.context,
        SEARCH_MAX_LINES - printed,
      );
      printed += block.printed;
      blocks.push(block.text);
      if (printed >= SEARCH_MAX_LINES) {
        capped = true;
        break;
      }
    }
  }

  const where = roots.map((r) => JSON.stringify(displayPath(session, r.location))).join(", ");
  const rules = describeRules(options, options.pattern);
  const skipped = [
    binaries > 0 ? `${plural(binaries, "binary file")} skipped` : "",
    unreadable > 0 ? `${plural(unreadable, "unreadable file")} skipped` : "",
  ].filter(Boolean).join(", ");
  if (matchedFiles === 0) {
    return `No matches for ${search.description} in ${where}: searched ${
      plural(searched, "file")
    } (${rules}${skipped ? `; ${skipped}` : ""}).` +
      emptyHint(stats, options, displayPath(session, roots[0]!.location)) +
      (search.regex ? "" : ' Literal search is case-sensitive; for other cases use {"regex":true,' +
        ` "content":"(?i)${escapeForRegex(search.source)}"}.`);
  }
  const header = `${capped ? "At least " : ""}${plural(matchedLines, "matching line")} in ${
    plural(matchedFiles, "file")
  } for ${search.description} in ${where} (searched ${plural(searched, "file")}${
    capped ? " before the output cap" : ""
  }${skipped ? `; ${skipped}` : ""}). Lines are N:hh|content; the ids work in edit tools as is.`;
  const notice = capped
    ? `\n\n[Output capped at ${SEARCH_MAX_LINES} lines; the search stopped there. Narrow it: a ` +
      `deeper path, a pattern such as {"pattern":"*.ts|!*_test.ts"}, or more specific content.]`
    : "";
  return `${header}\n\n${blocks.join("\n\n")}${notice}`;
}

async function* singleFile(path: string) {
  yield { kind: "file" as const, path, rel: path };
}

async function* fileItems<T extends { kind: string; path: string }>(items: AsyncIterable<T>) {
  for await (const item of items) if (item.kind === "file") yield item;
}

function renderFileMatches(
  session: Session,
  location: Location,
  lines: readonly string[],
  matches: readonly number[],
  context: number,
  budget: number,
): { text: string; printed: number } {
  const key = fileKey(location);
  const shown = displayPath(session, location);
  const kept = matches.slice(0, SEARCH_MAX_PER_FILE);
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
      out.push(
        content.length > SEARCH_MAX_LINE_CHARS
          ? `${formatLineId(n, content)}|${content.slice(0, SEARCH_MAX_LINE_CHARS)} … [line cut: ${
            plural(content.length, "character")
          }]`
          : renderLine(n, content),
      );
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
      `[${plural(rest, "more matching line")} in this file, from line ${next}: view ${
        JSON.stringify({ path: shown, start: next, end: Math.min(lines.length, next + 99) })
      }]`,
    );
  } else if (stoppedAt < (runs[runs.length - 1]?.[1] ?? 0)) {
    notes.push(`[cut at the output cap after line ${stoppedAt}]`);
  }
  return {
    text: [`${shown} (${label})`, ...out, ...notes].join("\n"),
    printed,
  };
}

function escapeForRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
