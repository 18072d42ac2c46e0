// A cheap token estimate for budgeting reads: about 4 bytes of source per token. Pure.

export const BYTES_PER_TOKEN = 4;

export function estimateTokens(byteLength: number): number {
  return Math.ceil(byteLength / BYTES_PER_TOKEN);
}

/** Counts lines on raw bytes: LF bytes, plus one for a last line without a terminator. */
export function countLines(bytes: Uint8Array): number {
  let count = 0;
  let i = bytes.indexOf(10);
  while (i !== -1) {
    count++;
    i = bytes.indexOf(10, i + 1);
  }
  if (bytes.length > 0 && bytes[bytes.length - 1] !== 10) count++;
  return count;
}
