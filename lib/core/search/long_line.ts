// A line longer than one piece of match_bytes.ts's scan, read without building it as one string:
// whether its pieces may hold a match (the needle, or a probe window, across the seams too),
// where its pieces lie in the file, and how search output shows it (a window around the match
// or its head, its length and print) from its bytes read again. Pure and self-contained like
// line_matcher.ts: the search's workers run these from their source text.

import {
  fingerprintMore,
  type LineMatchers,
  type MatchOptions,
  newLineScan,
  showLine,
  type ShownLine,
} from "./line_matcher.ts";
import { windowBounds } from "./line_window.ts";

/**
 * A line longer than one piece, while it is read: whether it may match (and where a literal
 * search's needle first is), and where its pieces are, to read any part of it again.
 */
export interface LongLine {
  /** Its start, in the piece before (already in the scan's text). */
  head: string;
  /** Where each piece after `head` starts, in the file and in the line (characters). */
  byteMarks: number[];
  charMarks: number[];
  /** Where the pieces end in the file: the line's last piece (ending) is in memory. */
  to: number;
  /** Characters so far, and the last of them (a CR before the line's LF is not shown). */
  length: number;
  last: number;
  /** Its last characters, where a needle or a probe's match may start before a seam. */
  tail: string;
  candidate: boolean;
  /** Where the needle is first, when it is found. */
  matchAt: number;
}

export function openLongLine(m: LineMatchers, head: string): LongLine {
  const line: LongLine = {
    head,
    byteMarks: [],
    charMarks: [],
    to: 0,
    length: 0,
    last: -1,
    tail: "",
    candidate: false,
    matchAt: -1,
  };
  feedLongLine(line, m, head);
  return line;
}

/**
 * Adds the line's next characters: a candidate once they hold the needle, or once a probe
 * passes on them with the characters before them that a match (and one character on each side,
 * for \b) may span, as nextCandidate's overlapping windows do.
 */
export function feedLongLine(line: LongLine, m: LineMatchers, part: string): void {
  const before = line.length;
  line.length += part.length;
  if (part.length > 0) line.last = part.charCodeAt(part.length - 1);
  if (line.candidate || part.length === 0) return;
  if (m.needle) {
    // A match across the seam starts in the tail, so before any in the part.
    const seam = m.needle(line.tail + part.slice(0, m.needleLength - 1), 0);
    const inPart = seam === -1 ? m.needle(part, 0) : -1;
    if (seam !== -1) line.matchAt = before - line.tail.length + seam;
    else if (inPart !== -1) line.matchAt = before + inPart;
    line.candidate = line.matchAt !== -1;
    const keep = line.tail + part;
    line.tail = keep.slice(Math.max(0, keep.length - (m.needleLength - 1)));
    return;
  }
  const window = line.tail + part;
  line.candidate = (m.crMayHide && window.includes("\r")) || m.probe!(window);
  line.tail = window.slice(Math.max(0, window.length - (m.probeWidth! + 2)));
}

/** Characters `[a, b)` of the line, its pieces read again as needed. */
export function longLineSlice(
  line: LongLine,
  ending: string,
  a: number,
  b: number,
  read: (from: number, to: number) => string,
): string {
  const { head, byteMarks, charMarks } = line;
  const endingAt = line.length - ending.length;
  let out = a < head.length ? head.slice(a, Math.min(b, head.length)) : "";
  const from = Math.max(a, head.length);
  if (charMarks.length > 0 && from < Math.min(b, endingAt)) {
    let i = 0;
    while (i + 1 < charMarks.length && charMarks[i + 1]! <= from) i++;
    let j = i + 1;
    while (j < charMarks.length && charMarks[j]! < b) j++;
    const text = read(byteMarks[i]!, j < byteMarks.length ? byteMarks[j]! : line.to);
    out += text.slice(from - charMarks[i]!, Math.min(b, endingAt) - charMarks[i]!);
  }
  if (b > endingAt) out += ending.slice(Math.max(0, a - endingAt), b - endingAt);
  return out;
}

/**
 * A long line that was not decoded whole, as showLine shows it: remembered while context may
 * show it; for a literal search's match, also how it is shown as one. The caller counts it.
 */
export function deferLongLine(
  s: ReturnType<typeof newLineScan>,
  m: LineMatchers,
  o: MatchOptions,
  line: LongLine,
  ending: string,
  broken: boolean,
  read: (from: number, to: number) => string,
): void {
  const n = s.line;
  const length = broken && line.last === 13 ? line.length - 1 : line.length;
  const slice = (a: number, b: number) => (" " + longLineSlice(line, ending, a, b, read)).slice(1);
  const print = () => {
    let h = fingerprintMore(2166136261, line.head.slice(0, length));
    for (let i = 0; i < line.byteMarks.length; i++) {
      const to = i + 1 < line.byteMarks.length ? line.byteMarks[i + 1]! : line.to;
      const part = read(line.byteMarks[i]!, to);
      h = fingerprintMore(h, part.slice(0, Math.max(0, length - line.charMarks[i]!)));
    }
    const endingAt = line.length - ending.length;
    return fingerprintMore(h, ending.slice(0, Math.max(0, length - endingAt))) >>> 0;
  };
  const shown = (matched: boolean): ShownLine => {
    if (length <= o.maxChars) return { n, text: slice(0, length) };
    const from = matched ? line.matchAt : 0;
    const to = matched ? from + m.needleLength : 0;
    const [a, b] = windowBounds(length, from, to, o.maxChars);
    const offset = Math.max(0, a - 1);
    const text = slice(offset, Math.min(length, b + 1));
    return { n, text, long: { offset, length, print: print(), from, to } };
  };
  // Only the last `context` lines may still be shown as a later match's context: the list stays
  // that short (each entry holds the line's marks, never its text).
  s.deferred = s.deferred.filter((d) => d.n >= n - o.context);
  s.deferred.push({ n, shown });
  if (!line.candidate && n <= s.afterUntil) showLine(s, null, o, "", false);
}
