// The outline of a directory: a repository map. Walks it as a listing does (.gitignore, hidden
// files, max_depth, pattern), reads the files the outline has a grammar for in path order, and
// gives each one line of its top-level declarations, within a byte budget shared out among the
// files; what did not fit, and why the walk stopped, is said with the call that shows it.

import {
  type Guide,
  guide,
  type GuidePart,
  joinGuide,
  joinGuides,
  step,
} from "../../core/next_step.ts";
import { plural } from "../../core/plural.ts";
import { isAnchorError } from "../../core/errors.ts";
import { quotePath } from "../../core/path/path_quote.ts";
import { decodeTextBody } from "../../core/text/text_file.ts";
import { languageFor } from "../../core/outline/languages.ts";
import { mapEntry } from "../../core/outline/map_render.ts";
import { describeRules } from "../tree/list_dir.ts";
import { type Location, siblingLocation } from "../location.ts";
import type { Session } from "../session.ts";
import { displayPath } from "../view_args.ts";
import { walkFiles, type WalkItem, type WalkOptions } from "../tree/walk.ts";
import { newWalkStats } from "../tree/notices.ts";
import { readInOrder } from "../tree/read_in_order.ts";
import type { Outliner } from "./outliner.ts";
import { ParseTimeout } from "../ports/syntax_parser.ts";
import type { StopReason } from "../budget.ts";

/** A map's rows fit in this many bytes: about the size of a 1,000-row listing. */
const MAP_MAX_BYTES = 32 * 1024;
/** Files larger than this are named in a map but not parsed for it (outline them one by one). */
const MAP_FILE_MAX_BYTES = 512 * 1024;
/** Files considered per map (the walk stops there; the rest are counted as not mapped). */
const MAP_MAX_FILES = 2000;
/** Each file's line is given at least, and at most, this many bytes. */
const ENTRY_MIN_BYTES = 120;
const ENTRY_MAX_BYTES = 1500;

/**
 * Grammars one map loads at most, the most frequent in the directory first: each loaded grammar
 * stays resident (3 to 45 MB, see docs/benchmarks.md), and all fifteen would take the server past
 * its memory target. Files of other languages are counted, with the call that outlines one.
 */
const MAP_MAX_GRAMMARS = 3;

type FileItem = WalkItem & { kind: "file" };

/** The files of the MAP_MAX_GRAMMARS most frequent grammars, and the rest by language name. */
function byFrequentGrammars(code: FileItem[], baseName: (path: string) => string) {
  const grammarOf = (item: FileItem) => languageFor(baseName(item.path))!;
  const counts = new Map<string, number>();
  for (const item of code) {
    const g = grammarOf(item).grammar;
    counts.set(g, (counts.get(g) ?? 0) + 1);
  }
  const kept = new Set(
    [...counts].sort((a, b) => b[1] - a[1]).slice(0, MAP_MAX_GRAMMARS).map(([g]) => g),
  );
  const mapped = code.filter((item) => kept.has(grammarOf(item).grammar));
  const left = code.filter((item) => !kept.has(grammarOf(item).grammar));
  const names = [...new Set(left.map((item) => grammarOf(item).name))];
  return { mapped, left, names };
}

