// A window of one long line around a match, for search output: a match past the first
// characters is shown centred rather than cut away with the line's tail, and the text says how
// many characters were left out on each side. Pure. (Edit diffs cut around a change instead:
// edit/edit_diff.ts cutLine.)

import { groupDigits, plural } from "../plural.ts";

// Exported for tests.
/**
 * `text` cut to at most `maxChars` characters: its head when the match `[from, to)` ends within
 * them, otherwise a window centred on the match (on its start, for a match longer than the
 * window). Cut lines end with `[line cut: N characters; shown A-B: X cut before, Y after]`.
 */
export function windowAround(text: string, from: number, to: number, maxChars: number): string {
  return excerptWindow({ text, offset: 0, length: text.length }, from, to, maxChars);
}

/**
 * Part of a long line: `text` is the line's characters from `offset` on, of a line `length`
 * characters long. A search worker sends this instead of the whole line; it must cover the
 * window of {@linkcode windowBounds} and one character on each side of it.
 */
interface LineExcerpt {
  text: string;
  offset: number;
  length: number;
}

/** windowAround for a line known by an excerpt of it (see LineExcerpt). */
export function excerptWindow(
  line: LineExcerpt,
  from: number,
  to: number,
  maxChars: number,
): string {
  const { text, offset, length } = line;
  if (length <= maxChars) return text;
  let [start, end] = windowBounds(length, from, to, maxChars);
  const at = (i: number) => text.charCodeAt(i - offset);
  // Never split a surrogate pair.
  if (start > 0 && isLowSurrogate(at(start))) start--;
  if (end < length && isLowSurrogate(at(end))) end++;
  const before = start > 0 ? `${count(start)} cut before` : "";
  const after = end < length ? `${count(length - end)}` : "";
  const sides = before && after ? `${before}, ${after} after` : before || `${after} cut after`;
  return `${start > 0 ? "…" : ""}${text.slice(start - offset, end - offset)}${
    end < length ? "…" : ""
  }` +
    ` [line cut: ${plural(length, "character")}; shown ${count(start + 1)}-${count(end)}: ` +
    `${sides}]`;
}

/**
 * Where the window of a line `length` characters long lies, `[start, end)`, before the
 * adjustment for surrogate pairs (which may widen it by one on each side). Self-contained: the
 * search's worker threads run its source text to cut long lines where they are read.
 */
export function windowBounds(
  length: number,
  from: number,
  to: number,
  maxChars: number,
): [number, number] {
  let start: number;
  if (to <= maxChars) start = 0;
  else if (to - from >= maxChars) start = Math.max(0, from - Math.floor(maxChars / 10));
  else start = Math.floor((from + to) / 2) - Math.floor(maxChars / 2);
  start = Math.max(0, Math.min(start, length - maxChars));
  return [start, start + maxChars];
}

/** `n.toLocaleString("en-US")` without an ICU formatter built per call (~60 µs, four a cut line). */
function count(n: number): string {
  return groupDigits(n);
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
