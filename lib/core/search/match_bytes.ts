// One file's bytes to what a search finds in it (line_matcher.ts), read chunk by chunk: the
// encoding is decided as core/text/text_file.ts decodeText decides it, and only one chunk of text
// (plus the context lines before it and a line cut at its end) is held at a time; a line longer
// than a piece is read as long_line.ts says, never as one string unless a regex must test it.
// Pure and self-contained like line_matcher.ts: the search's workers run these from their
// source text.

import { decodeLatin1 } from "../text/text_file.ts";
import { matcherFromRecipe } from "./linear_regex.ts";
import {
  deferLongLine,
  feedLongLine,
  type LongLine,
  longLineSlice,
  openLongLine,
} from "./long_line.ts";
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
} from "./line_matcher.ts";

// Exported for tests.
/**
 * The bytes of a file from `position` on (some of them), empty at the end. An answer may reuse
 * the memory of the one before.
 */
export type ReadAt = (position: number) => Uint8Array;

/**
 * What a search's worker can tell from a chunk's raw bytes (simd_find.ts's finder, bound to the
 * search's literal: bytes every match holds, with no LF): enough to count the lines that cannot
 * match without decoding them. Each answers null when it cannot tell (bytes not in its memory).
 */
export interface ByteLines {
  /** Where the literal first starts in `bytes[from, to)`, or -1. */
  indexIn(bytes: Uint8Array, from: number, to: number): number | null;
  /** n, how many LF bytes `bytes[from, to)` holds, or -1 - n when one of them is not ASCII. */
  lines(bytes: Uint8Array, from: number, to: number): number | null;
}

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
  /** The literal's finder, when the caller has one: lines without it are counted, not decoded. */
  byteLines?: ByteLines,
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
  // Not for a needle across lines: a match would not be within one of the lines counted.
  const lines = m.needleSpansLines ? undefined : byteLines;
  const found = scanDecoded(readAt, "utf-8", bom ? 3 : 0, m, o, stopped, size, lines);
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
  byteLines?: ByteLines,
): FileScan | "invalid" {
  const PIECE = 32768;
  const wide = encoding === "utf-8" || encoding === "latin1"
    ? null
    : new TextDecoder(encoding, { ignoreBOM: true });
  const reads = openReads(readAt);
  const decode = encoding === "latin1" ? decodeLatin1 : (b: Uint8Array) => m.utf8.decode(b);
  const p: PieceScan = {
    s: newLineScan(o.room),
    text: "",
    start: 0,
    long: [],
    longLine: null,
    // A line longer than one piece is decoded whole only when a regex must test it: when its
    // pieces show it cannot match (no needle in them, or no probe window passes), or a literal
    // search finds its needle in them, its text is never built; what is shown of it (a window,
    // its length and print) is read again from its bytes (minified files and source maps are
    // lines of megabytes, which as one string cost twice that and more in V8's large objects).
    summarize: !wide &&
      (m.needle
        ? !m.needleSpansLines && m.needleLength > 0
        : m.probe !== null && m.probeWidth !== null && m.probeWidth + 2 < PIECE),
    readText: (from, to) => decode(reads.bytesOf(from, to)),
    byteLines: byteLines ?? null,
  };
  const s = p.s;
  for (let position = skip;;) {
    if (stopped()) return "stopped";
    let chunk: Uint8Array = reads.read(position);
    let final = chunk.length === 0 || position + chunk.length >= size;
    let used = 0;
    while (used < chunk.length || final) {
      let last = final && used + PIECE >= chunk.length;
      let to = last ? chunk.length : pieceEnd(chunk, used, used + PIECE, encoding);
      const cut = pendingLineEnd(p, chunk, used, to);
      if (cut < to) [to, last] = [cut, false];
      if (to === used && !last) {
        if (used > 0) break; // a character cut by the read's end: read on from its start
        const more = chunk.slice();
        const next = reads.read(position + more.length);
        chunk = new Uint8Array(more.length + next.length);
        chunk.set(more);
        chunk.set(next, more.length);
        final = next.length === 0 || position + chunk.length >= size;
        continue;
      }
      const skipped = skipLines(p, m, o, chunk, used, to);
      if (skipped > used) {
        used = skipped;
        continue;
      }
      const piece = decodePiece(chunk.subarray(used, to), encoding, wide, m, last);
      if (piece === null) return "invalid";
      takePiece(p, m, o, piece, position + used, position + to, last);
      used = to;
      if (last) break;
      // A long line read back may have reused the chunk's memory.
      if (reads.readBack) {
        chunk = reads.bytesOf(position, position + chunk.length);
        reads.readBack = false;
        final = chunk.length === 0 || position + chunk.length >= size;
      }
    }
    if (final) break;
    position += used;
  }
  if (s.count === 0) return "miss";
  const { count, kept, next, shown, truncated } = s;
  return { count, kept, next, lineCount: s.line - 1, shown, truncated };
}

