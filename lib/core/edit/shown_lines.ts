// What each file's lines looked like when they were last shown to the agent (in a view or an
// edit result). batch_edit checks every line of a replaced range against this memory, because
// an 8-bit hash on a range's end line ("}" or blank) collides easily after a shift.
// Bounded by bytes (oldest first: files shown longest ago, then a file's oldest lines) and by
// `maxLinesPerFile`; what was evicted is remembered as such, so its ids fall back to hash checks.

import { fold8, hashLine, linePrint } from "./line_id.ts";

// The fingerprint lives beside the 8-bit hash (one FNV-1a loop); its users import it from here.
export { linePrint };

/** What a line shown with its fingerprint is remembered as (FileMemory's packed value). */
function wholeLineValue(line: string): number {
  const print = linePrint(line);
  return print * 256 + fold8(print);
}

/** What the agent was shown for this file: the line hashes handed out in views and results. */
export interface ShownMemory {
  /** False when nothing of this file was ever shown (fresh server, CLI): interiors unchecked. */
  known: boolean;
  /** The 8-bit hash line `line` had when it was shown; undefined when it was not shown. */
  hashAt(line: number): number | undefined;
  /** The 32-bit content fingerprint shown for the line (linePrint), when the recorder had it. */
  printAt?(line: number): number | undefined;
  /**
   * Lines of this file were forgotten to bound memory (ShownLines.evictedFrom): a line with no
   * memory is then verified by its hash alone, never refused as "never shown".
   */
  evicted?: boolean;
}

// Exported for tests.
/**
 * Estimated memory of one remembered line (a Map entry holding a packed number) and of one
 * remembered file: the byte bound counts these, not the lines' content, which is never kept.
 */
export const SHOWN_LINE_BYTES = 48;
// Exported for tests.
export const SHOWN_FILE_BYTES = 256;
/** Default bound of a session's memory of shown lines: about 170,000 lines. */
const DEFAULT_SHOWN_BYTES = 8 * 1024 * 1024;
/** Files whose memory was evicted are remembered by key (small) up to this many. */
const EVICTED_KEYS = 10_000;

interface FileMemory {
  /** line → packed value: `print * 256 + hash` (≥ 0), or `-1 - hash` when only the hash is known. */
  lines: Map<number, number>;
  /** Some lines of this file were forgotten to bound memory. */
  evicted: boolean;
}

export class ShownLines {
  /** Least recently shown first; within a file, least recently shown lines first. */
  private files = new Map<string, FileMemory>();
  /** Files forgotten whole to bound memory (their next memory starts as evicted). */
  private evictedKeys = new Set<string>();
  private totalLines = 0;

  constructor(
    private readonly maxBytes: number = DEFAULT_SHOWN_BYTES,
    private readonly maxLinesPerFile: number = 20_000,
  ) {}

  /** Estimated bytes held now (what `maxBytes` bounds). */
  get bytes(): number {
    return this.totalLines * SHOWN_LINE_BYTES + this.files.size * SHOWN_FILE_BYTES;
  }

  /** Records that lines `firstLine…` of `key` were shown with these hashes. */
  record(key: string, firstLine: number, hashes: readonly number[]): void {
    this.put(key, firstLine, hashes.length, (i) => -1 - hashes[i]!);
  }

  /**
   * Like `record`, with each line's 32-bit content fingerprint too: it catches a line that
   * changed but kept its 8-bit hash (1 in 256). Lines recorded with `record` (hashes only) drop
   * any fingerprint they had.
   */
  recordWithPrints(
    key: string,
    firstLine: number,
    hashes: readonly number[],
    fingerprints: readonly number[],
  ): void {
    this.put(
      key,
      firstLine,
      hashes.length,
      (i) => fingerprints[i] === undefined ? -1 - hashes[i]! : fingerprints[i]! * 256 + hashes[i]!,
    );
  }

