// One file's bytes to what a search finds in it (line_matcher.ts), read chunk by chunk: the
// encoding is decided as core/text/text_file.ts decodeText decides it, and only one chunk of text
// (plus the context lines before it and a line cut at its end) is held at a time. Pure and
// self-contained like line_matcher.ts: the search's workers run these from their source text.

import { decodeLatin1 } from "../text/text_file.ts";
import { matcherFromRecipe } from "./linear_regex.ts";
import { windowBounds } from "./line_window.ts";
import {
  type FileScan,
  fingerprint,
  fingerprintMore,
  keepMatch,
  type LineMatchers,
  type MatchOptions,
  newLineScan,
  nextCandidate,
  openMatchers,
  passLines,
  scanLines,
  showLine,
  type ShownLine,
} from "./line_matcher.ts";

// Exported for tests.
/**
 * The bytes of a file from `position` on (some of them), empty at the end. An answer may reuse
 * the memory of the one before.
 */
export type ReadAt = (position: number) => Uint8Array;

/**
 * What one file holds: "binary" for a NUL in its first 8 KiB (no UTF-16 byte order mark), or
 * when decoding fails (UTF-16 with an odd byte count; invalid UTF-8 after a UTF-8 BOM or with
 * many control bytes, then only when its Latin-1 reading matches); else its matches, read as
 * UTF-8, as UTF-16 after a BOM, or as Latin-1 when it is not valid UTF-8.
 */
export function matchBytes(
  readAt: ReadAt,
  m: LineMatchers,
  o: MatchOptions,
  stopped: () => boolean,
  /** The file's size when known: the last chunk is then decoded as such, without a read more. */
  size = Infinity,
): FileScan {
  const SNIFF_BYTES = 8192;
  // A copy of the head: readAt may reuse its memory.
  let head = readAt(0).slice(0, SNIFF_BYTES + 3);
  while (head.length < SNIFF_BYTES + 3 && head.length < size) {
    const more = readAt(head.length);
    if (more.length === 0) break;
    const joined = new Uint8Array(Math.min(head.length + more.length, SNIFF_BYTES + 3));
    joined.set(head);
    joined.set(more.subarray(0, joined.length - head.length), head.length);
    head = joined;
  }
  if (head.length === 0) return "miss";
  const le = head[0] === 0xff && head[1] === 0xfe;
  if (le || (head[0] === 0xfe && head[1] === 0xff)) {
    let read = 0;
    const counted: ReadAt = (position) => {
      const bytes = readAt(position);
      read = position + bytes.length;
      return bytes;
    };
    const found = scanDecoded(counted, le ? "utf-16le" : "utf-16be", 2, m, o, stopped, size);
    return found === "invalid" || (found !== "stopped" && read % 2 === 1) ? "binary" : found;
  }
  const sniff = head.subarray(0, SNIFF_BYTES);
  if (sniff.includes(0)) return "binary";
  const bom = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf;
  const found = scanDecoded(readAt, "utf-8", bom ? 3 : 0, m, o, stopped, size);
  if (found !== "invalid") return found;
  // Latin-1 decodes any bytes: never "invalid".
  const latin1 = scanDecoded(readAt, "latin1", bom ? 3 : 0, m, o, stopped, size) as FileScan;
  let control = 0;
  for (const b of sniff) {
    if (b < 0x20 && b !== 9 && b !== 10 && b !== 13 && b !== 12 && b !== 27) control++;
  }
  if (!bom && control * 10 <= sniff.length) return latin1;
  return typeof latin1 === "object" ? "binary" : latin1;
}

/**
 * Decodes the file in `encoding` (from byte `skip`, after a byte order mark) a piece of at most
 * 32 KiB at a time and scans each piece's whole lines; "invalid" when the bytes are not valid
 * UTF-8 (for "utf-8"). Small pieces keep every string this makes in V8's young generation, so a
 * worker's heap does not grow with the big files it meets; UTF-8 pieces are cut before a
 * character, and decoded by the fast single-pass decoder (the strict one confirms a U+FFFD).
 */