/** What scanDecoded carries from one piece to the next. */
interface PieceScan {
  s: ReturnType<typeof newLineScan>;
  /** The context lines before `start`, then the start of a line not ended yet. */
  text: string;
  start: number;
  /** The pieces of a line longer than one piece, until it ends (when not summarized). */
  long: string[];
  /** Such a line, summarized: where its bytes are and whether it may match. */
  longLine: LongLine | null;
  summarize: boolean;
  /** The text of the file's bytes `[from, to)`, read again. */
  readText: (from: number, to: number) => string;
  /** For UTF-8 bytes and a literal that no match spans lines with: see skipLines. */
  byteLines: ByteLines | null;
}

/**
 * Whether the scan may count lines on the bytes here: it has the literal's finder, no long line
 * is being read, and no match's after-context is still to show.
 */
function countsOnBytes(p: PieceScan): p is PieceScan & { byteLines: ByteLines } {
  return p.byteLines !== null && p.longLine === null && p.long.length === 0 &&
    p.s.line > p.s.afterUntil;
}

/**
 * Counts the whole lines at the start of `chunk[from, to)` that cannot match and moves the scan
 * past them without decoding them (most of a big file a literal search found its needle in:
 * they were 40 % of a worker's node_modules search); where the scan goes on, `from` when there
 * are none. Those lines are ASCII (so valid UTF-8 as they are) or checked valid UTF-8, before
 * the first line holding the literal (no match can be in a line without it), less the `context`
 * lines just before that (a match may show them, and the next piece's first line may be one).
 * Only at a line start with nothing pending (pendingLineEnd makes one).
 */
function skipLines(
  p: PieceScan,
  m: LineMatchers,
  o: MatchOptions,
  chunk: Uint8Array,
  from: number,
  to: number,
): number {
  if (!countsOnBytes(p) || p.start !== p.text.length) return from;
  const hit = p.byteLines.indexIn(chunk, from, to);
  if (hit === null) return from;
  const limit = hit === -1 ? to : hit;
  const counted = p.byteLines.lines(chunk, from, limit);
  if (counted === null) return from;
  const count = counted < 0 ? -1 - counted : counted;
  if (count <= o.context) return from;
  let end = limit;
  for (let k = 0; k <= o.context; k++) end = chunk.lastIndexOf(10, end - 1);
  // Not all ASCII: counted only when valid UTF-8 (the piece is decoded, and found invalid, else).
  // The lines end at an LF, so they are cut between characters.
  if (counted < 0) {
    try {
      m.utf8Strict.decode(chunk.subarray(from, end + 1));
    } catch {
      return from;
    }
  }
  p.s.line += count - o.context;
  // The context lines kept before the skipped ones can no longer be shown.
  p.text = "";
  p.start = 0;
  return end + 1;
}

/**
 * Where a piece `chunk[from, to)` that continues a pending line should end: just after that
 * line's LF when the scan counts lines on bytes (skipLines), else at `to`.
 */
function pendingLineEnd(p: PieceScan, chunk: Uint8Array, from: number, to: number): number {
  if (!countsOnBytes(p) || p.start === p.text.length) return to;
  const nl = chunk.subarray(from, to).indexOf(10);
  return nl === -1 ? to : from + nl + 1;
}

/**
 * A file's reads, and reads back of a long line's bytes: served from the last read when it holds
 * them; otherwise read again, which may reuse the current chunk's memory (`readBack` says so).
 */
