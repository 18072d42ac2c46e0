// The gitignore-aware walker behind directory listings and search: nested .gitignore files,
// .git/info/exclude, the global excludes file (core.excludesFile), hidden entries, `max_depth`
// and the `pattern` globs. It streams files in path order and never holds file contents.
// High-latency backends with `listTree` are listed in one request and filtered here; others are
// walked with readDir (entry types, no stat per entry). Absolute paths are joined by the
// backend's path rules; ignore rules see them with `/`. The rules found before the walk come from
// repo_rules.ts; what it skips is counted in notices.ts; file contents are read by read_in_order.ts.

import type { GlobFilter } from "../../core/search/glob.ts";
import { type GlobShortcuts, globShortcuts } from "../../core/search/glob_shortcuts.ts";
import type { DirIgnores, IgnoreChain } from "../../core/search/ignore_rules.ts";
import { gitIgnoreCase } from "../../core/search/git_config.ts";
import { isWriteTempName } from "../../core/path/write_temp_name.ts";
import type { PathRules } from "../../core/path/path_rules.ts";
import type { Budget } from "../budget.ts";
import { eventTurn } from "../../core/event_turn.ts";
import type { DirEntry, FileBackend, ReadDirOptions } from "../ports/file_backend.ts";
import { TurnQueue } from "../../core/turn_queue.ts";
import { SKIPPED_DIRS, SKIPPED_SAMPLES, unreadableWhy, type WalkStats } from "./notices.ts";
import {
  bulkSource,
  type DirSource,
  findGitRoot,
  readDirSource,
  repoConfigText,
  rulesAbove,
} from "./repo_rules.ts";

export interface WalkOptions {
  includeHidden: boolean;
  /** Levels below the root to enter: 1 lists only the root's own entries. Undefined: no limit. */
  maxDepth?: number;
  filter?: GlobFilter;
  /** Cancellation and deadline: the walk gives the event loop turns and stops when told. */
  budget?: Budget;
  /**
   * Asked after each huge directory (past HUGE_DIR_ENTRIES): its entries, their sorted copies and
   * what counting them made are garbage by then, megabytes of it, which V8 let pile up (ten
   * listings of a 100,000-entry directory: this thread's heap went from 17 to 137 MB). The
   * composition root decides whether a collection is due (backends/local/heap.ts).
   */
  reclaim?: () => void;
}

/**
 * A file that passed every rule; `size` is known when the backend listed it in bulk. Its path
 * and relative path are made when read, from its directory's prefixes: a search hands the
 * prefix and the name to its scanner (core/search/path_batch.ts) and reads `path` only for the
 * files it names, so a walk of 20,462 files no longer makes 41,000 strings nobody reads.
 */
export class WalkFile {
  readonly kind = "file";

  constructor(
    /** The directory's path with its separator (`/repo/src/`; "" for a file root). */
    readonly prefix: string,
    /** The directory's path from the root with a slash (`src/`; "" at the root). */
    readonly relPrefix: string,
    readonly name: string,
    readonly size?: number,
  ) {}

  get path(): string {
    return this.prefix + this.name;
  }

  get rel(): string {
    return this.relPrefix + this.name;
  }
}

export type WalkItem =
  | WalkFile
  /** A directory not entered because of `max_depth`. */
  | { kind: "cut"; path: string; rel: string };

// Names within one directory are distinct, so one comparison decides.
const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : 1);

/**
 * Entries of one directory handled between two turns of the event loop: a directory of 1,000,000
 * entries, sorted and counted in one go, held the server (and every `ping`) for 2.4 s.
 */
const TURN_ENTRIES = 32_768;

/**
 * Huge directories (past HUGE_DIR_ENTRIES) are read, sorted and settled one at a time across the
 * process: ten listings of one 100,000-entry directory at once held ten of them as entry objects
 * (~8 MB each, in turns of the event loop side by side) and the server peaked at 212 MB. It is
 * this thread's work either way: queued, the ten take what they took side by side (the
 * collections asked after each add ~20 %). A walk takes its turn only inside `enter` (never while
 * holding one), so turns cannot wait on each other. A call cancelled while it waits leaves the
 * queue at once, its directory unread past the first entries.
 */
const HUGE_DIRS = new TurnQueue();

/** A turn of the event loop for a walk without a budget, in which I/O completes (eventTurn). */
const nextTurn = eventTurn;

