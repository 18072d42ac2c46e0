// Asks a file system, read-only, whether it compares names without case: a name a directory holds
// is looked up again with its letters' case swapped. Shared by the local disk, ssh:// hosts and the
// memory backend, which supply the lookups; what was found goes into the backend's CaseVolumes,
// which the path rules compare through (lib/core/path/case_volumes.ts).

import { caseSwapped, type CaseVolumes } from "../core/path/case_volumes.ts";
import type { PathRules } from "../core/path/path_rules.ts";

/** What one lookup without following a last symlink found. */
export type ProbeLookup =
  | "missing"
  /** Something else went wrong (permissions, I/O): this lookup cannot tell. */
  | "error"
  /** It exists; `id` is `dev:ino` where the system has them, `links` its hard-link count. */
  | { id?: string; isDir: boolean; links?: number };

/** The few calls a probe needs from a backend. */
export interface ProbeView {
  /**
   * Names in `dir`: all of them (`complete`), or the first ones only where the lookups carry
   * identities (a local disk need not list a huge folder to the end).
   */
  names(dir: string): Promise<{ names: string[]; complete: boolean }>;
  lookup(path: string): Promise<ProbeLookup>;
}

/** Names a probe tries before giving up on a directory (each costs two lookups). */
const MAX_TRIES = 4;

// Exported for tests.
/**
 * Whether lookups in `dir` fold case: true when a name's case-swapped spelling finds the same
 * entry, false when it finds nothing or another entry; undefined when no name with letters can
 * tell (an empty folder, digits only, a permission error), and the directory inherits its parent's.
 */
export async function probeDirectory(
  view: ProbeView,
  rules: PathRules,
  dir: string,
): Promise<boolean | undefined> {
  let listing: { names: string[]; complete: boolean };
  try {
    listing = await view.names(dir);
  } catch {
    return undefined;
  }
  const listed = new Set(listing.names);
  let tries = 0;
  for (const name of listing.names) {
    const swapped = caseSwapped(name);
    // Both spellings listed: two entries, which proves nothing about lookups by itself.
    if (swapped === undefined || listed.has(swapped)) continue;
    if (++tries > MAX_TRIES) break;
    const [given, other] = await Promise.all([
      view.lookup(rules.join(dir, name)),
      view.lookup(rules.join(dir, swapped)),
    ]);
    if (given === "missing" || given === "error" || other === "error") continue;
    if (other === "missing") return false;
    if (given.id !== undefined && other.id !== undefined) {
      if (given.id !== other.id) return false;
      // A hard link under the swapped name also shares the inode: only a directory or a file
      // with one link proves the lookup folded.
      if (given.isDir || given.links === 1) return true;
      continue;
    }
    // No identities (SFTP): the other spelling resolved but is not in the full listing.
    if (listing.complete) return true;
  }
  return undefined;
}

/**
 * Keeps a backend's CaseVolumes filled: `learn(path)` probes the nearest existing directory at or
 * above `path` and each of its ancestors not probed yet (once each, in parallel), so every
 * component of a path is compared by the answer of the directory it lives in.
 */
export class CaseProber {
  private readonly pending = new Map<string, Promise<void>>();
  /** Paths that were not directories when asked (files, or not there yet), below probed ones. */
  private readonly leaves = new Set<string>();

  constructor(
    private readonly volumes: CaseVolumes,
    private readonly rules: PathRules,
    private readonly view: ProbeView,
    /** Whether `path` is an existing directory (follows symlinks). */
    private readonly isDir: (path: string) => Promise<boolean>,
  ) {}

  /** Probes what `path` needs; never throws (what cannot be probed keeps the default). */
  async learn(path: string): Promise<void> {
    if (!this.rules.isAbsolute(path)) return;
    const normal = this.rules.normalize(path);
    // The common case, a file in a known directory, costs no I/O.
    if (this.volumes.probed(normal) || this.leaves.has(normal)) return;
    const dirs: string[] = [];
    for (let d = normal; dirs.length < 256; d = this.rules.parent(d)) {
      dirs.push(d);
      if (this.rules.parent(d) === d) break;
    }
    // The path itself is often a file or not there yet: start at the nearest directory.
    let start = 0;
    while (start < dirs.length - 1 && !await this.isDir(dirs[start]!).catch(() => false)) start++;
    const todo = dirs.slice(start).filter((d) => !this.volumes.probed(d));
    await Promise.all(todo.map((d) => this.probeOnce(d)));
    // Not a directory (a file, or not there yet): a folder made there later inherits the answer
    // of the nearest probed one, as a new folder on the same volume does.
    if (start >= 1) {
      if (this.leaves.size >= 10_000) this.leaves.clear();
      this.leaves.add(normal);
    }
  }

  private probeOnce(dir: string): Promise<void> {
    let running = this.pending.get(dir);
    if (!running) {
      running = probeDirectory(this.view, this.rules, dir)
        .catch(() => undefined)
        .then((folds) => this.volumes.record(dir, folds))
        .finally(() => this.pending.delete(dir));
      this.pending.set(dir, running);
    }
    return running;
  }
}