  /**
   * A whole-file view: forgets what was shown of `key`, then records every line of `lines` with
   * its fingerprint. A re-view of an unchanged file finds its memory already holding exactly
   * that and only marks it most recently shown: rebuilding it would replace a long-lived Map
   * per re-view, garbage that outlives the young generation (issue 26).
   */
  recordWholeFile(key: string, lines: readonly string[]): void {
    const file = this.files.get(key);
    if (file && this.holdsWholeFile(file, lines) && this.bytes <= this.maxBytes) {
      this.files.delete(key);
      this.files.set(key, file);
      return;
    }
    this.forget(key);
    this.put(key, 1, lines.length, (i) => wholeLineValue(lines[i]!));
  }

  /** The file's memory is lines 1…n of `lines` in that order, each with its fingerprint. */
  private holdsWholeFile(file: FileMemory, lines: readonly string[]): boolean {
    if (file.evicted || file.lines.size !== lines.length) return false;
    let n = 1;
    for (const [line, value] of file.lines) {
      if (line !== n || value !== wholeLineValue(lines[n - 1]!)) return false;
      n++;
    }
    return true;
  }

  private put(key: string, firstLine: number, count: number, valueAt: (i: number) => number) {
    let file = this.files.get(key);
    if (file) this.files.delete(key);
    else {
      file = { lines: new Map(), evicted: this.evictedKeys.delete(key) };
    }
    this.files.set(key, file); // re-insert: most recently shown last
    const lines = file.lines;
    for (let i = 0; i < count; i++) {
      const line = firstLine + i;
      if (lines.delete(line)) this.totalLines--;
      lines.set(line, valueAt(i));
      this.totalLines++;
    }
    while (lines.size > this.maxLinesPerFile) this.dropOldestLine(file);
    // Oldest first: whole files shown longest ago, then this file's oldest lines. An evicted
    // line is verified by its hash alone, as when nothing was shown (see ShownMemory.evicted).
    while (this.bytes > this.maxBytes) {
      const [oldestKey, oldest] = this.files.entries().next().value!;
      if (oldest !== file) {
        this.files.delete(oldestKey);
        this.totalLines -= oldest.lines.size;
        this.noteEvicted(oldestKey);
      } else if (lines.size > 0) {
        this.dropOldestLine(file);
      } else break;
    }
  }

  private dropOldestLine(file: FileMemory): void {
    const line = file.lines.keys().next().value!;
    file.lines.delete(line);
    file.evicted = true;
    this.totalLines--;
  }

  private noteEvicted(key: string): void {
    this.evictedKeys.add(key);
    if (this.evictedKeys.size > EVICTED_KEYS) {
      this.evictedKeys.delete(this.evictedKeys.values().next().value!);
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
    const v = this.files.get(key)?.lines.get(line);
    return v === undefined || v < 0 ? undefined : Math.floor(v / 256);
  }

  /** After a write, the file's old line numbers mean nothing: forget them, then record anew. */
  replaceFile(key: string, hashes: readonly number[], firstLine = 1): void {
    this.forget(key);
    this.record(key, firstLine, hashes);
  }

  forget(key: string): void {
    const file = this.files.get(key);
    if (file) this.totalLines -= file.lines.size;
    this.files.delete(key);
    this.evictedKeys.delete(key);
  }

  /** The hash shown for a line, or undefined when that line was never shown (or was evicted). */
  shownHash(key: string, line: number): number | undefined {
    const v = this.files.get(key)?.lines.get(line);
    return v === undefined ? undefined : v < 0 ? -1 - v : v % 256;
  }

  /**
   * Whether every remembered line of `key` is what `lines` hold now (hash, and fingerprint when
   * known): false when the file changed since those lines were shown.
   */
  agreesWith(key: string, lines: readonly string[]): boolean {
    const file = this.files.get(key);
    if (!file) return true;
    for (const [n, v] of file.lines) {
      const line = lines[n - 1];
      if (line === undefined) return false;
      if (v < 0 ? -1 - v !== hashLine(line) : Math.floor(v / 256) !== linePrint(line)) return false;
    }
    return true;
  }

  hasFile(key: string): boolean {
    return this.files.has(key);
  }

  /**
   * True when lines of this file were forgotten to bound memory: a line with no memory may have
   * been shown, so it is verified by its hash alone instead of being refused as never shown.
   */
  evictedFrom(key: string): boolean {
    return this.files.get(key)?.evicted ?? this.evictedKeys.has(key);
  }
}