/**
 * `entries` sorted by name. Past TURN_ENTRIES, in slices sorted one at a time and merged pairwise,
 * with turns of the event loop in between (`breathe`): the same order, in steps of milliseconds.
 * A promise only then: a directory sorted in one go needs no await (one per directory of a walk).
 */
function sortInTurns(
  entries: Entry[],
  breathe: () => Promise<unknown>,
): Entry[] | Promise<Entry[]> {
  return entries.length <= TURN_ENTRIES ? entries.sort(byName) : sortRuns(entries, breathe);
}

/** sortInTurns past TURN_ENTRIES: sorted slices, merged pairwise, with turns between. */
async function sortRuns(entries: Entry[], breathe: () => Promise<unknown>): Promise<Entry[]> {
  let runs: Entry[][] = [];
  for (let i = 0; i < entries.length; i += TURN_ENTRIES) {
    runs.push(entries.slice(i, i + TURN_ENTRIES).sort(byName));
    await breathe();
  }
  while (runs.length > 1) {
    const merged: Entry[][] = [];
    for (let r = 0; r < runs.length; r += 2) {
      merged.push(
        r + 1 < runs.length ? await mergeRuns(runs[r]!, runs[r + 1]!, breathe) : runs[r]!,
      );
    }
    runs = merged;
  }
  return runs[0]!;
}

async function mergeRuns(
  a: Entry[],
  b: Entry[],
  breathe: () => Promise<unknown>,
): Promise<Entry[]> {
  const out: Entry[] = new Array(a.length + b.length);
  let i = 0;
  let j = 0;
  for (let k = 0; k < out.length; k++) {
    if (k % TURN_ENTRIES === TURN_ENTRIES - 1) await breathe();
    out[k] = j >= b.length || (i < a.length && a[i]!.name <= b[j]!.name) ? a[i++]! : b[j++]!;
  }
  return out;
}

/** Walks `root` (an existing directory) depth-first in path order. */
export async function* walkFiles(
  backend: FileBackend,
  root: string,
  options: WalkOptions,
  stats: WalkStats,
): AsyncGenerator<WalkItem> {
  for await (const batch of walkBatches(backend, root, options, stats)) yield* batch;
}

/** Items per batch of walkBatches. */
const WALK_BATCH = 256;

/**
 * Switches a walk to counting (a listing past its last row): from then on files are counted in
 * `counted` instead of handed out (an empty batch every WALK_BATCH of them lets the consumer stop),
 * directories are no longer sorted and `max_depth` cuts are dropped.
 */
export interface WalkControl {
  countOnly: boolean;
  counted: number;
  /**
   * The items the consumer takes before counting (a listing's rows): once they are handed out
   * the walk switches to counting itself, and files a directory holds past them are counted in
   * `counted` as soon as it is read, so a directory of 100,000 files is never held whole for the
   * walk's length. Undefined: every file is handed out.
   */
  rows?: number;
}

/**
 * walkFiles in batches of up to WALK_BATCH items: a consumer that goes through a million files
 * pays one promise hop per batch instead of several per file.
 */
export async function* walkBatches(
  backend: FileBackend,
  root: string,
  options: WalkOptions,
  stats: WalkStats,
  control: WalkControl = { countOnly: false, counted: 0 },
): AsyncGenerator<WalkItem[]> {
  let source = readDirSource(backend);
  // The enclosing repository's ignore files above an allowed directory are read by their path,
  // outside the confinement (docs/security.md): nothing inside the directory can redirect them.
  const outer = backend.unconfined ?? backend;
  const repo = await findGitRoot(backend, outer, root);
  if (backend.listTree) {
    // One request for the whole tree; if the host cannot do it, walk directory by directory.
    const { join } = backend.paths;
    const home = repo ? await backend.homeDir().catch(() => null) : null;
    const gitFiles = [
      ...(repo?.gitIsDir
        ? [join(repo.dir, ".git/info/exclude"), join(repo.dir, ".git/config")]
        : []),
      // Where the global excludes file is found (globalExcludes): in the same request.
      ...(home === null ? [] : [join(home, ".gitconfig"), join(home, ".config/git/ignore")]),
    ];
    source = await bulkSource(backend, root, options.maxDepth, options.includeHidden, gitFiles)
      .catch(() => source);
  }
  const walker = new TreeWalker(source, backend.paths, options, stats, control);
  const above = outer === backend ? source : readDirSource(outer);
  await walker.enter(root, "", 1, await rulesAbove(backend, root, source, repo, above));
  yield* walker.batches();
}

type Entry = DirEntry & { size?: number };