function scanDecoded(
  readAt: ReadAt,
  encoding: "utf-8" | "utf-16le" | "utf-16be" | "latin1",
  skip: number,
  m: LineMatchers,
  o: MatchOptions,
  stopped: () => boolean,
  size: number,
): FileScan | "invalid" {
  const PIECE = 32768;
  const wide = encoding === "utf-8" || encoding === "latin1"
    ? null
    : new TextDecoder(encoding, { ignoreBOM: true });
  const s = newLineScan(o.room);
  // The context lines before `start`, then the start of a line not ended yet; `long` holds the
  // pieces of a line longer than one piece until it ends, or `longLine` where its bytes are.
  let text = "";
  let start = 0;
  const long: string[] = [];
  const decode = encoding === "latin1" ? decodeLatin1 : (b: Uint8Array) => m.utf8.decode(b);
  // A line longer than one piece is decoded whole only when a regex must test it: when its
  // pieces show it cannot match (no needle in them, or no probe window passes), or a literal
  // search finds its needle in them, its text is never built; what is shown of it (a window,
  // its length and print) is read again from its bytes (minified files and source maps are
  // lines of megabytes, which as one string cost twice that and more in V8's large objects).
  // A read back may reuse the memory of the current chunk: `readBack` says to read it again.
  let readBack = false;
  // The last read's bytes, good until the next read.
  let readFrom = -1;
  let readBytes: Uint8Array = new Uint8Array(0);
  const read = (from: number) => {
    readFrom = from;
    readBytes = readAt(from);
    return readBytes;
  };
  const bytesOf = (from: number, to: number): Uint8Array => {
    if (readFrom !== -1 && readFrom <= from && to <= readFrom + readBytes.length) {
      return readBytes.subarray(from - readFrom, to - readFrom);
    }
    readBack = true;
    const first = read(from);
    if (first.length >= to - from) return first.subarray(0, to - from);
    const out = new Uint8Array(to - from);
    let got = 0;
    for (let b = first; got < out.length && b.length > 0; b = read(from + got)) {
      const n = Math.min(b.length, out.length - got);
      out.set(b.subarray(0, n), got);
      got += n;
    }
    return out.subarray(0, got);
  };
  const readText = (from: number, to: number) => decode(bytesOf(from, to));
  const summarize = !wide &&
    (m.needle
      ? !m.needleSpansLines && m.needleLength > 0
      : m.probe !== null && m.probeWidth !== null && m.probeWidth + 2 < PIECE);
  let longLine: LongLine | null = null;
  for (let position = skip;;) {
    if (stopped()) return "stopped";
    // A deferred line stays only while context may show it (its bytes are kept with it).
    if (s.deferred.length > 0 && s.deferred[0]!.n < s.line - o.context) {
      s.deferred = s.deferred.filter((d) => d.n >= s.line - o.context);
    }
    let chunk: Uint8Array = read(position);
    let final = chunk.length === 0 || position + chunk.length >= size;
    let used = 0;
    while (used < chunk.length || final) {
      const last = final && used + PIECE >= chunk.length;
      const to = last ? chunk.length : pieceEnd(chunk, used, used + PIECE, encoding);
      if (to === used && !last) {
        if (used > 0) break; // a character cut by the read's end: read on from its start
        const more = chunk.slice();
        const next = read(position + more.length);
        chunk = new Uint8Array(more.length + next.length);
        chunk.set(more);
        chunk.set(next, more.length);
        final = next.length === 0 || position + chunk.length >= size;
        continue;
      }
      const bytes = chunk.subarray(used, to);
      used = to;
      let piece: string;
      if (wide) piece = wide.decode(bytes, { stream: !last });
      else if (encoding === "latin1") piece = decodeLatin1(bytes);
      else {
        piece = m.utf8.decode(bytes);
        if (piece.includes("\uFFFD")) {
          try {
            m.utf8Strict.decode(bytes);
          } catch {
            return "invalid";
          }
        }
      }
      const nl = piece.lastIndexOf("\n");
      if (nl === -1 && !last) {
        if (!summarize) long.push(piece);
        else {
          longLine ??= openLongLine(m, text.slice(start));
          longLine.byteMarks.push(position + used - bytes.length);
          longLine.charMarks.push(longLine.length);
          feedLongLine(longLine, m, piece);
          longLine.to = position + used;
        }
        continue;
      }
      let whole: string;
      // The part of `piece` at the end of `whole`.
      let rest = piece;
      if (longLine !== null) {
        const lineEnd = nl === -1 ? piece.length : piece.indexOf("\n");
        const ending = piece.slice(0, lineEnd);
        feedLongLine(longLine, m, ending);
        if (longLine.candidate && !m.needleDecides) {
          whole = text + readText(longLine.byteMarks[0]!, longLine.to) + piece;
        } else {
          deferLongLine(s, m, o, longLine, ending, nl !== -1, readText);
          if (longLine.candidate) keepMatch(s, m, o, text, start, "");
          s.line++;
          rest = piece.slice(lineEnd + 1);
          whole = text.slice(0, start) + "\n" + rest;
          start++;
        }
        longLine = null;
      } else whole = long.length > 0 ? text + long.join("") + piece : text + piece;
      long.length = 0;
      const end = last ? whole.length : whole.length - rest.length + rest.lastIndexOf("\n") + 1;
      if (end > start) scanLines(s, m, o, whole, start, end, last);
      if (last) break;
      if (readBack) {
        readBack = false;
        chunk = bytesOf(position, position + chunk.length);
        readBack = false;
        final = chunk.length === 0 || position + chunk.length >= size;
      }
      // Keep the `context` lines before `end` (a match in the next piece shows them) and the
      // start of the line after it.
      let keep = end;
      for (let k = 0; k < o.context && keep > 0; k++) {
        keep = keep >= 2 ? whole.lastIndexOf("\n", keep - 2) + 1 : 0;
      }
      text = whole.slice(keep);
      start = end - keep;
    }
    if (final) break;
    position += used;
  }
  if (s.count === 0) return "miss";
  const { count, kept, next, shown, truncated } = s;
  return { count, kept, next, lineCount: s.line - 1, shown, truncated };
}

