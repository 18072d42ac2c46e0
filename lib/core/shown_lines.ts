// What each file's lines looked like when they were last shown to the agent (in a view or an
// edit result). batch_edit checks every line of a replaced range against this memory, because
// an 8-bit hash on a range's end line ("}" or blank) collides easily after a shift.
// Bounded: at most `maxFiles` files (least recently shown dropped) and `maxLinesPerFile` lines.

import { fnv1a32, hashLine } from "./line_id.ts";

/** A line's 32-bit content fingerprint (FNV-1a over UTF-8), stored next to its 8-bit hash. */
export function linePrint(line: string): number {
  let h = 2166136261;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c >= 0x80) return fnv1a32(encoder.encode(line));
    h ^= c;
    h = Math.imul(h, 16777619) >>> 0;
  }
  return h >>> 0;
}

const encoder = new TextEncoder();

export class ShownLines {
  private files = new Map<string, Map<number, number>>();
  /**
   * 32-bit content fingerprints (fnv1a32) of shown lines, where the recorder had the content:
   * they catch a line that changed but kept its 8-bit hash (1 in 256). Lines recorded with
   * `record` (hashes only) drop any fingerprint they had.
   */
  private prints = new Map<string, Map<number, number>>();

  constructor(private readonly maxFiles = 256, private readonly maxLinesPerFile = 20_000) {}

  /** Records that lines `firstLine…` of `key` were shown with these hashes. */
  record(key: string, firstLine: number, hashes: readonly number[]): void {
    let file = this.files.get(key);
    if (file) this.files.delete(key);
    else file = new Map();
    this.files.set(key, file); // re-insert: most recently shown last
    const prints = this.prints.get(key);
    for (let i = 0; i < hashes.length; i++) {
      file.delete(firstLine + i);
      file.set(firstLine + i, hashes[i]!);
      prints?.delete(firstLine + i);
    }
    while (file.size > this.maxLinesPerFile) {
      const line = file.keys().next().value!;
      file.delete(line);
      prints?.delete(line);
    }
    while (this.files.size > this.maxFiles) {
      const oldest = this.files.keys().next().value!;
      this.files.delete(oldest);
      this.prints.delete(oldest);
    }
  }

  /** Like `record`, with each line's 32-bit content fingerprint too (see `prints`). */
  recordWithPrints(
    key: string,
    firstLine: number,
    hashes: readonly number[],
    fingerprints: readonly number[],
  ): void {
    this.record(key, firstLine, hashes);
    if (!this.files.has(key)) return;
    let prints = this.prints.get(key);
    if (!prints) this.prints.set(key, prints = new Map());
    for (let i = 0; i < fingerprints.length; i++) {
      if (this.files.get(key)!.has(firstLine + i)) prints.set(firstLine + i, fingerprints[i]!);
    }
  }

  /**
   * Records every `N:hh|content` row at the start of a line of `text` (an error report) as shown,
   * with its full-content fingerprint: recording the 8-bit hash alone would erase the fingerprint
   * a view left, and a later change that keeps the hash (1 in 256) would then pass the range
   * check. Reports render whole lines; a row whose content does not give its hash is skipped.
   */
  recordRendered(key: string, text: string): void {
    const record = (line: string, hex: string, content: string): boolean => {
      const hash = parseInt(hex, 16);
      if (hashLine(content) !== hash) return false;
      this.recordWithPrints(key, Number(line), [hash], [linePrint(content)]);
      return true;
    };
    // Split on LF only: a rendered line's content may hold a lone CR.
    for (const row of text.split("\n")) {
      const m = /^([1-9][0-9]*):([0-9a-f]{2})\|/.exec(row);
      if (m) {
        record(m[1]!, m[2]!, row.slice(m[0].length));
        continue;
      }
      // The stale-id report's "Content with hash hh is now at: 225:hh|a, 437:hh|b (nearest
      // first; …)": these ids are offered for the retry, so they count as shown too. Content may
      // hold ", "; a piece is taken only when its content gives its hash.
      const list = /^Content with hash [0-9a-f]{2} is now at: (.*) \(nearest first; /.exec(row);
      if (!list) continue;
      const body = list[1]!;
      const marks = [...body.matchAll(/(?:^|, )([1-9][0-9]*):([0-9a-f]{2})\|/g)];
      for (let i = 0; i < marks.length; i++) {
        const m = marks[i]!;
        const start = m.index! + m[0].length;
        // Try the next marker as the end first, then later ones (content holding ", N:hh|").
        for (let j = i + 1; j <= marks.length; j++) {
          const end = j < marks.length ? marks[j]!.index! : body.length;
          if (record(m[1]!, m[2]!, body.slice(start, end))) break;
        }
      }
    }
  }

  /** The 32-bit fingerprint shown for a line, or undefined when only its hash is known. */
  shownFingerprint(key: string, line: number): number | undefined {
    return this.prints.get(key)?.get(line);
  }

  /** After a write, the file's old line numbers mean nothing: forget them, then record anew. */
  replaceFile(key: string, hashes: readonly number[], firstLine = 1): void {
    this.files.delete(key);
    this.prints.delete(key);
    this.record(key, firstLine, hashes);
  }

  forget(key: string): void {
    this.files.delete(key);
    this.prints.delete(key);
  }

  /** The hash shown for a line, or undefined when that line was never shown. */
  shownHash(key: string, line: number): number | undefined {
    return this.files.get(key)?.get(line);
  }

  hasFile(key: string): boolean {
    return this.files.has(key);
  }
}
