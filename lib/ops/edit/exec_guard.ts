// Refuses edits of files that the user's tools run as commands (--no-shell, --protect-exec-files):
// the names of lib/core/path/exec_files.ts, plus what only the disk can tell: a directory that is
// a git directory by its content (HEAD beside config or objects/: a bare repository, a separate
// or a worktree's git dir), a config or HEAD that would make its folder one, and the hooks
// directory a repository's core.hooksPath names. Every write of the edit tools asks first.

import { AnchorError } from "../../core/errors.ts";
import { execFileRule } from "../../core/path/exec_files.ts";
import { gitConfigValue } from "../../core/search/git_config.ts";
import { repoConfigs } from "../git_dir.ts";
import type { FileBackend } from "../ports/file_backend.ts";
import type { Location } from "../location.ts";

/** Ancestors looked at for a git directory or a work tree (deeper trees are rare and cost stats). */
const MAX_ANCESTORS = 64;
/** Git's own small files are read up to this size. */
const GIT_FILE_BYTES = 256 * 1024;

export class ExecFileGuard {
  /** `cause`: the flag that turned the guard on, named in the refusal. */
  constructor(readonly cause: "--no-shell" | "--protect-exec-files") {}

  /** Throws PROTECTED_FILE when writing `location` (its path as named, or its real path) could
   * make the user's tools run a command. `action`: what the call would do ("edit", "delete"). */
  async check(location: Location, action: string): Promise<void> {
    const names = [location.path, ...(location.real ? [location.real] : [])];
    for (const path of names) {
      const rule = execFileRule(path.split(/[\\/]/).filter((c) => c !== ""));
      if (rule) throw this.refusal(location, action, rule.reason);
    }
    const found = await gitReason(location.backend, location.real ?? location.path);
    if (found) throw this.refusal(location, action, found);
  }

  private refusal(location: Location, action: string, reason: string): AnchorError {
    return new AnchorError({
      code: "PROTECTED_FILE",
      message: `Refused to ${action} ${JSON.stringify(location.url)}: ${reason}. This server ` +
        `(${this.cause}) does not write files that the user's own tools run as commands, so no ` +
        "edit can make them run one; nothing was written.",
      hint: "Tell the user the change you would make, so they can make it themselves; or, if " +
        "they want the edit tools to write such files, they can restart anchorfs with " +
        "--allow-exec-files.",
    });
  }
}

async function isType(backend: FileBackend, path: string, type: "file" | "dir") {
  return (await backend.stat(path).catch(() => null))?.type === type;
}

async function readSmall(backend: FileBackend, path: string): Promise<string | null> {
  try {
    const bytes = await backend.readFile(path, { maxBytes: GIT_FILE_BYTES });
    return new TextDecoder().decode(bytes.subarray(0, GIT_FILE_BYTES));
  } catch {
    return null;
  }
}

/**
 * Why git would run something written at `path`, from the disk: inside a git directory found by
 * its content, a config or HEAD that makes its folder one, or the hooks of core.hooksPath.
 */
async function gitReason(backend: FileBackend, path: string): Promise<string | undefined> {
  const { parent, baseName, join } = backend.paths;
  const dir = parent(path);
  const name = baseName(path).toLowerCase();
  const twin = name === "config" ? "HEAD" : name === "head" ? "config" : undefined;
  if (twin && await isType(backend, join(dir, twin), "file")) {
    return `with the ${twin} beside it, git takes ${JSON.stringify(dir)} for a repository (a ` +
      "bare one) and runs the commands its config names when the user runs git there";
  }
  let d = dir;
  for (let i = 0; i < MAX_ANCESTORS; i++) {
    if (
      await isType(backend, join(d, "HEAD"), "file") &&
      (await isType(backend, join(d, "config"), "file") ||
        await isType(backend, join(d, "objects"), "dir"))
    ) {
      return `it is inside ${JSON.stringify(d)}, a git directory (HEAD beside config or ` +
        "objects): its config and hooks are commands git runs";
    }
    const dotGit = await backend.stat(join(d, ".git")).catch(() => null);
    if (dotGit?.type === "dir" || dotGit?.type === "file") {
      return await hooksPathReason(backend, d, dotGit.type === "dir", path);
    }
    if (parent(d) === d) break;
    d = parent(d);
  }
  return undefined;
}

/** The refusal reason when `path` lies in the hooks directory core.hooksPath names for `root`. */
async function hooksPathReason(
  backend: FileBackend,
  root: string,
  gitIsDir: boolean,
  path: string,
): Promise<string | undefined> {
  const paths = backend.paths;
  const read = (path: string) => readSmall(backend, path);
  const repo = await repoConfigs(paths, read, root, gitIsDir);
  if (repo === null) return undefined;
  const worktree = await read(paths.join(repo.gitDir, "config.worktree"));
  let hooks: string | undefined;
  for (const config of [...repo.configs, worktree ?? ""]) {
    hooks = gitConfigValue(config, "core", "hooksPath") ?? hooks;
  }
  // `~/...` lies in the home directory: outside any project, and not resolved here.
  if (hooks === undefined || hooks === "" || hooks.startsWith("~")) return undefined;
  const dir = paths.resolve(root, hooks);
  if (!paths.isInside(path, dir)) return undefined;
  return `it is in ${JSON.stringify(dir)}, which core.hooksPath of the repository at ` +
    `${JSON.stringify(root)} names: git runs the hooks there on commit, checkout, merge and push`;
}
