// Line-level surgery on a TextDoc shared by every edit: splicing lines in with the right line
// endings, keeping the final-newline state, and telling whether an edit changed anything.

import { dominantEol, type TextDoc } from "./text_file.ts";

/**
 * Replaces `count` lines at 0-based `at` with `newLines`. New lines take the replaced lines'
 * endings in order, then their neighbourhood's; an unterminated last line stays unterminated.
 */
export function spliceLines(
  doc: TextDoc,
  at: number,
  count: number,
  newLines: readonly string[],
  eol: string,
): void {
  const oldEols = doc.eols.slice(at, at + count);
  // Lines beyond the replaced ones follow their neighbourhood: the last replaced line's ending,
  // or for an insert the line above (below at the file start); the dominant one otherwise.
  const near = [oldEols[count - 1], doc.eols[at - 1], doc.eols[at]].find((e) => e) ?? eol;
  const newEols = newLines.map((_, i) => {
    const e = oldEols[i];
    return e === undefined || e === "" ? near : e;
  });
  // A replaced last line without a terminator keeps having none at the end of the new block.
  if (count > 0 && at + count === doc.lines.length && oldEols[count - 1] === "") {
    if (newEols.length > 0) newEols[newEols.length - 1] = "";
  }
  doc.lines.splice(at, count, ...newLines);
  doc.eols.splice(at, count, ...newEols);
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