/** One directory on the walk's stack: its entries in walk order and the next one to visit. */
interface Frame {
  dir: string;
  relDir: string;
  depth: number;
  chain: IgnoreChain;
  /** The chain's rules for this directory's entries, settled once (IgnoreChain.forDir). */
  ignore: DirIgnores;
  /** `dir` and `relDir` with their separators: the prefixes of its files' paths (WalkFile). */
  prefix: string;
  relPrefix: string;
  entries: Entry[];
  next: number;
}

/**
 * The walk's state: one explicit stack (nested `yield*` would pass every file through one
 * promise hop per directory level, which dominated the walk on deep trees) and the batch being
 * filled.
 */
class TreeWalker {
  private readonly stack: Frame[] = [];
  private out: WalkItem[] = [];
  /** Items handed out in batches so far. */
  private handedOut = 0;
  /** Set when counting reached another WALK_BATCH files: an empty batch goes out. */
  private tick = false;
  private readonly shortcuts: GlobShortcuts | null;
  /** A turn of the event loop inside a big directory (the budget's, when the walk has one). */
  private readonly breathe = (): Promise<unknown> =>
    this.options.budget ? this.options.budget.breathe() : nextTurn();

  constructor(
    private readonly source: DirSource,
    private readonly paths: PathRules,
    private readonly options: WalkOptions,
    private readonly stats: WalkStats,
    private readonly control: WalkControl,
  ) {
    this.shortcuts = options.filter ? globShortcuts(options.filter) : null;
  }

  /**
   * Lists `dir` and pushes it with its ignore rules; an unreadable one is noted and skipped. A
   * huge directory is read, sorted and settled in its turn among huge directories (HUGE_DIRS).
   */
  async enter(dir: string, relDir: string, depth: number, inherited: IgnoreChain): Promise<void> {
    let endTurn: (() => void) | undefined;
    try {
      await this.enterListed(dir, relDir, depth, inherited, {
        whenHuge: async () => (endTurn = await HUGE_DIRS.take(this.options.budget?.signal)),
      });
    } finally {
      if (endTurn) {
        endTurn();
        this.options.reclaim?.();
      }
    }
  }

  private async enterListed(
    dir: string,
    relDir: string,
    depth: number,
    inherited: IgnoreChain,
    options: ReadDirOptions,
  ): Promise<void> {
    let entries: Entry[];
    try {
      entries = await this.source.list(dir, options);
    } catch (e) {
      // Cancelled while it waited for its turn (HUGE_DIRS): the walk ends here, nothing read.
      const stop = this.options.budget?.stopped();
      if (stop) {
        this.stats.stopped = stop;
        this.stack.length = 0;
        return;
      }
      this.stats.unreadable.push(dir);
      this.stats.unreadableWhy.push(unreadableWhy(e));
      return;
    }
    let chain = inherited;
    // A repository inside the walk: its own core.ignorecase (the root's was read before).
    const git = relDir === "" ? undefined : entries.find((e) => e.name === ".git");
    if (git && (git.type === "dir" || git.type === "file")) {
      const gitIsDir = git.type === "dir";
      const config = await repoConfigText(this.paths, this.source, dir, gitIsDir);
      chain = chain.withIgnoreCase(config !== null && gitIgnoreCase(config) === true);
    }
    if (entries.some((e) => e.name === ".gitignore" && e.type === "file")) {
      const path = this.paths.join(dir, ".gitignore");
      const text = await this.source.readText(path);
      if (text) chain = chain.with(this.paths.slashed(dir), text, path);
    }
    const ignore = chain.forDir(this.paths.slashed(dir));
    if (this.shortcuts) {
      entries = await this.dropUnmatchable(entries, ignore, this.shortcuts);
    }
    if (!this.control.countOnly) {
      const sorted = sortInTurns(entries, this.breathe);
      entries = sorted instanceof Promise ? await sorted : sorted;
    }
    const frame: Frame = {
      dir,
      relDir,
      depth,
      chain,
      ignore,
      prefix: this.paths.join(dir, ""),
      relPrefix: relDir === "" ? "" : `${relDir}/`,
      entries,
      next: 0,
    };
    const rows = this.control.rows;
    if (this.control.countOnly) frame.entries = await this.settleFiles(frame, 0);
    else if (rows !== undefined && entries.length > rows - this.handedOut - this.out.length) {
      frame.entries = await this.settleFiles(frame, rows - this.handedOut - this.out.length);
    }
    this.stack.push(frame);
  }

