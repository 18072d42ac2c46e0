// The one core function behind the view tool and `anchorfs view`: resolves the path(s) and
// dispatches to a file view, a directory listing or a content search. Both adapters print
// the result returned here, each writing the calls it suggests (kept as steps) in its own syntax.
// Listing, search and the repository map (ops/tree, re2js, the scanner's workers) load on the first
// call that needs them (issue 26): a server whose calls only view files never holds them.

import { AnchorError, isAnchorError } from "../core/errors.ts";
import type { GlobFilter } from "../core/search/glob.ts";
import type { SearchPattern } from "../core/search/search_pattern.ts";
import { splitPathList } from "../core/path/path_quote.ts";
import {
  type CallFormatter,
  type Guide,
  guide,
  type GuidePart,
  guideShape,
  joinGuide,
  joinGuides,
  step,
} from "../core/next_step.ts";
import type { Location, Locations } from "./location.ts";
import { missingPathError } from "./missing_path.ts";
import type { SearchRoot } from "./tree/search.ts";
import type { ContentScanner } from "./ports/worker_pool.ts";
import type { Session } from "./session.ts";
import { type LinePosition, parseFlag, parsePosition, parseWholeNumber } from "./view_args.ts";
import { viewFile } from "./view_file.ts";
import type { WalkOptions } from "./tree/walk.ts";
import { type ReadLimits } from "./read_limits.ts";
import { assertRegularFile } from "../core/read_refusals.ts";
import type { Budget, StopReason } from "./budget.ts";
import type { Outliner } from "./outline/outliner.ts";
import { onFirstUse } from "../core/first_use.ts";

// Each loads on the first call that needs it; a load that fails (no descriptor free) is the
// call's error, and the next call loads again (core/first_use.ts).
const loadSearchRoots = onFirstUse(
  "search",
  () => import("./tree/search.ts").then(({ searchRoots }) => searchRoots),
);
const loadListDirectory = onFirstUse(
  "listing",
  () => import("./tree/list_dir.ts").then(({ listDirectory }) => listDirectory),
);
const loadRepoMap = onFirstUse(
  "repository map",
  () => import("./outline/repo_map.ts").then(({ repoMap }) => repoMap),
);
const loadOutlineFile = onFirstUse(
  "outline",
  () => import("./outline/file_outline.ts").then(({ outlineFile }) => outlineFile),
);
const loadCompileGlobs = onFirstUse(
  "glob pattern",
  () => import("../core/search/glob.ts").then(({ compileGlobs }) => compileGlobs),
);
const loadCompileSearchPattern = onFirstUse(
  "search",
  () =>
    import("../core/search/search_pattern.ts").then(({ compileSearchPattern }) =>
      compileSearchPattern
    ),
);

/** The view arguments as the tool and the CLI receive them (numbers may arrive as strings). */
export interface ViewArgs {
  path: string;
  start?: number | string;
  end?: number | string;
  content?: string;
  regex?: boolean | string;
  context?: number | string;
  pattern?: string;
  include_hidden?: boolean | string;
  max_depth?: number | string;
  full?: boolean | string;
  outline?: boolean | string;
  symbol?: string;
}

const CONTEXT_MAX = 50;

// Exported for tests.
/**
 * Optional accelerators (the local parallel scanner; results are the same without them), the
 * read limits (--max-file-bytes, the read budget) and the call's budget (cancellation, deadline)
 * for searches and listings.
 */
export interface ViewAccel {
  scanner?: ContentScanner | undefined;
  reads?: ReadLimits | undefined;
  budget?: Budget;
  /**
   * `anchorfs view --all`: a file view shows its whole range, without the page limit (the read
   * is still bounded by --max-file-bytes). The tool pages: a model's context is the limit there.
   */
  unpaged?: boolean;
  /** Told how many lines a search matched: `anchorfs view --content` exits 1 on none. */
  onSearched?: (matchedLines: number) => void;
  /** Outlines and symbols (the process-wide parser and its cache); without it they fail. */
  outliner?: Outliner | undefined;
}

/**
 * The view's result as data: its text with the calls it suggests kept as steps (`next`), for each
 * adapter to write in its own syntax, as it does for an error's hint.
 */
