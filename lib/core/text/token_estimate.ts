// A cheap token estimate for budgeting reads: about 4 bytes of source per token. Pure.

const BYTES_PER_TOKEN = 4;

export function estimateTokens(byteLength: number): number {
  return Math.ceil(byteLength / BYTES_PER_TOKEN);
}

/**
 * Counts lines on raw bytes: LF bytes, plus one for a last line without a terminator. A UTF-16
 * file (byte order mark) counts LF code units instead, and a byte order mark alone is no line,
 * so the count matches what view shows.
 */
export function countLines(bytes: Uint8Array): number {
  const utf16 = utf16Order(bytes);
  if (utf16 !== null) return countUtf16Lines(bytes, utf16 === "le" ? 0 : 1);
  const start = hasUtf8Bom(bytes) ? 3 : 0;
  let count = countLineFeeds(bytes, start);
  if (bytes.length > start && bytes[bytes.length - 1] !== 10) count++;
  return count;
}

/**
 * LF bytes from `start` on, four at a time: each aligned 32-bit word is XORed with 0x0A0A0A0A,
 * so an LF becomes a zero byte, and the zero bytes are counted with bit arithmetic (no branch per
 * byte). About twice as fast as a byte loop on source files, which is what a listing's line
 * counts spend most of their time on; one indexOf call per line costs ~7x more (short lines).
 */
function countLineFeeds(bytes: Uint8Array, start: number): number {
  const end = bytes.length;
  let count = 0;
  let i = start;
  // Bytes before the first 4-aligned offset of the underlying buffer, one by one.
  const lead = Math.min(end, start + ((4 - ((bytes.byteOffset + start) & 3)) & 3));
  for (; i < lead; i++) if (bytes[i] === 10) count++;
  const words = (end - i) >>> 2;
  if (words > 0) {
    const view = new Uint32Array(bytes.buffer, bytes.byteOffset + i, words);
    for (let k = 0; k < words; k++) {
      const x = view[k]! ^ 0x0a0a0a0a;
      // High bit of each byte set where that byte of x is zero (exact, no carries between bytes).
      const zeros = ~(((x & 0x7f7f7f7f) + 0x7f7f7f7f) | x | 0x7f7f7f7f);
      count += Math.imul((zeros >>> 7) & 0x01010101, 0x01010101) >>> 24;
    }
    i += words * 4;
  }
  for (; i < end; i++) if (bytes[i] === 10) count++;
  return count;
}

/** Bytes of text for the token estimate: UTF-16 counts about one byte per code unit. */
export function textBytes(bytes: Uint8Array): number {
  if (utf16Order(bytes) !== null) return Math.floor((bytes.length - 2) / 2);
  return hasUtf8Bom(bytes) ? bytes.length - 3 : bytes.length;
}

function utf16Order(bytes: Uint8Array): "le" | "be" | null {
  if (bytes.length < 2) return null;
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "be";
  return null;
}

function hasUtf8Bom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

/** LF code units after the BOM; `low` is the offset of the byte holding 0x0A within a unit. */
function countUtf16Lines(bytes: Uint8Array, low: 0 | 1): number {
  const high = 1 - low;
  let count = 0;
  let lastIsLf = false;
  const end = bytes.length - ((bytes.length - 2) % 2);
  for (let i = 2; i < end; i += 2) {
    lastIsLf = bytes[i + low] === 10 && bytes[i + high] === 0;
    if (lastIsLf) count++;
  }
  if (end > 2 && !lastIsLf) count++;
  return count;
}

/**
 * countLines and textBytes with what they call, for code that ships their source text to worker
 * threads (the local listing's): none of them refers to anything outside this list.
 */
export const LINE_COUNT_FUNCTIONS: readonly ((...args: never[]) => unknown)[] = [
  countLines,
  countLineFeeds,
  textBytes,
  utf16Order,
  hasUtf8Bom,
  countUtf16Lines,
];
