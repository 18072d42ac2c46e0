// The little of git's own files anchorfs needs: `core.ignorecase` from a repository's config
// (git sets it when the repository was made on a case-insensitive volume, and then matches
// .gitignore rules without case), `core.hooksPath` (the edits guard the hooks there),
// `core.excludesFile` (the global ignore file the walk applies), and where a
// `.git` file (worktree, submodule) points. Pure.

/**
 * The repository's `core.ignorecase`, or undefined when the config does not set it. Git's rules:
 * section and key names compare without case, a bare `ignorecase` is true, the last setting wins,
 * `true/yes/on/1` and `false/no/off/0/""` are the booleans.
 *
 * @example
 * ```ts
 * gitIgnoreCase("[core]\n\tbare = false\n\tignorecase = true\n"); // true
 * gitIgnoreCase("[core]\n\tfilemode = true\n"); // undefined
 * ```
 */
export function gitIgnoreCase(config: string): boolean | undefined {
  const value = gitConfigValue(config, "core", "ignorecase");
  return value === undefined ? undefined : parseBool(value.toLowerCase());
}

/**
 * `core.excludesFile` as written (`~/.gitignore_global`), or undefined when the config does not
 * set it (a bare key names no file).
 *
 * @example
 * ```ts
 * gitExcludesFile("[core]\n\texcludesFile = ~/.gitignore_global\n"); // "~/.gitignore_global"
 * ```
 */
export function gitExcludesFile(config: string): string | undefined {
  const value = gitConfigValue(config, "core", "excludesfile");
  return value === undefined || value === "" || value === "true" ? undefined : value;
}

/**
 * The last value of `section.key` in a git config text (names compared without case; a bare key
 * reads as "true"), without its comment and quotes; undefined when it is not set. Includes
 * (`[include] path`) are not followed.
 *
 * @example
 * ```ts
 * gitConfigValue("[core]\n\thooksPath = .githooks # ours\n", "core", "hooksPath"); // ".githooks"
 * ```
 */
export function gitConfigValue(config: string, section: string, key: string): string | undefined {
  let inSection = false;
  let found: string | undefined;
  const wantSection = section.toLowerCase();
  const wantKey = key.toLowerCase();
  for (const raw of config.split(/\r?\n/)) {
    let line = raw.trim();
    const header = /^\[\s*([^\]\s"]+)\s*(?:"[^"]*")?\s*\]\s*(.*)$/.exec(line);
    if (header) {
      inSection = header[1]!.toLowerCase() === wantSection;
      // `[core] ignorecase = true` on one line is valid git config.
      line = header[2]!.trim();
    }
    if (!inSection || line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const entry = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (!entry || entry[1]!.toLowerCase() !== wantKey) continue;
    found = entry[2] === undefined ? "true" : stripValue(entry[2]);
  }
  return found;
}

/** A value without its trailing comment and surrounding quotes. */
function stripValue(value: string): string {
  let out = "";
  let quoted = false;
  for (const c of value) {
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === "#" || c === ";")) break;
    else out += c;
  }
  return out.trim();
}

function parseBool(value: string): boolean | undefined {
  if (["true", "yes", "on", "1"].includes(value)) return true;
  if (["false", "no", "off", "0", ""].includes(value)) return false;
  return undefined;
}

/** The directory a `.git` file points at (`gitdir: ../.git/worktrees/x`), as written; undefined. */
export function gitDirPointer(text: string): string | undefined {
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(text);
  return match?.[1];
}