export async function viewResult(
  locations: Locations,
  session: Session,
  args: ViewArgs,
  accel: ViewAccel = {},
): Promise<Guide> {
  if (typeof args.path !== "string" || args.path.trim() === "") {
    throw new AnchorError({
      code: "MISSING_ARGUMENT",
      message: "view needs a path.",
      hint: guide`${step("view", { path: "." })} lists the working directory; ${
        step("view", { path: "src/main.ts" })
      } shows a file.`,
    });
  }
  const notices: GuidePart[] = [];
  const parsed = parseViewArgs(args, accel.budget, notices, await argCompilers(args));
  const reads = accel.reads;
  if (reads) parsed.walk.reclaim = () => reads.budget.reclaimSoon();
  const roots = await resolveRoots(locations, session, args.path, parsed.search !== undefined);
  for (const r of roots) if (r.location.pasted) notices.push(`${r.location.pasted.note}.`);
  let text: string | Guide;
  if (parsed.search) {
    if (parsed.start || parsed.end) {
      notices.push("start/end apply to file views; ignored for a search.");
    }
    if (parsed.outline || parsed.symbol !== undefined) {
      notices.push("outline and symbol apply to file and directory views; ignored for a search.");
    }
    const searchRoots = await loadSearchRoots();
    await accel.scanner?.ready?.();
    text = await searchRoots(
      locations,
      session,
      roots,
      parsed.search,
      {
        ...parsed.walk,
        context: parsed.context,
        pattern: parsed.pattern,
        ...(accel.reads
          ? { maxFileBytes: accel.reads.maxFileBytes, readBudget: accel.reads.budget }
          : {}),
        ...(accel.onSearched && { onSearched: accel.onSearched }),
      },
      accel.scanner,
    );
  } else {
    text = await viewRoot(locations, session, roots[0]!, args, accel, notices, parsed);
  }
  return withNotices(text, notices);
}

/** The whole view call of `path` with a bad argument's value fixed, for that argument's hint. */
function correctedCall(path: string): CallFormatter {
  return (fix) => step("view", { path, ...fix });
}

/** The view arguments, parsed and checked. */
interface ParsedView {
  search: SearchPattern | undefined;
  pattern: string | undefined;
  start: LinePosition | undefined;
  end: LinePosition | undefined;
  context: number;
  maxDepth: number | undefined;
  walk: WalkOptions;
  outline: boolean;
  symbol: string | undefined;
}

/** What turns `pattern` and `content` into filters; each imported only by a call that has one. */
interface ArgCompilers {
  compileGlobs?: typeof import("../core/search/glob.ts").compileGlobs;
  compileSearchPattern?: typeof import("../core/search/search_pattern.ts").compileSearchPattern;
}

async function argCompilers(args: ViewArgs): Promise<ArgCompilers> {
  const compilers: ArgCompilers = {};
  if (args.pattern?.trim()) {
    compilers.compileGlobs = await loadCompileGlobs();
  }
  // A search: `content` given and not empty (an empty one asks for a listing).
  if (args.content !== undefined && args.content !== "") {
    compilers.compileSearchPattern = await loadCompileSearchPattern();
  }
  return compilers;
}

/**
 * Checks every argument before the file system is touched (hints name the corrected view call);
 * an out-of-range context or max_depth is clamped, with a notice.
 */
function parseViewArgs(
  args: ViewArgs,
  budget: Budget | undefined,
  notices: GuidePart[],
  { compileGlobs, compileSearchPattern }: ArgCompilers,
): ParsedView {
  const pattern = args.pattern?.trim() ? args.pattern.trim() : undefined;
  const call = correctedCall(args.path);
  const filter: GlobFilter | undefined = pattern && compileGlobs
    ? compileGlobs(pattern, call)
    : undefined;
  const search = compileSearchPattern
    ? compileSearchPattern(args.content!, parseFlag("regex", args.regex, call), call)
    : undefined;
  const start = parsePosition("start", args.start, call);
  const end = parsePosition("end", args.end, call);
  let context = parseWholeNumber("context", args.context, 2, call) ?? 0;
  if (context < 0 || context > CONTEXT_MAX) {
    const used = context < 0 ? 0 : CONTEXT_MAX;
    notices.push(`context ${context} is out of range (0-${CONTEXT_MAX}); used ${used}.`);
    context = used;
  }
  let maxDepth = parseWholeNumber("max_depth", args.max_depth, 2, call);
  if (maxDepth !== undefined && maxDepth < 1) {
    notices.push(`max_depth ${maxDepth} is below 1; used 1 (the directory's own entries).`);
    maxDepth = 1;
  }
  const walk: WalkOptions = {
    includeHidden: parseFlag("include_hidden", args.include_hidden, call),
    ...(maxDepth === undefined ? {} : { maxDepth }),
    ...(filter ? { filter } : {}),
    ...(budget ? { budget } : {}),
  };
  const outline = parseFlag("outline", args.outline, call);
  const symbol = typeof args.symbol === "string" && args.symbol.trim() !== ""
    ? args.symbol.trim()
    : undefined;
  return { search, pattern, start, end, context, maxDepth, walk, outline, symbol };
}

