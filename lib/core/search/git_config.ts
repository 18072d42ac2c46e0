// The little of git's own files the walker needs: `core.ignorecase` from a repository's config
// (git sets it when the repository was made on a case-insensitive volume, and then matches
// .gitignore rules without case), `core.excludesFile` (the global ignore file), and where a
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
  let found: boolean | undefined;
  for (const value of coreValues(config, "ignorecase")) {
    const parsed = parseBool(value === undefined ? "true" : value.toLowerCase());
    if (parsed !== undefined) found = parsed;
  }
  return found;
}

/**
 * `core.excludesFile` as written (`~/.gitignore_global`), or undefined when the config does not
 * set it; the last setting wins.
 *
 * @example
 * ```ts
 * gitExcludesFile("[core]\n\texcludesFile = ~/.gitignore_global\n"); // "~/.gitignore_global"
 * ```
 */
export function gitExcludesFile(config: string): string | undefined {
  let found: string | undefined;
  for (const value of coreValues(config, "excludesfile")) if (value) found = value;
  return found;
}

/** The values of `core.<key>` in a config, in order (undefined for a bare key), unquoted. */
function* coreValues(config: string, key: string): Generator<string | undefined> {
  let inCore = false;
  for (const raw of config.split(/\r?\n/)) {
    let line = raw.trim();
    const section = /^\[\s*([^\]\s"]+)\s*(?:"[^"]*")?\s*\]\s*(.*)$/.exec(line);
    if (section) {
      inCore = section[1]!.toLowerCase() === "core";
      // `[core] ignorecase = true` on one line is valid git config.
      line = section[2]!.trim();
    }
    if (!inCore || line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const entry = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (!entry || entry[1]!.toLowerCase() !== key) continue;
    yield entry[2] === undefined ? undefined : stripValue(entry[2]);
  }
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
