// What the directories a search skipped (ignored by .gitignore, .git/info/exclude or the global
// excludes, hidden or both) hold, so that a search that found nothing names first the ones that
// can hold the text: many text files before a few, binary-only ones (`__pycache__/`) last. A
// bounded look at names only: no file is opened.

import type { FileBackend } from "./ports/file_backend.ts";
import type { SkippedEntry } from "./tree/notices.ts";

/** A skipped directory and what a quick look found in it. */
export interface ProbedDir {
  entry: SkippedEntry;
  files: number;
  /** Of those, files whose name does not say binary (`.pyc`, `.so`, `.png`, …). */
  textFiles: number;
  /** The look stopped before the end: there are more. */
  more: boolean;
}

/** Entries looked at per directory, and directory listings read in all (bounds the look). */
const ENTRIES_PER_DIR = 2000;
const LISTINGS = 200;
/** Directories looked into at most (the rest keep walk order after them). */
const PROBED = 12;

const BINARY =
  /\.(?:pyc|pyo|pyd|so|dylib|dll|exe|o|a|lib|obj|class|jar|war|whl|egg|node|wasm|bin|dat|db|sqlite3?|png|jpe?g|gif|ico|webp|bmp|pdf|zip|gz|tgz|bz2|xz|zst|7z|rar|woff2?|ttf|otf|eot|mp[34]|mov|avi|pack|idx)$/i;

/**
 * The skipped directories with what they hold, the ones with the most text files first; those
 * with none (binary only, or empty) last, in walk order.
 */
export async function probeSkippedDirs(
  backend: FileBackend,
  dirs: readonly SkippedEntry[],
): Promise<ProbedDir[]> {
  const budget = { listings: LISTINGS };
  const probed: ProbedDir[] = [];
  for (const entry of dirs.slice(0, PROBED)) {
    probed.push({ entry, ...await lookInto(backend, entry.path, budget) });
  }
  return probed
    .map((p, i) => ({ p, i }))
    .sort((a, b) =>
      Number(b.p.textFiles > 0) - Number(a.p.textFiles > 0) ||
      b.p.textFiles - a.p.textFiles || a.i - b.i
    )
    .map(({ p }) => p);
}

async function lookInto(
  backend: FileBackend,
  root: string,
  budget: { listings: number },
): Promise<{ files: number; textFiles: number; more: boolean }> {
  let files = 0;
  let textFiles = 0;
  let seen = 0;
  const queue = [root];
  while (queue.length > 0) {
    if (budget.listings <= 0 || seen >= ENTRIES_PER_DIR) return { files, textFiles, more: true };
    budget.listings--;
    const dir = queue.shift()!;
    const entries = await backend.readDir(dir).catch(() => []);
    for (const e of entries) {
      if (++seen > ENTRIES_PER_DIR) return { files, textFiles, more: true };
      if (e.type === "dir" && e.name !== ".git") queue.push(backend.paths.join(dir, e.name));
      else if (e.type === "file") {
        files++;
        if (!BINARY.test(e.name)) textFiles++;
      }
    }
  }
  return { files, textFiles, more: false };
}
