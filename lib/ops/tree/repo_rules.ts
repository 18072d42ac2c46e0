// The ignore rules a walk starts with and the sources it reads them from: the enclosing git
// repository (found by `.git`), its config and .git/info/exclude, the global excludes file
// (core.excludesFile) and the .gitignore files above the walked root. Ignore files are read
// bounded; a backend with `listTree` gets them in one bulk request.

import { IgnoreChain } from "../../core/search/ignore_rules.ts";
import { gitExcludesFile, gitIgnoreCase } from "../../core/search/git_config.ts";
import { repoConfigs } from "../git_dir.ts";
import type { PathRules } from "../../core/path/path_rules.ts";
import type { DirEntry, FileBackend, ReadDirOptions, TreeEntry } from "../ports/file_backend.ts";
import { readHead } from "../read_limits.ts";
import { cutToHead, readMany } from "./read_in_order.ts";

export interface DirSource {
  list(dir: string, options?: ReadDirOptions): Promise<(DirEntry & { size?: number })[]>;
  /** The text of an ignore file, or null when it does not exist or cannot be read. */
  readText(path: string): Promise<string | null>;
}

const decoder = new TextDecoder();

/** Ignore files are read up to this size (a bigger one is cut; its rules past it are lost). */
const IGNORE_FILE_MAX_BYTES = 1024 * 1024;

/**
 * An ignore file's text, bounded, never opening a FIFO or a device; null when unreadable. A
 * backend that walks with readDir and reads in bulk (local disk) reads it with one `readFiles`
 * call, which it answers without an event-loop turn: a stat, open, read and close each awaited
 * cost a turn apiece, and a listing's ~6 ignore and config files took 1.5-3 ms of its ~15 while
 * the summaries' workers kept the loop busy. High-latency backends (`listTree`) keep readHead.
 */
async function readIgnoreFile(backend: FileBackend, path: string): Promise<string | null> {
  if (backend.readFiles && !backend.listTree) {
    for await (const item of backend.readFiles([path], { headBytes: IGNORE_FILE_MAX_BYTES })) {
      const { data } = cutToHead(item, IGNORE_FILE_MAX_BYTES);
      return item.error || !data ? null : decoder.decode(data);
    }
    return null;
  }
  return await readHead(backend, path, IGNORE_FILE_MAX_BYTES).then(
    ({ data }) => decoder.decode(data),
    () => null,
  );
}

export function readDirSource(backend: FileBackend): DirSource {
  return {
    list: (dir, options) => backend.readDir(dir, options),
    readText: (path) => readIgnoreFile(backend, path),
  };
}

/**
 * One listTree request; ignore files found in it are fetched together with readFiles, and with
 * them `also` (the enclosing repository's info/exclude and config): one request for all.
 */
export async function bulkSource(
  backend: FileBackend,
  root: string,
  maxDepth: number | undefined,
  includeHidden: boolean,
  also: readonly string[],
): Promise<DirSource> {
  const listing: TreeEntry[] = await backend.listTree!(root, maxDepth, {
    skipHiddenDirContents: !includeHidden,
  });
  const children = new Map<string, (DirEntry & { size?: number })[]>();
  const ignoreFiles: string[] = [];
  const { join, parent, sep } = backend.paths;
  for (const entry of listing) {
    const abs = join(root, entry.path);
    const dir = parent(abs);
    let list = children.get(dir);
    if (!list) children.set(dir, list = []);
    const name = abs.slice(abs.lastIndexOf(sep) + 1);
    list.push({ name, type: entry.type, size: entry.size });
    if (name === ".gitignore" && entry.type === "file" && !entry.path.split("/").includes(".git")) {
      ignoreFiles.push(abs);
    }
  }
  const texts = new Map<string, string>();
  // Cut like readIgnoreFile's: a bulk read without a bound would carry a file of any size.
  const head = { headBytes: IGNORE_FILE_MAX_BYTES };
  ignoreFiles.push(...also);
  for await (const item of readMany(backend, ignoreFiles, head)) {
    if (item.data) {
      texts.set(item.path, decoder.decode(cutToHead(item, IGNORE_FILE_MAX_BYTES).data));
    }
  }
  return {
    list: (dir) => Promise.resolve(children.get(dir) ?? []),
    readText: (path) =>
      texts.has(path) || also.includes(path) ||
        (path.endsWith(`${sep}.gitignore`) && path.startsWith(join(root, "")))
        ? Promise.resolve(texts.get(path) ?? null)
        : readIgnoreFile(backend, path),
  };
}

