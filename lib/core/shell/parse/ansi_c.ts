// ANSI-C quoting, `$'…'`: backslash escapes (named, octal, hex, Unicode) and no expansions.
// Decoded here so that `$'\x63at' file` reaches the policy as `cat file`.

const ANSI_C_ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/**
 * Reads the `$'…'` quote whose `$` is at `at`: its value and the position after the closing
 * quote, or undefined when the quote is never closed.
 */
export function readAnsiC(src: string, at: number): { value: string; end: number } | undefined {
  let pos = at + 2;
  let value = "";
  for (;;) {
    if (pos >= src.length) return undefined;
    const c = src[pos]!;
    if (c === "'") return { value, end: pos + 1 };
    if (c === "\\" && pos + 1 < src.length) {
      // Numeric escapes too: `$'\x63at'` is `cat`, and must be judged as cat.
      const numeric =
        /^(?:x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})|([0-7]{1,3}))/
          .exec(src.slice(pos + 1, pos + 10));
      if (numeric) {
        const hex = numeric[1] ?? numeric[2] ?? numeric[3];
        const code = hex !== undefined ? parseInt(hex, 16) : parseInt(numeric[4]!, 8);
        value += code <= 0x10ffff ? String.fromCodePoint(code) : "";
        pos += 1 + numeric[0].length;
        continue;
      }
      const n = src[pos + 1]!;
      value += ANSI_C_ESCAPES[n] ?? `\\${n}`;
      pos += 2;
      continue;
    }
    value += c;
    pos++;
  }
}
