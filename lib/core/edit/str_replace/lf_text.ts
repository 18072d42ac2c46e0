// The document as one LF string (where the ladder searches) and the way back: character edits
// applied line-wise, so lines the edit does not touch keep their own endings.

import { applySplices, settleFinalNewline, type Splice } from "../splice_lines.ts";
import { dominantEol, type TextDoc } from "../../text/text_file.ts";

/** The document as one LF string plus the offset where each line starts. */
export interface LfText {
  text: string;
  starts: number[];
}

export function lfText(doc: TextDoc): LfText {
  const starts = new Array<number>(doc.lines.length);
  let offset = 0;
  for (let i = 0; i < doc.lines.length; i++) {
    starts[i] = offset;
    offset += doc.lines[i]!.length + 1;
  }
  let text = doc.lines.join("\n");
  if (doc.lines.length > 0 && doc.eols[doc.lines.length - 1] !== "") text += "\n";
  return { text, starts };
}

/** 0-based index of the line holding character `offset`. */
export function lineAt(lf: LfText, offset: number): number {
  let lo = 0;
  let hi = lf.starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lf.starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export function findAll(text: string, needle: string, limit = 10_000): number[] {
  const out: number[] = [];
  if (needle === "") return out;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
    out.push(at);
    if (out.length >= limit) break;
  }
  return out;
}

export interface CharEdit {
  from: number;
  to: number;
  replacement: string;
}

/**
 * Applies non-overlapping character edits (sorted by `from`) to the document: each edit is widened
 * to whole lines and spliced line-wise, so untouched lines keep their own endings.
 */
export function applyCharEdits(doc: TextDoc, lf: LfText, edits: readonly CharEdit[]): TextDoc {
  // Group edits whose lines touch into blocks of whole lines.
  const blocks: { first: number; last: number; edits: CharEdit[] }[] = [];
  for (const e of edits) {
    const first = lineAt(lf, e.from);
    // The block runs through the line holding the character right after the match, so that a
    // match ending in "\n" joins correctly with the next line when the replacement lacks one.
    const last = e.to >= lf.text.length ? lf.starts.length - 1 : lineAt(lf, e.to);
    const prev = blocks[blocks.length - 1];
    if (prev && first <= prev.last) {
      prev.last = Math.max(prev.last, last);
      prev.edits.push(e);
    } else blocks.push({ first, last, edits: [e] });
  }
  const eol = dominantEol(doc);
  const splices: Splice[] = [];
  for (let b = blocks.length - 1; b >= 0; b--) {
    const block = blocks[b]!;
    const blockStart = lf.starts[block.first]!;
    const blockEnd = block.last + 1 < lf.starts.length
      ? lf.starts[block.last + 1]!
      : lf.text.length;
    // Joined once (an array, not +=, keeps 1,000,000 replacements in one block linear).
    const parts: string[] = [];
    let cursor = blockStart;
    for (const e of block.edits) {
      parts.push(lf.text.slice(cursor, e.from), e.replacement);
      cursor = e.to;
    }
    parts.push(lf.text.slice(cursor, blockEnd));
    const text = parts.join("");
    const terminated = text.endsWith("\n");
    const newLines = text === "" ? [] : (terminated ? text.slice(0, -1) : text).split("\n");
    splices.push(keepingCommon(doc, block.first, block.last - block.first + 1, newLines));
  }
  const out: TextDoc = { ...doc, ...applySplices(doc, splices, eol) };
  settleFinalNewline(out, doc);
  return out;
}

/** A splice of whole lines, narrowed so lines equal at its start and end keep their endings. */
function keepingCommon(doc: TextDoc, at: number, count: number, newLines: string[]): Splice {
  let head = 0;
  while (head < count && head < newLines.length && doc.lines[at + head] === newLines[head]) head++;
  let tail = 0;
  while (
    tail < count - head && tail < newLines.length - head &&
    doc.lines[at + count - 1 - tail] === newLines[newLines.length - 1 - tail]
  ) tail++;
  return {
    at: at + head,
    count: count - head - tail,
    lines: newLines.slice(head, newLines.length - tail),
  };
}
