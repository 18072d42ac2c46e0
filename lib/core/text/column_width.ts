// How wide text is on a terminal, in columns: wide East Asian characters and emoji take two,
// combining marks and joiners none. For lines drawn in place (the `jobs wait` spinner), which must
// never wrap: a wrapped frame leaves a line behind at every redraw. Pure.

/** Characters that take no column: combining marks, zero-width joiner/space, variation selectors. */
const ZERO_WIDTH = /^(?:\p{M}|[\u200b-\u200f\u2060\ufe00-\ufe0f\ufeff])$/u;

/** Characters a terminal draws two columns wide (East Asian Wide and Fullwidth, emoji). */
const WIDE =
  /^(?:[\u1100-\u115f\u231a\u231b\u2329\u232a\u23e9-\u23ec\u23f0\u23f3\u25fd\u25fe\u2614\u2615\u2648-\u2653\u267f\u2693\u26a1\u26aa\u26ab\u26bd\u26be\u26c4\u26c5\u26ce\u26d4\u26ea\u26f2\u26f3\u26f5\u26fa\u26fd\u2705\u270a\u270b\u2728\u274c\u274e\u2753-\u2755\u2757\u2795-\u2797\u27b0\u27bf\u2b1b\u2b1c\u2b50\u2b55\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6]|[\u{16fe0}-\u{18aff}\u{1b000}-\u{1b2ff}\u{1f004}\u{1f0cf}\u{1f18e}\u{1f191}-\u{1f19a}\u{1f200}-\u{1f251}\u{1f300}-\u{1f64f}\u{1f680}-\u{1f6ff}\u{1f7e0}-\u{1f7eb}\u{1f90c}-\u{1f9ff}\u{1fa70}-\u{1faff}\u{20000}-\u{3fffd}])$/u;

/** The columns one character (a code point) takes. */
function charColumns(char: string): 0 | 1 | 2 {
  if (ZERO_WIDTH.test(char)) return 0;
  return WIDE.test(char) ? 2 : 1;
}

// Exported for tests.
/** The columns `text` takes (one line, no escape sequences). */
export function textColumns(text: string): number {
  let columns = 0;
  for (const char of text) columns += charColumns(char);
  return columns;
}

/**
 * `text` cut to at most `columns` columns, ending with "…" when cut (a wide character is never
 * split in half). Zero or fewer columns give "".
 */
export function cutToColumns(text: string, columns: number): string {
  if (columns <= 0) return "";
  if (textColumns(text) <= columns) return text;
  let out = "";
  let used = 0;
  for (const char of text) {
    const width = charColumns(char);
    if (used + width > columns - 1) break;
    out += char;
    used += width;
  }
  return `${out}…`;
}