/** The repository map of the directory at `location`. */
export async function repoMap(
  session: Session,
  location: Location,
  options: WalkOptions,
  pattern: string | undefined,
  outliner: Outliner,
): Promise<Guide> {
  const shown = displayPath(session, location);
  const stats = newWalkStats();
  const code: FileItem[] = [];
  let others = 0;
  let more = false;
  for await (const item of walkFiles(location.backend, location.path, options, stats)) {
    if (item.kind !== "file") continue;
    if (!languageFor(location.backend.paths.baseName(item.path))) others++;
    else if (code.length < MAP_MAX_FILES) code.push(item);
    else more = true;
  }
  const languages = byFrequentGrammars(code, (path) => location.backend.paths.baseName(path));
  const entryBudget = Math.min(
    ENTRY_MAX_BYTES,
    Math.max(ENTRY_MIN_BYTES, Math.floor(MAP_MAX_BYTES / Math.max(1, languages.mapped.length))),
  );
  const rows: string[] = [];
  let used = 0;
  let mapped = 0;
  const reads = readInOrder(
    location.backend,
    (async function* () {
      yield* languages.mapped;
    })(),
    { skipLargerThan: MAP_FILE_MAX_BYTES },
  );
  for await (const { item, data, error } of reads) {
    if (used >= MAP_MAX_BYTES) break;
    const stop = await options.budget?.breathe();
    const row = stop
      ? null
      : await mapRow(session, location, item, data, error, outliner, entryBudget, options);
    if (row === null) {
      stats.stopped = stop ?? options.budget?.stopped() ?? "deadline";
      break;
    }
    rows.push(row);
    used += row.length + 1;
    mapped++;
  }
  const header = `${quotePath(shown)}: repository map of ${plural(mapped, "file")}${
    others > 0 ? ` (${plural(others, "other file")} without a grammar not shown)` : ""
  } (${describeRules(options, pattern)}). Per file: top-level declarations, lines, {members}.`;
  const notices = mapNotices(shown, {
    left: languages.mapped.length - mapped + (more ? 1 : 0),
    more,
    stop: stats.stopped,
  }, options);
  if (languages.left.length > 0) {
    const first = displayPath(session, siblingLocation(location, languages.left[0]!.path));
    notices.push(
      guide`${plural(languages.left.length, "file")} in ${
        languages.names.join(", ")
      } not mapped (a map reads the ${MAP_MAX_GRAMMARS} most frequent languages: each grammar stays in memory once loaded); outline one alone: ${
        step("view", { path: quotePath(first), outline: true })
      }.`,
    );
  }
  if (mapped === 0 && notices.length === 0) {
    return guide`${quotePath(shown)}: no files the outline reads (${
      plural(others, "other file")
    }; ${describeRules(options, pattern)}). List them: ${
      step("view", { path: quotePath(shown) })
    }.`;
  }
  return joinGuide(
    [header, ...rows].join("\n"),
    notices.length > 0
      ? joinGuide("\n\n", joinGuides(notices.map((n) => guide`[${n}]`), "\n"))
      : "",
  );
}

/** One file's map line; null when the call was stopped while it was parsed. */
async function mapRow(
  session: Session,
  root: Location,
  item: FileItem,
  data: Uint8Array | undefined,
  error: Error | undefined,
  outliner: Outliner,
  budget: number,
  options: WalkOptions,
): Promise<string | null> {
  // Paths as the next call takes them (relative to the working directory), not to the map's root.
  const path = quotePath(displayPath(session, siblingLocation(root, item.path)));
  if (!data) {
    return isAnchorError(error) && error.code === "FILE_TOO_LARGE"
      ? `${path}: over ${MAP_FILE_MAX_BYTES / 1024} KB, not mapped (outline it alone)`
      : `${path}: unreadable (${error?.message ?? "no data"})`;
  }
  const decoded = decodeTextBody(data);
  if (decoded.kind === "binary") return `${path}: binary`;
  const text = decoded.body.text;
  const language = languageFor(root.backend.paths.baseName(item.path))!;
  let outline;
  try {
    outline = await outliner.outline(text, language, () => options.budget?.stopped() != null);
  } catch (e) {
    if (!(e instanceof ParseTimeout)) throw e;
    return `${path}: took over ${e.deadline} to parse, not mapped (search it instead)`;
  }
  if (!outline) return null;
  const lines = text.length === 0 ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  return mapEntry({
    path,
    lines,
    decls: outline.declarations,
    unparsed: outline.unparsed.length > 0,
  }, budget);
}

function mapNotices(
  shown: string,
  { left, more, stop }: { left: number; more: boolean; stop: StopReason | undefined },
  options: WalkOptions,
): GuidePart[] {
  const notices: GuidePart[] = [];
  if (left > 0) {
    notices.push(
      guide`${more ? "More than " : ""}${plural(left, "file")} not mapped (the map is limited to ${
        MAP_MAX_BYTES / 1024
      } KB and ${MAP_MAX_FILES} files). Map a subdirectory, or outline one file: ${
        step("view", { path: quotePath(shown), outline: true, max_depth: 1 })
      }.`,
    );
  }
  if (stop && options.budget) {
    notices.push(`${options.budget.describe(stop)}: the map stopped early and is partial.`);
  }
  return notices;
}
