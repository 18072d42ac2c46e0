// Line-level surgery on a TextDoc shared by every edit: splicing lines in with the right line
// endings, keeping the final-newline state, and telling whether an edit changed anything.

import { dominantEol, type TextDoc } from "../text/text_file.ts";

/** One replacement of `count` lines at 0-based `at` by `lines`. */
export interface Splice {
  at: number;
  count: number;
  lines: readonly string[];
}

/**
 * The lines and endings after replacing, for each of `splices` in turn, `count` lines at 0-based
 * `at` by `lines` (new lines take the replaced lines' endings in order, then their
 * neighbourhood's; an unterminated last line stays unterminated), which must come
 * bottom-up (descending `at`, each ending at or above the previous one's start). One pass:
 * O(lines + new lines), where splicing each into the array moved the rest of the file every time
 * (quadratic for 100,000 one-line operations) and spreading new lines as arguments overflowed the
 * stack past ~100,000 lines.
 */
export function applySplices(
  doc: Pick<TextDoc, "lines" | "eols">,
  splices: readonly Splice[],
  eol: string,
): { lines: string[]; eols: string[] } {
  // The result is built from the bottom: chunks of lines (and endings), last chunk first.
  // A chunk is a range [from, to) of the original arrays or of one splice's new lines.
  const chunks: { lines: readonly string[]; eols: readonly string[]; from: number; to: number }[] =
    [];
  // Lines [0, cut) are still the original; below them sit `below` lines whose first ending is
  // `firstBelow` (what one splice alone would see as doc.eols[at] after the edits under it).
  let cut = doc.lines.length;
  let below = 0;
  let firstBelow: string | undefined;
  for (const { at, count, lines: newLines } of splices) {
    const end = at + count;
    if (end < cut) {
      chunks.push({ lines: doc.lines, eols: doc.eols, from: end, to: cut });
      below += cut - end;
      firstBelow = doc.eols[end];
    }
    const oldEols = doc.eols.slice(at, end);
    const atEol = count > 0 ? oldEols[0] : firstBelow;
    // Lines beyond the replaced ones follow their neighbourhood: the last replaced line's ending,
    // or for an insert the line above (below at the file start); the dominant one otherwise.
    const near = [oldEols[count - 1], doc.eols[at - 1], atEol].find((e) => e) ?? eol;
    const newEols = newLines.map((_, i) => {
      const e = oldEols[i];
      return e === undefined || e === "" ? near : e;
    });
    // A replaced last line without a terminator keeps having none at the end of the new block.
    if (count > 0 && below === 0 && oldEols[count - 1] === "") {
      if (newEols.length > 0) newEols[newEols.length - 1] = "";
    }
    chunks.push({ lines: newLines, eols: newEols, from: 0, to: newLines.length });
    if (newLines.length > 0) firstBelow = newEols[0];
    below += newLines.length;
    cut = at;
  }
  if (cut > 0) chunks.push({ lines: doc.lines, eols: doc.eols, from: 0, to: cut });
  const lines: string[] = [];
  const eols: string[] = [];
  for (let c = chunks.length - 1; c >= 0; c--) {
    const chunk = chunks[c]!;
    for (let i = chunk.from; i < chunk.to; i++) {
      lines.push(chunk.lines[i]!);
      eols.push(chunk.eols[i]!);
    }
  }
  return { lines, eols };
}

/** Keeps the original's final-newline presence; every line but the last gets a terminator. */
export function settleFinalNewline(doc: TextDoc, original: TextDoc): void {
  const eol = dominantEol(original);
  const hadFinal = original.lines.length === 0 || original.eols[original.eols.length - 1] !== "";
  for (let i = 0; i < doc.eols.length - 1; i++) if (doc.eols[i] === "") doc.eols[i] = eol;
  const last = doc.eols.length - 1;
  if (last < 0) return;
  if (!hadFinal) doc.eols[last] = "";
  else if (doc.eols[last] === "") doc.eols[last] = eol;
}

/** True when two documents have the same lines and endings (an edit that would change nothing). */
export function sameDoc(a: TextDoc, b: TextDoc): boolean {
  if (a.lines.length !== b.lines.length) return false;
  for (let i = 0; i < a.lines.length; i++) {
    if (a.lines[i] !== b.lines[i] || a.eols[i] !== b.eols[i]) return false;
  }
  return true;
}