  /**
   * Visits now, counting, every file of a just-read directory that cannot become one of the
   * consumer's rows: the first `room` files that would be listed stay (in order), with every
   * directory; the rest are counted (or skipped, as a visit would) and dropped, so a huge
   * directory's entries are let go at once instead of held while its rows are read.
   */
  private async settleFiles(frame: Frame, room: number): Promise<Entry[]> {
    const kept: Entry[] = [];
    let i = 0;
    for (const entry of frame.entries) {
      if (++i % TURN_ENTRIES === 0) await this.breathe();
      if (entry.type === "dir") kept.push(entry);
      else if (room > 0 && this.wouldList(frame, entry)) {
        kept.push(entry);
        room--;
      } else this.visit(frame, entry, true);
    }
    return kept;
  }

  /** Whether a visit would hand out this file (the rules of `visit`, without counting). */
  private wouldList(frame: Frame, entry: Entry): boolean {
    if (entry.type !== "file") return false;
    const hidden = entry.name.charCodeAt(0) === 46;
    if (hidden && (isWriteTempName(entry.name) || !this.options.includeHidden)) return false;
    if (frame.ignore.size > 0 && frame.ignore.ignores(entry.name, false)) return false;
    const filter = this.options.filter;
    return !filter || filter.keepsFile(frame.relPrefix + entry.name);
  }

  /**
   * Before sorting, drops the files whose name the pattern surely rejects, counting them as the
   * visit would (seen, filtered): a name search then sorts and visits only what may match. Hidden
   * and ignored files stay for the visit, which names the first few it skips in walk order;
   * other entries go (never followed), but for symlinks whose name may match: the visit counts
   * those, as links skipped.
   */
  private async dropUnmatchable(
    entries: Entry[],
    ignore: DirIgnores,
    shortcuts: GlobShortcuts,
  ): Promise<Entry[]> {
    const kept: Entry[] = [];
    let i = 0;
    for (const e of entries) {
      if (++i % TURN_ENTRIES === 0) await this.breathe();
      if (e.type === "dir") kept.push(e);
      else if (e.type !== "file") {
        if (e.type === "symlink" && shortcuts.fileNameMayMatch(e.name)) kept.push(e);
      } else if (
        e.name.charCodeAt(0) === 46 || shortcuts.fileNameMayMatch(e.name) ||
        (ignore.size > 0 && ignore.ignores(e.name, false))
      ) kept.push(e);
      else {
        this.stats.filesSeen++;
        this.stats.filesFiltered++;
      }
    }
    return kept;
  }

  /** The batches: visits entries until the stack is empty or the budget stops the walk. */
  async *batches(): AsyncGenerator<WalkItem[]> {
    const budget = this.options.budget;
    let sinceBreath = 0;
    while (this.stack.length > 0) {
      // Local directories are listed synchronously: give the event loop turns between them.
      if (budget && ++sinceBreath >= 256) {
        sinceBreath = 0;
        const stop = await budget.breathe();
        if (stop) {
          this.stats.stopped = stop;
          break;
        }
      }
      const frame = this.stack[this.stack.length - 1]!;
      const entry = frame.entries[frame.next++];
      if (!entry) {
        this.stack.pop();
        continue;
      }
      const into = this.visit(frame, entry);
      if (into) await this.enter(into.path, into.rel, frame.depth + 1, frame.chain);
      if (this.out.length >= WALK_BATCH || this.tick) {
        this.tick = false;
        this.handedOut += this.out.length;
        yield this.out;
        this.out = [];
      }
    }
    if (this.out.length > 0) yield this.out;
  }

  /**
   * Applies the rules to one entry: adds an item or a count, or returns the directory to enter.
   * `counting`: a file that passes is counted, not handed out (a listing past its rows).
   */
  private visit(
    frame: Frame,
    entry: Entry,
    counting = this.control.countOnly,
  ): { path: string; rel: string } | null {
    const isDir = entry.type === "dir";
    if (this.skipped(frame, entry, isDir)) return null;
    if (frame.ignore.size > 0 && frame.ignore.ignores(entry.name, isDir)) {
      this.stats.ignored++;
      const path = this.paths.join(frame.dir, entry.name);
      const chain = frame.chain;
      const named = this.stats.ignoredSamples.length < SKIPPED_SAMPLES;
      if (named || (isDir && this.stats.skippedDirs.length < SKIPPED_DIRS)) {
        const reason = chain.explain(this.paths.slashed(path), isDir);
        const entry = reason ? { path, isDir, reason } : { path, isDir };
        if (named) this.stats.ignoredSamples.push(entry);
        if (isDir && this.stats.skippedDirs.length < SKIPPED_DIRS) {
          this.stats.skippedDirs.push(entry);
        }
      }
      return null;
    }
    const filter = this.options.filter;
    // A file only counted needs no path (no garbage per file).
    if (counting && !isDir && !filter) {
      this.stats.filesSeen++;
      this.count();
      return null;
    }
    if (isDir) {
      return this.directory(frame, frame.prefix + entry.name, frame.relPrefix + entry.name);
    }
    this.stats.filesSeen++;
    if (filter && !filter.keepsFile(frame.relPrefix + entry.name)) {
      this.stats.filesFiltered++;
      return null;
    }
    if (counting) this.count();
    else this.handOut(new WalkFile(frame.prefix, frame.relPrefix, entry.name, entry.size));
    return null;
  }

