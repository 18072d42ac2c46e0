// Lines of an undecoded UTF-8 or Latin-1 body, as splitLines would give them from its decoded
// text, decoding only the stretch of bytes that holds the lines asked for. In both encodings a
// 0x0A byte is always a line feed (never inside a multi-byte UTF-8 sequence), so lines are found
// in the bytes themselves.

import { countLines, decodeLatin1, LineCursor } from "./text_file.ts";
import { type AlignedWords, alignedWords, zeroBytes } from "./utf8_check.ts";

/** The first stretch decoded, in bytes (100 lines of 55 bytes fit); each next one is twice as long. */
const FIRST_WINDOW_BYTES = 8 * 1024;
/** The longest stretch decoded at once (a longer line is still decoded whole). */
const MAX_WINDOW_BYTES = 1024 * 1024;

/** Shared: a non-streaming decode keeps no state between calls. */
const utf8 = new TextDecoder("utf-8", { ignoreBOM: true });

const LF = 0x0a;

/**
 * Line `n` (1-based) of a UTF-8 (already checked well-formed) or Latin-1 body without its
 * terminator, like LineCursor over the decoded text. Reading lines in order walks the bytes
 * once; the text is made a window at a time, each window whole lines, so a view of 100 lines of
 * a long file decodes a few KB instead of the whole file.
 *
 * @example
 * ```ts
 * const lines = new ByteLineCursor(new TextEncoder().encode("a\r\nb\n"), "utf-8");
 * lines.at(1); // "a"
 * lines.at(3); // undefined
 * ```
 */
export class ByteLineCursor {
  /** The decoded window: bytes [start, end) hold `lineCount` lines from `firstLine` on. */
  private window: Window | null = null;
  private nextWindowBytes: number;
  private words: AlignedWords | null | undefined;

  /** `firstWindowBytes`: for tests, a small first window makes a few lines span several. */
  constructor(
    private readonly bytes: Uint8Array,
    private readonly encoding: "utf-8" | "latin1",
    firstWindowBytes = FIRST_WINDOW_BYTES,
  ) {
    this.nextWindowBytes = firstWindowBytes;
  }

  /** Line `n`'s content without its terminator; undefined past the last line. */
  at(n: number): string | undefined {
    if (n < 1) return undefined;
    let held = this.window;
    if (!held || n < held.firstLine || n >= held.firstLine + held.lineCount) {
      // Find where line n starts from the nearest known line start before it.
      const [line, offset] = held && n >= held.firstLine + held.lineCount
        ? [held.firstLine + held.lineCount, held.end]
        : held && n >= held.firstLine
        ? [held.firstLine, held.start]
        : [1, 0];
      const start = this.skipLines(offset, n - line);
      if (start === -1 || start >= this.bytes.length) return undefined;
      held = this.decodeWindow(start, n);
    }
    return held.lines.at(n - held.firstLine + 1);
  }

  /** Decodes the window of whole lines that starts at byte `start` (line `n`). */
  private decodeWindow(start: number, n: number): Window {
    const bytes = this.bytes;
    const reach = start + this.nextWindowBytes;
    this.nextWindowBytes = Math.min(this.nextWindowBytes * 2, MAX_WINDOW_BYTES);
    // The window ends after a line feed (or at the end): its last line is whole.
    const nl = reach >= bytes.length ? -1 : bytes.indexOf(LF, reach - 1);
    const end = nl === -1 ? bytes.length : nl + 1;
    const piece = bytes.subarray(start, end);
    const text = this.encoding === "utf-8" ? utf8.decode(piece) : decodeLatin1(piece);
    this.window = {
      start,
      end,
      firstLine: n,
      lineCount: countLines(text),
      lines: new LineCursor(text),
    };
    return this.window;
  }

  /**
   * The byte offset just past the `count`th line feed from `offset` (`offset` itself for 0), -1
   * when there are fewer. Four bytes at a time over the aligned words: bytes.indexOf per line
   * cost a jump to line 48,000 of a 3.8 MB file ~2 ms.
   */
  private skipLines(offset: number, count: number): number {
    const bytes = this.bytes;
    if (this.words === undefined) this.words = alignedWords(bytes);
    const words = this.words;
    let i = offset;
    let left = count;
    while (left > 0) {
      if (words && (i & 3) === words.skew) {
        const view = words.view;
        let k = (i - words.skew) >>> 2;
        for (; k < view.length; k++) {
          const x = view[k]! ^ 0x0a0a0a0a;
          if (((x - 0x01010101) & ~x & 0x80808080) === 0) continue; // no line feed
          const feeds = zeroBytes(x);
          if (feeds >= left) break; // the line starts inside this word: found byte by byte
          left -= feeds;
        }
        i = words.skew + k * 4;
      }
      if (i >= bytes.length) return -1;
      if (bytes[i++] === LF) left--;
    }
    return i;
  }
}

interface Window {
  start: number;
  end: number;
  firstLine: number;
  lineCount: number;
  lines: LineCursor;
}
