// Counts in sentences: `1 byte`, `2 bytes`, `50,000 lines`. One helper for every message so no
// text says "1 bytes" or "~1 tokens". Pure.

/**
 * The count (grouped in thousands, en-US) followed by the word in the form that fits it.
 *
 * @example
 * ```ts
 * plural(1, "byte"); // "1 byte"
 * plural(50_000, "line"); // "50,000 lines"
 * plural(2, "entry", "entries"); // "2 entries"
 * ```
 */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${groupDigits(n)} ${n === 1 ? word : many}`;
}

/** Built on first use: constructing it loads ICU data (~100 ms), which start-up should not pay. */
let enUs: Intl.NumberFormat | undefined;

/**
 * `n.toLocaleString("en-US")`, fast: that call builds an ICU formatter each time (~60 µs here;
 * a 1,000-row listing paid ~100 ms for its counts). Whole numbers are grouped by hand.
 */
export function groupDigits(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) {
    return (enUs ??= new Intl.NumberFormat("en-US")).format(n);
  }
  const digits = String(n < 0 ? -n : n);
  let out = digits.slice(0, digits.length % 3 || 3);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${out}` : out;
}