  /**
   * Adds an item to the batch; the consumer's last row switches the walk to counting, so what
   * follows is counted unsorted instead of sorted and dropped.
   */
  private handOut(item: WalkItem): void {
    this.out.push(item);
    const rows = this.control.rows;
    if (rows !== undefined && this.handedOut + this.out.length >= rows) {
      this.control.countOnly = true;
    }
  }

  /** Entries never walked: not a file or directory (symlinks are not followed, as in ripgrep: a
   * link could leave the tree or loop), `.git`, a write in progress, and hidden ones. */
  private skipped(frame: Frame, entry: Entry, isDir: boolean): boolean {
    if (!isDir && entry.type !== "file") {
      if (entry.type === "symlink") this.noteSymlink(frame, entry.name);
      return true;
    }
    if (entry.name === ".git" && isDir) return true;
    // A write in progress (or one a killed writer left): never the user's file, even hidden.
    if (!isDir && entry.name.charCodeAt(0) === 46 && isWriteTempName(entry.name)) return true;
    if (this.options.includeHidden || entry.name.charCodeAt(0) !== 46) return false;
    this.stats.hidden++;
    if (entry.name === ".gitignore" && !isDir) this.stats.hiddenIgnoreFiles++;
    else if (this.stats.hiddenSamples.length < SKIPPED_SAMPLES) {
      this.stats.hiddenSamples.push({ path: this.paths.join(frame.dir, entry.name), isDir });
    }
    if (isDir && this.stats.skippedDirs.length < SKIPPED_DIRS) {
      this.noteHiddenDir(frame, entry.name);
    }
    return true;
  }

  /**
   * Notes a hidden directory skipped, and the rule that would ignore it too (`.venv` excluded in
   * .git/info/exclude): including hidden entries would still not search it.
   */
  private noteHiddenDir(frame: Frame, name: string): void {
    const path = this.paths.join(frame.dir, name);
    const reason = frame.ignore.size > 0 && frame.ignore.ignores(name, true)
      ? frame.chain.explain(this.paths.slashed(path), true)
      : null;
    this.stats.skippedDirs.push(
      reason ? { path, isDir: true, hidden: true, reason } : {
        path,
        isDir: true,
        hidden: true,
      },
    );
  }

  /**
   * Counts a skipped symlink that would have been listed as a file (not hidden, or hidden ones
   * included; within the pattern); the first few are named in an empty result.
   */
  private noteSymlink(frame: Frame, name: string): void {
    if (name.charCodeAt(0) === 46 && !this.options.includeHidden) return;
    const filter = this.options.filter;
    if (filter && !filter.keepsFile(frame.relPrefix + name)) return;
    this.stats.symlinks++;
    if (this.stats.symlinkSamples.length < SKIPPED_SAMPLES) {
      this.stats.symlinkSamples.push({ path: this.paths.join(frame.dir, name), isDir: false });
    }
  }

  /** A directory that passed the rules: entered, cut by `max_depth`, or passed over. */
  private directory(frame: Frame, path: string, rel: string): { path: string; rel: string } | null {
    const options = this.options;
    if (options.filter && !options.filter.keepsDir(rel)) return null;
    if (options.maxDepth !== undefined && frame.depth >= options.maxDepth) {
      if (!this.control.countOnly) this.handOut({ kind: "cut", path, rel });
      return null;
    }
    // After the cut rows: a directory the pattern cannot reach inside is shown cut all the same.
    if (this.shortcuts && !this.shortcuts.dirMayHold(rel)) {
      this.stats.dirsPassedOver++;
      return null;
    }
    return { path, rel };
  }

  private count(): void {
    if (++this.control.counted % WALK_BATCH === 0) this.tick = true;
  }
}