/**
 * The nearest directory at or above `dir` holding `.git` (a folder, or a worktree's or
 * submodule's file), or null (a few stats, no listing). Above `dir` through `above` (see
 * walkBatches).
 */
export async function findGitRoot(
  backend: FileBackend,
  above: FileBackend,
  dir: string,
): Promise<{ dir: string; gitIsDir: boolean } | null> {
  const { join, parent } = backend.paths;
  for (let d = dir, i = 0; i < 48; i++) {
    const info = await (d === dir ? backend : above).stat(join(d, ".git")).catch(() => null);
    if (info) return { dir: d, gitIsDir: info.type === "dir" };
    if (parent(d) === d) return null;
    d = parent(d);
  }
  return null;
}

/** The repository's config files as one text (the last setting wins, as git reads them). */
export async function repoConfigText(
  paths: PathRules,
  source: DirSource,
  dir: string,
  gitIsDir: boolean,
): Promise<string | null> {
  const repo = await repoConfigs(paths, (path) => source.readText(path), dir, gitIsDir);
  return repo === null ? null : repo.configs.join("\n");
}

/**
 * The global excludes file and its text, as git finds it: `core.excludesFile` of the repository's
 * config, else of the user's `~/.gitconfig`, else `~/.config/git/ignore`; null when none exists.
 */
async function globalExcludes(
  backend: FileBackend,
  source: DirSource,
  config: string | null,
): Promise<{ path: string; text: string } | null> {
  const home = await backend.homeDir().catch(() => null);
  const { join, resolve } = backend.paths;
  const named = (config === null ? undefined : gitExcludesFile(config)) ??
    (home === null
      ? undefined
      : gitExcludesFile(await source.readText(join(home, ".gitconfig")) ?? ""));
  let path: string | undefined;
  if (named !== undefined) {
    path = named.startsWith("~/")
      ? (home === null ? undefined : join(home, named.slice(2)))
      : named;
    if (path !== undefined && home !== null && !backend.paths.isAbsolute(path)) {
      path = resolve(home, path);
    }
  } else if (home !== null) path = join(home, ".config/git/ignore");
  if (path === undefined) return null;
  const text = await source.readText(path);
  return text === null ? null : { path, text };
}

/**
 * The rules that apply at `root` before walking it: .git/info/exclude and the .gitignore files
 * of the enclosing repository's directories above `root`.
 */
export async function rulesAbove(
  backend: FileBackend,
  root: string,
  source: DirSource,
  repo: { dir: string; gitIsDir: boolean } | null,
  above: DirSource,
) {
  if (repo === null) return IgnoreChain.EMPTY;
  const gitRoot = repo.dir;
  // The repository's own files through `source` when it is the walked root, else from above.
  const git = gitRoot === root ? source : above;
  const config = await repoConfigText(backend.paths, git, gitRoot, repo.gitIsDir);
  let chain = IgnoreChain.EMPTY.withIgnoreCase(config !== null && gitIgnoreCase(config) === true);
  const { join, parent, slashed } = backend.paths;
  // Lowest precedence first: the global excludes, then info/exclude, then the .gitignore files.
  const global = await globalExcludes(backend, git, config);
  if (global) chain = chain.with(slashed(gitRoot), global.text, global.path);
  const excludePath = join(gitRoot, ".git/info/exclude");
  const exclude = await git.readText(excludePath);
  if (exclude) chain = chain.with(slashed(gitRoot), exclude, excludePath);
  const dirs: string[] = [];
  for (let d = root; d !== gitRoot && parent(d) !== d; d = parent(d)) dirs.unshift(parent(d));
  for (const d of dirs) {
    const path = join(d, ".gitignore");
    const text = await above.readText(path);
    if (text) chain = chain.with(slashed(d), text, path);
  }
  return chain;
}
