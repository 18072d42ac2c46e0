// Whether bytes are well-formed UTF-8, by the same rules as a fatal TextDecoder (WHATWG): no
// overlong forms, no surrogates, nothing past U+10FFFF, no cut sequence; with the line feeds
// counted in the same pass. A ranged view of a long file checks the whole file this way and
// decodes only the lines it shows: decoding all of it made a string of the file's size per view
// (10,000 views of 2,000-line files: ~110 KB each).

/** What one pass over a UTF-8 body found. */
interface Utf8Lines {
  /** A fatal UTF-8 TextDecoder would decode the bytes without throwing. */
  wellFormed: boolean;
  /** How many line feeds (0x0A) the bytes hold; only when well-formed (the pass stops early). */
  lineFeeds: number;
  /** Some line feed follows a carriage return (a CRLF line end); only when well-formed. */
  crlf: boolean;
}

/**
 * Checks `bytes` as UTF-8 and counts their line feeds in one pass. Pure JavaScript (lib/core
 * imports no runtime module); an ASCII byte costs a comparison or two.
 *
 * @example
 * ```ts
 * scanUtf8Lines(new TextEncoder().encode("héllo\r\nwörld\n")); // { wellFormed: true, lineFeeds: 2, crlf: true }
 * scanUtf8Lines(new Uint8Array([0xc0, 0x80])).wellFormed; // false: an overlong NUL
 * ```
 */
export function scanUtf8Lines(bytes: Uint8Array): Utf8Lines {
  const n = bytes.length;
  let lineFeeds = 0;
  let crlf = false;
  let i = 0;
  // Four bytes at a time where they are aligned (most of a long file): a run of ASCII words is
  // checked, and its line feeds counted, without a branch per byte. The rest, byte by byte.
  const words = alignedWords(bytes);
  while (i < n) {
    if (words && (i & 3) === words.skew) {
      const view = words.view;
      let k = (i - words.skew) >>> 2;
      for (; k < view.length; k++) {
        const w = view[k]!;
        if ((w & 0x80808080) !== 0) break;
        const x = w ^ 0x0a0a0a0a;
        // Whether some byte is zero (which ones it marks can be off: zeroBytes counts them).
        if (((x - 0x01010101) & ~x & 0x80808080) === 0) continue;
        const feeds = zeroBytes(x);
        if (feeds === 0) continue;
        lineFeeds += feeds;
        if (!crlf) crlf = hasCrlfAround(bytes, words.skew + k * 4);
      }
      i = words.skew + k * 4;
      if (i >= n) break;
    }
    const b = bytes[i]!;
    if (b < 0x80) {
      if (b === 0x0a) {
        lineFeeds++;
        if (i > 0 && bytes[i - 1] === 0x0d) crlf = true;
      }
      i++;
      continue;
    }
    const length = sequenceLength(bytes, i, n);
    if (length === 0) return { wellFormed: false, lineFeeds, crlf };
    i += length;
  }
  return { wellFormed: true, lineFeeds, crlf };
}

/** A 32-bit view of the aligned middle of some bytes; `skew`: the byte index it starts at. */
export interface AlignedWords {
  view: Uint32Array;
  skew: number;
}

/** The aligned words of `bytes` (null when too short to be worth it). */
export function alignedWords(bytes: Uint8Array): AlignedWords | null {
  if (bytes.length < 64) return null;
  const pad = (4 - (bytes.byteOffset & 3)) & 3;
  const count = (bytes.length - pad) >>> 2;
  return { view: new Uint32Array(bytes.buffer, bytes.byteOffset + pad, count), skew: pad };
}

/** How many of the word's four bytes are zero (exact: no carry between bytes). */
export function zeroBytes(x: number): number {
  const low7 = (x & 0x7f7f7f7f) + 0x7f7f7f7f;
  const zeros = ~(low7 | x | 0x7f7f7f7f) >>> 7; // bit 0 of each byte: that byte was zero
  return Math.imul(zeros, 0x01010101) >>> 24;
}

/** Whether a line feed in the four bytes at `i` follows a carriage return. */
function hasCrlfAround(bytes: Uint8Array, i: number): boolean {
  for (let k = i; k < i + 4; k++) {
    if (bytes[k] === 0x0a && k > 0 && bytes[k - 1] === 0x0d) return true;
  }
  return false;
}

/** The length of the well-formed multi-byte sequence at `i` (lead byte >= 0x80), else 0. */
function sequenceLength(bytes: Uint8Array, i: number, n: number): number {
  const b = bytes[i]!;
  const cont = (at: number) => at < n && (bytes[at]! & 0xc0) === 0x80;
  if (b >= 0xc2 && b <= 0xdf) return cont(i + 1) ? 2 : 0;
  if (b >= 0xe0 && b <= 0xef) {
    if (i + 1 >= n) return 0;
    const second = bytes[i + 1]!;
    // E0 needs A0-BF (no overlong), ED needs 80-9F (no surrogate).
    const low = b === 0xe0 ? 0xa0 : 0x80;
    const high = b === 0xed ? 0x9f : 0xbf;
    if (second < low || second > high) return 0;
    return cont(i + 2) ? 3 : 0;
  }
  if (b >= 0xf0 && b <= 0xf4) {
    if (i + 1 >= n) return 0;
    const second = bytes[i + 1]!;
    // F0 needs 90-BF (no overlong), F4 needs 80-8F (nothing past U+10FFFF).
    const low = b === 0xf0 ? 0x90 : 0x80;
    const high = b === 0xf4 ? 0x8f : 0xbf;
    if (second < low || second > high) return 0;
    return cont(i + 2) && cont(i + 3) ? 4 : 0;
  }
  return 0; // a continuation byte, C0/C1 (always overlong) or F5-FF
}
