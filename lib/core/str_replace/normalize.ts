// Whitespace-normalized lines, shared by the fuzzy rung and the no-match diagnostics: the
// comparison that ignores indentation, inner spacing and blank edges.

export function normalizeLine(line: string): string {
  const t = line.trim();
  // Most lines have no inner run of whitespace: skip the regex for them.
  return /\s\s|[\t\r\f\v]/.test(t) ? t.replace(/\s+/g, " ") : t;
}

/** Normalized lines of a document, computed once per str_replace and shared by the tiers. */
const normalizedCache = new WeakMap<readonly string[], string[]>();
export function normalizedLines(lines: readonly string[]): string[] {
  let out = normalizedCache.get(lines);
  if (!out) normalizedCache.set(lines, out = lines.map(normalizeLine));
  return out;
}

/** The lines of `text` without blank lines at either end. */
export function trimBlankEdges(text: string): string[] {
  const lines = text.split("\n");
  while (lines.length > 0 && lines[0]!.trim() === "") lines.shift();
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === "") lines.pop();
  return lines;
}

/** A line's leading spaces and tabs. */
export const leadingWs = (line: string) => /^[ \t]*/.exec(line)![0];