/**
 * A line longer than one piece, while it is read: whether it may match (and where a literal
 * search's needle first is), and where its pieces are, to read any part of it again.
 */
interface LongLine {
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

function openLongLine(m: LineMatchers, head: string): LongLine {
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
function feedLongLine(line: LongLine, m: LineMatchers, part: string): void {
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
function longLineSlice(
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
function deferLongLine(
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
  s.deferred = s.deferred.filter((d) => d.n >= n - o.context);
  s.deferred.push({ n, shown });
  if (!line.candidate && n <= s.afterUntil) showLine(s, null, o, "", false);
}

// Exported for tests.
/**
 * Where a piece of `chunk` from `from` may end, at most at `to`: for UTF-8, before a character
 * that `to` would cut (one whose first byte is at or after `from`; a read's last bytes are
 * left for the next read when they start a character they do not finish). Cutting before a
 * character's first byte leaves the bytes valid or invalid as they were whole.
 */
export function pieceEnd(chunk: Uint8Array, from: number, to: number, encoding: string): number {
  if (to >= chunk.length) to = chunk.length;
  if (encoding !== "utf-8") return to;
  if (to < chunk.length) {
    for (let k = 0; k < 3 && to > from && (chunk[to]! & 0xc0) === 0x80; k++) to--;
    return to;
  }
  let lead = to - 1;
  for (let k = 0; k < 3 && lead > from && (chunk[lead]! & 0xc0) === 0x80; k++) lead--;
  const b = chunk[lead]!;
  const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
  return lead >= from && lead + need > to ? lead : to;
}

/** matchBytes on bytes already in memory, a mebibyte of text at a time. */
export function matchData(data: Uint8Array, m: LineMatchers, o: MatchOptions): FileScan {
  const CHUNK = 1024 * 1024;
  const readAt = (position: number) => data.subarray(position, position + CHUNK);
  return matchBytes(readAt, m, o, () => false, data.length);
}

/**
 * Every function the matching needs, for a worker thread's source text: each is written out as
 * a declaration (`String(f)`), under the name it has here (a bundler's renaming included).
 */
export const MATCHER_FUNCTIONS: readonly ((...args: never[]) => unknown)[] = [
  matcherFromRecipe,
  openMatchers,
  newLineScan,
  nextCandidate,
  scanLines,
  passLines,
  keepMatch,
  showLine,
  fingerprint,
  fingerprintMore,
  windowBounds,
  decodeLatin1,
  scanDecoded,
  openLongLine,
  feedLongLine,
  longLineSlice,
  deferLongLine,
  pieceEnd,
  matchBytes,
];
