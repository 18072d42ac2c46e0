// Where a work tree's git configuration lives: its `.git` directory, or the git directory a `.git`
// file names (a worktree, a submodule), whose common dir holds the shared config. Used by the walk
// (core.ignorecase) and the edits' guard (core.hooksPath); reads go through the caller's reader.

import { gitDirPointer } from "../core/search/git_config.ts";
import type { PathRules } from "../core/path/path_rules.ts";

/**
 * The git directory of the work tree at `root` and the texts of its config files in the order git
 * reads them (the common dir's config first, for a worktree); null when a `.git` file names none.
 */
export async function repoConfigs(
  paths: PathRules,
  readText: (path: string) => Promise<string | null>,
  root: string,
  gitIsDir: boolean,
): Promise<{ gitDir: string; configs: string[] } | null> {
  let gitDir = paths.join(root, ".git");
  const files: string[] = [];
  if (!gitIsDir) {
    const pointer = gitDirPointer(await readText(gitDir) ?? "");
    if (pointer === undefined) return null;
    gitDir = paths.resolve(root, pointer);
    const common = (await readText(paths.join(gitDir, "commondir")))?.trim();
    if (common) files.push(paths.join(paths.resolve(gitDir, common), "config"));
  }
  files.push(paths.join(gitDir, "config"));
  const configs: string[] = [];
  for (const file of files) {
    const text = await readText(file);
    if (text !== null) configs.push(text);
  }
  return { gitDir, configs };
}