/**
 * The view's text with its notices after it. Notices follow the output after a blank line, as
 * the file view's own notices do, so that a notice is never read as one more line of the file
 * or listing; after a text that ends with notices of its own, they join them.
 */
function withNotices(text: string | Guide, notices: readonly GuidePart[]): Guide {
  if (notices.length === 0) return joinGuide(text);
  const sep = /(^|\n)\[[^\n]*\]$/.test(guideShape(text)) ? "\n" : "\n\n";
  return joinGuide(text, sep, joinGuides(notices.map((n) => joinGuide("[", n, "]")), "\n"));
}

/** The roots a view names: several (comma-separated) for a search, else exactly one. */
async function resolveRoots(
  locations: Locations,
  session: Session,
  path: string,
  searching: boolean,
): Promise<SearchRoot[]> {
  const roots: SearchRoot[] = [];
  for (const raw of searching ? splitRoots(path) : [path]) {
    const location = await locations.resolve(raw, session.cwd);
    try {
      roots.push({ location, kind: await kindOf(locations, location) });
    } catch (e) {
      throw searching ? e : severalRootsError(e, path);
    }
  }
  return roots;
}

/**
 * A view that is not a search: the file's lines, or the directory's listing. Arguments that do
 * not apply to it add a notice.
 */
async function viewRoot(
  locations: Locations,
  session: Session,
  root: SearchRoot,
  args: ViewArgs,
  accel: ViewAccel,
  notices: GuidePart[],
  parsed: ParsedView,
): Promise<string | Guide> {
  const { pattern, maxDepth, context, walk } = parsed;
  const { start, end } = pastedRange(root.location, parsed);
  if (parsed.outline || parsed.symbol !== undefined) {
    return await viewStructure(locations, session, root, accel, notices, parsed);
  }
  if (root.kind === "file") {
    if (pattern || maxDepth !== undefined || context > 0) {
      notices.push("pattern, max_depth and context apply to directories and searches; ignored.");
    }
    const full = parseFlag("full", args.full, correctedCall(args.path));
    // One read of at most --max-file-bytes (about a second for 16 MiB here), not cut short
    // once started; a call cancelled or past its deadline before then reads nothing.
    const stop = accel.budget?.stopped();
    if (stop) throw stoppedBeforeRead(accel.budget!, stop, root.location.url);
    const options = { start, end, full, unpaged: accel.unpaged === true };
    return await viewFile(locations, session, root.location, options, accel.reads);
  }
  if (start || end) notices.push("start/end apply to files; ignored for a directory listing.");
  if (args.content === "") {
    notices.push(
      guide`content is empty, so this is a listing, not a search: pass the text to find, e.g. ${
        correctedCall(args.path)({ content: "TODO" })
      }.`,
    );
  } else if (parseFlag("regex", args.regex, correctedCall(args.path)) || context > 0) {
    notices.push("regex and context apply to searches (with content); ignored for a listing.");
  }
  const listDirectory = await loadListDirectory();
  await accel.scanner?.ready?.();
  return await listDirectory(session, root.location, walk, pattern, accel.scanner);
}

/** Lines shown around the line a pasted `a.py:623` or a forge URL's `#L623` points at. */
const PASTED_CONTEXT = 10;

/** start/end as given, or around the line a pasted path points at when neither is given. */
function pastedRange(
  location: Location,
  parsed: ParsedView,
): { start: LinePosition | undefined; end: LinePosition | undefined } {
  const lines = location.pasted?.lines;
  if (!lines || parsed.start || parsed.end) return parsed;
  return {
    start: { kind: "number", value: Math.max(1, lines.start - PASTED_CONTEXT) },
    end: { kind: "number", value: (lines.end ?? lines.start) + PASTED_CONTEXT },
  };
}

/**
 * An outline (of a file, or a directory's repository map) or a declaration named by `symbol`,
 * shown as a range view is, so its ids go straight into an edit.
 */
