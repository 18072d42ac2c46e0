// A window of one long line around a match, for search output: a match past the first
// characters is shown centred rather than cut away with the line's tail, and the text says how
// many characters were left out on each side. Pure. (Edit diffs cut around a change instead:
// edit/edit_diff.ts cutLine.)

import { plural } from "../plural.ts";

/**
 * `text` cut to at most `maxChars` characters: its head when the match `[from, to)` ends within
 * them, otherwise a window centred on the match (on its start, for a match longer than the
 * window). Cut lines end with `[line cut: N characters; shown A-B: X cut before, Y after]`.
 */
export function windowAround(text: string, from: number, to: number, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let start: number;
  if (to <= maxChars) start = 0;
  else if (to - from >= maxChars) start = Math.max(0, from - Math.floor(maxChars / 10));
  else start = Math.floor((from + to) / 2) - Math.floor(maxChars / 2);
  start = Math.max(0, Math.min(start, text.length - maxChars));
  let end = start + maxChars;
  // Never split a surrogate pair.
  if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start--;
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end++;
  const before = start > 0 ? `${count(start)} cut before` : "";
  const after = end < text.length ? `${count(text.length - end)}` : "";
  const sides = before && after ? `${before}, ${after} after` : before || `${after} cut after`;
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""}` +
    ` [line cut: ${plural(text.length, "character")}; shown ${count(start + 1)}-${count(end)}: ` +
    `${sides}]`;
}

function count(n: number): string {
  return n.toLocaleString("en-US");
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
