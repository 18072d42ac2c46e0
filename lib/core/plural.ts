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
  return `${n.toLocaleString("en-US")} ${n === 1 ? word : many}`;
}
