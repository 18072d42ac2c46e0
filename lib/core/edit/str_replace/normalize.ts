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
  // Indices, not shift(): each shift moves the whole array, quadratic on 200,000 blank lines.
  let start = 0;
  let end = lines.length;
  while (start < end && isBlank(lines[start]!)) start++;
  while (end > start && isBlank(lines[end - 1]!)) end--;
  return start === 0 && end === lines.length ? lines : lines.slice(start, end);
}

/** True for a line of whitespace only, without copying it (trim() copies a long line). */
export const isBlank = (line: string) => !/\S/.test(line);

/** A line's leading spaces and tabs. */
export const leadingWs = (line: string) => /^[ \t]*/.exec(line)![0];