async function viewStructure(
  locations: Locations,
  session: Session,
  root: SearchRoot,
  accel: ViewAccel,
  notices: GuidePart[],
  parsed: ParsedView,
): Promise<string | Guide> {
  const outliner = accel.outliner;
  if (!outliner) {
    throw new AnchorError({
      code: "INTERNAL",
      message: "This server was built without the outline parser, so outline and symbol fail.",
      hint: "Not the arguments: view files by line range instead.",
      fault: "internal",
    });
  }
  const url = root.location.url;
  if (root.kind === "dir") {
    if (parsed.symbol !== undefined) throw symbolOfDirectory(url, parsed.symbol);
    if (parsed.start || parsed.end) notices.push("start/end apply to files; ignored for a map.");
    const repoMap = await loadRepoMap();
    return await repoMap(session, root.location, parsed.walk, parsed.pattern, outliner);
  }
  const window = parsed.outline ? outlineWindow(parsed) : undefined;
  if (!parsed.outline && (parsed.start || parsed.end)) {
    notices.push("start/end are ignored with symbol: the symbol's lines are shown.");
  }
  const outlineFile = await loadOutlineFile();
  const result = await outlineFile(
    locations,
    session,
    root.location,
    {
      outline: parsed.outline,
      ...(parsed.symbol !== undefined ? { symbol: parsed.symbol } : {}),
      ...(window ? { window } : {}),
    },
    outliner,
    { limits: accel.reads, budget: accel.budget },
  );
  if (result.kind === "text") return result.text;
  const lines = await viewFile(locations, session, root.location, {
    start: { kind: "number", value: result.decl.docStart },
    end: { kind: "number", value: result.decl.end },
  }, accel.reads);
  return joinGuide(result.header, "\n", lines);
}

/** start/end with outline: only the declarations in those lines (numbers; ids by their line). */
function outlineWindow(parsed: ParsedView): { start: number; end: number } | undefined {
  if (!parsed.start && !parsed.end) return undefined;
  const at = (p: LinePosition | undefined, fallback: number) =>
    p === undefined ? fallback : p.kind === "id" ? p.id.line : Math.max(1, p.value);
  return { start: at(parsed.start, 1), end: at(parsed.end, Number.MAX_SAFE_INTEGER) };
}

function symbolOfDirectory(url: string, symbol: string): AnchorError {
  return new AnchorError({
    code: "INVALID_ARGUMENT",
    message: `symbol ${JSON.stringify(symbol)} names a declaration in a file, and ${
      JSON.stringify(url)
    } is a directory.`,
    hint: guide`Map the directory to find the file: ${
      step("view", { path: url, outline: true })
    }, or search for the name: ${step("view", { path: url, content: symbol })}.`,
  });
}

function stoppedBeforeRead(budget: Budget, stop: StopReason, url: string): AnchorError {
  return new AnchorError({
    code: stop === "cancelled" ? "CANCELLED" : "DEADLINE_EXCEEDED",
    message: `${budget.describe(stop)} before ${JSON.stringify(url)} was read; nothing was read.`,
    hint: stop === "cancelled"
      ? "Nothing to do unless the file is still wanted: then repeat the same view call."
      : joinGuide(
        "The arguments are fine: retry the same call; if the server stays this busy, view a ",
        "range of the file, e.g. ",
        step("view", { path: url, start: 1, end: 200 }),
        ".",
      ),
    fault: "environment",
  });
}

/**
 * A missing path with `|` in it outside a search: the agent meant several roots, which only a
 * search takes. Say so and give one view call per root instead of "no such file".
 */
function severalRootsError(error: unknown, path: string): unknown {
  if (!isAnchorError(error) || error.code !== "NOT_FOUND" || !path.includes("|")) return error;
  const pieces = splitPathList(path).map((p) => p.trim()).filter((p) => p !== "");
  return new AnchorError({
    code: "NOT_FOUND",
    message: `No file or directory at ${JSON.stringify(path)}: several roots joined with | work ` +
      "only for a search (with content).",
    hint: guide`View each one: ${
      joinGuides(pieces.map((p) => step("view", { path: p })), ", ")
    }; or search them all: ${step("view", { path, content: "TEXT" })}.`,
  });
}

/**
 * `a|b` → ["a","b"] (a quoted name may hold `|`); an empty piece is refused so a typo does not
 * search the cwd.
 */
function splitRoots(path: string): string[] {
  const pieces = splitPathList(path).map((p) => p.trim());
  if (pieces.some((p) => p === "")) {
    throw new AnchorError({
      code: "INVALID_ARGUMENT",
      message: `path ${JSON.stringify(path)} has an empty root between its | separators.`,
      hint: guide`Join roots with single |, e.g. ${
        step("view", { path: "src|tests", content: "..." })
      }.`,
    });
  }
  return pieces;
}

async function kindOf(locations: Locations, location: Location): Promise<"file" | "dir"> {
  const info = await location.backend.stat(location.path);
  if (!info) throw await missingPathError(locations, location);
  if (info.type === "file") return "file";
  // Refuses FIFOs, devices and sockets before anything opens them; lets directories through.
  assertRegularFile(location.url, info, "view", location.host.shell);
  return "dir";
}
