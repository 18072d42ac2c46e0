// A worst case for the search's regex matching: one line of random words ending in a word, which
// `(?i)(\w+\s?)+$` matches, slowly (finding where the match starts takes ~2 s per 16 MiB on one
// core). Shared by the fault tests and scripts/bench/reliability_bench.ts.

/** `bytes` bytes: random letters, digits, spaces and punctuation, then "a\n". */
export function longLine(bytes: number, seed = 1): Uint8Array {
  const chars = new TextEncoder().encode("abcdefghijklmnopqrstuvwxyz      .,;!-_0123456789");
  const out = new Uint8Array(bytes);
  for (let i = 0; i < bytes - 2; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    out[i] = chars[seed % chars.length]!;
  }
  out[bytes - 2] = 0x61;
  out[bytes - 1] = 10;
  return out;
}

/** The regex that takes seconds over such a line. */
export const SLOW_REGEX = "(?i)(\\w+\\s?)+$";