function openReads(readAt: ReadAt) {
  let readFrom = -1;
  let readBytes: Uint8Array = new Uint8Array(0);
  const reads = {
    readBack: false,
    read(from: number): Uint8Array {
      readFrom = from;
      readBytes = readAt(from);
      return readBytes;
    },
    bytesOf(from: number, to: number): Uint8Array {
      if (readFrom !== -1 && readFrom <= from && to <= readFrom + readBytes.length) {
        return readBytes.subarray(from - readFrom, to - readFrom);
      }
      reads.readBack = true;
      const first = reads.read(from);
      if (first.length >= to - from) return first.subarray(0, to - from);
      const out = new Uint8Array(to - from);
      let got = 0;
      for (let b = first; got < out.length && b.length > 0; b = reads.read(from + got)) {
        const n = Math.min(b.length, out.length - got);
        out.set(b.subarray(0, n), got);
        got += n;
      }
      return out.subarray(0, got);
    },
  };
  return reads;
}

/** One piece's text; null when UTF-8 bytes are not valid UTF-8. */
function decodePiece(
  bytes: Uint8Array,
  encoding: string,
  wide: TextDecoder | null,
  m: LineMatchers,
  last: boolean,
): string | null {
  if (wide) return wide.decode(bytes, { stream: !last });
  if (encoding === "latin1") return decodeLatin1(bytes);
  const piece = m.utf8.decode(bytes);
  if (piece.includes("\uFFFD")) {
    try {
      m.utf8Strict.decode(bytes);
    } catch {
      return null;
    }
  }
  return piece;
}

/**
 * Scans the whole lines that `piece` (the file's bytes `[from, to)`) ends, and keeps what the
 * next piece needs: the context lines before its first line, and that line's start.
 */
function takePiece(
  p: PieceScan,
  m: LineMatchers,
  o: MatchOptions,
  piece: string,
  from: number,
  to: number,
  last: boolean,
): void {
  const s = p.s;
  const nl = piece.lastIndexOf("\n");
  if (nl === -1 && !last) {
    if (!p.summarize) p.long.push(piece);
    else {
      p.longLine ??= openLongLine(m, p.text.slice(p.start));
      p.longLine.byteMarks.push(from);
      p.longLine.charMarks.push(p.longLine.length);
      feedLongLine(p.longLine, m, piece);
      p.longLine.to = to;
    }
    return;
  }
  let whole: string;
  // The part of `piece` at the end of `whole`.
  let rest = piece;
  const line = p.longLine;
  if (line !== null) {
    const lineEnd = nl === -1 ? piece.length : piece.indexOf("\n");
    const ending = piece.slice(0, lineEnd);
    feedLongLine(line, m, ending);
    if (line.candidate && !m.needleDecides) {
      whole = p.text + p.readText(line.byteMarks[0]!, line.to) + piece;
    } else {
      // Counted here; the text holds it as an empty line, for context (showLine asks s.deferred).
      deferLongLine(s, m, o, line, ending, nl !== -1, p.readText);
      if (line.candidate) keepMatch(s, m, o, p.text, p.start, "");
      s.line++;
      rest = piece.slice(lineEnd + 1);
      whole = p.text.slice(0, p.start) + "\n" + rest;
      p.start++;
    }
    p.longLine = null;
  } else whole = p.long.length > 0 ? p.text + p.long.join("") + piece : p.text + piece;
  p.long.length = 0;
  const end = last ? whole.length : whole.length - rest.length + rest.lastIndexOf("\n") + 1;
  if (end > p.start) scanLines(s, m, o, whole, p.start, end, last);
  if (last) return;
  // Keep the `context` lines before `end` (a match in the next piece shows them) and the
  // start of the line after it.
  let keep = end;
  for (let k = 0; k < o.context && keep > 0; k++) {
    keep = keep >= 2 ? whole.lastIndexOf("\n", keep - 2) + 1 : 0;
  }
  p.text = whole.slice(keep);
  p.start = end - keep;
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
  openReads,
  decodePiece,
  takePiece,
  countsOnBytes,
  skipLines,
  pendingLineEnd,
  openLongLine,
  feedLongLine,
  longLineSlice,
  deferLongLine,
  pieceEnd,
  matchBytes,
];
