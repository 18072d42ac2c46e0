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
 * Decodes the file chunk by chunk in `encoding` (after `skip` bytes of byte order mark) and
 * scans each chunk's whole lines; "invalid" when the bytes are not valid UTF-8 (for "utf-8").
 */
export function scanDecoded(
  readAt: ReadAt,
  encoding: "utf-8" | "utf-16le" | "utf-16be" | "latin1",
  skip: number,
  m: LineMatchers,
  o: MatchOptions,
  stopped: () => boolean,
  size: number,
): FileScan | "invalid" {
  const decoder = encoding === "latin1"
    ? null
    : new TextDecoder(encoding, { fatal: encoding === "utf-8", ignoreBOM: true });
  const s = newLineScan(o.room);
  let text = "";
  let start = 0;
  for (let position = 0;;) {
    if (stopped()) return "stopped";
    const chunk = readAt(position);
    const bytes = position < skip ? chunk.subarray(skip - position) : chunk;
    position += chunk.length;
    const final = chunk.length === 0 || position >= size;
    try {
      text += decoder ? decoder.decode(bytes, { stream: !final }) : decodeLatin1(bytes);
    } catch {
      return "invalid";
    }
    const end = final ? text.length : text.lastIndexOf("\n") + 1;
    if (end > start) scanLines(s, m, o, text, start, end, final);
    if (final) break;
    if (end <= start) continue; // one line longer than the chunk: read on
    // Keep the `context` lines before `end` (a match in the next chunk shows them) and the
    // start of the line after it.
    let keep = end;
    for (let k = 0; k < o.context && keep > 0; k++) {
      keep = keep >= 2 ? text.lastIndexOf("\n", keep - 2) + 1 : 0;
    }
    text = text.slice(keep);
    start = end - keep;
  }
  if (s.count === 0) return "miss";
  const { count, kept, next, shown, truncated } = s;
  return { count, kept, next, lineCount: s.line - 1, shown, truncated };
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
  windowBounds,
  decodeLatin1,
  scanDecoded,
  matchBytes,
];
