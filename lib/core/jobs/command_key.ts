// The duplicate-guard key of a shell command: the command with runs of whitespace outside
// quotes collapsed, plus the directory it runs in. Two calls with the same key while the first
// still runs are the same work started twice (the agent lost track of it), not two jobs. The
// caller passes the directory's real path (symlinks resolved) and whether paths ignore case.

// Exported for tests.
/**
 * Collapses whitespace outside single/double quotes and trims; quoted text is kept as is. Words
 * are cut out as slices and joined once: appending character by character built a rope of one
 * node per character (about 130 MB for a 2 MB command line, held by every `shell` call).
 */
export function normalizeCommand(command: string): string {
  const words: string[] = [];
  let quote: "'" | '"' | undefined;
  let start = -1; // where the current word began, -1 between words
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!;
    if (quote) {
      if (ch === "\\" && quote === '"') i++;
      else if (ch === quote) quote = undefined;
      continue;
    }
    if (isSpace(command.charCodeAt(i), ch)) {
      if (start >= 0) words.push(command.slice(start, i));
      start = -1;
      continue;
    }
    if (start < 0) start = i;
    if (ch === "\\") i++;
    else if (ch === "'" || ch === '"') quote = ch;
  }
  if (start >= 0) words.push(command.slice(start));
  return words.join(" ");
}

const SPACE = /\s/;

/** `/\s/.test(ch)` without a regex call for the ASCII characters that are most of a command. */
function isSpace(code: number, ch: string): boolean {
  if (code < 128) return code === 32 || (code >= 9 && code <= 13);
  return SPACE.test(ch);
}

/**
 * The key two running jobs must not share. `realCwd` should have its symlinks resolved; with
 * `caseInsensitive` (macOS, Windows default file systems) `/Src` and `/src` are one directory.
 */
export function commandKey(command: string, realCwd: string, caseInsensitive = false): string {
  const dir = caseInsensitive ? realCwd.toLowerCase() : realCwd;
  return `${dir}\u0000${normalizeCommand(command)}`;
}
