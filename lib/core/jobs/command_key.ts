// The duplicate-guard key of a shell command: the command with runs of whitespace outside
// quotes collapsed, plus the directory it runs in. Two calls with the same key while the first
// still runs are the same work started twice (the agent lost track of it), not two jobs. The
// caller passes the directory's real path (symlinks resolved) and whether paths ignore case.

/** Collapses whitespace outside single/double quotes and trims; quoted text is kept as is. */
export function normalizeCommand(command: string): string {
  let out = "";
  let quote: "'" | '"' | undefined;
  let pendingSpace = false;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!;
    if (quote) {
      out += ch;
      if (ch === "\\" && quote === '"' && i + 1 < command.length) out += command[++i];
      else if (ch === quote) quote = undefined;
      continue;
    }
    if (/\s/.test(ch)) {
      pendingSpace = out.length > 0;
      continue;
    }
    if (pendingSpace) out += " ";
    pendingSpace = false;
    out += ch;
    if (ch === "\\" && i + 1 < command.length) out += command[++i];
    else if (ch === "'" || ch === '"') quote = ch;
  }
  return out;
}

/**
 * The key two running jobs must not share. `realCwd` should have its symlinks resolved; with
 * `caseInsensitive` (macOS, Windows default file systems) `/Src` and `/src` are one directory.
 */
export function commandKey(command: string, realCwd: string, caseInsensitive = false): string {
  const dir = caseInsensitive ? realCwd.toLowerCase() : realCwd;
  return `${dir}\u0000${normalizeCommand(command)}`;
}
