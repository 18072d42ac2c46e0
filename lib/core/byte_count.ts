// A byte count as flags take it ("64M", "1G"), alone: the flag checks of `anchorfs mcp` run
// before the rest of the server loads (lib/mcp/flags.ts).

import { AnchorError } from "./errors.ts";

/**
 * Parses a byte count given to --max-file-bytes: a whole number, optionally with a K, M or G
 * suffix (powers of 1024; "64M", "1G"). Throws INVALID_FLAG naming the flag otherwise.
 */
export function parseByteCount(flag: string, raw: string): number {
  const m = /^\s*([0-9]+)\s*([kmg]?)(?:i?b)?\s*$/i.exec(raw);
  const unit = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(m?.[2] ?? "").toLowerCase()];
  const value = m && unit ? Number(m[1]) * unit : NaN;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new AnchorError({
      code: "INVALID_FLAG",
      message: `${flag} takes a positive number of bytes, got ${JSON.stringify(raw)}.`,
      hint: `e.g. ${flag} 67108864, or with a suffix: ${flag} 64M (K, M, G are powers of 1024).`,
    });
  }
  return value;
}
