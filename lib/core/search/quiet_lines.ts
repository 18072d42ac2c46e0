// Runs of whole lines a search can pass over as bytes (match_bytes.ts): lines that hold no
// occurrence of the search's needle are counted, not decoded, so a file that holds the literal
// costs strings only for the lines around its hits. Pure and self-contained like
// line_matcher.ts: the search's workers run these from their source text.

/** A needle as bytes, for passing over lines that cannot hold it (openMatchers builds it). */
export interface QuietNeedle {
  /** The needle's bytes (lower-cased ASCII when `fold`); null: it cannot occur in ASCII text. */
  ascii: Uint8Array | null;
  /** Its Latin-1 bytes for a case-sensitive needle; null when a character is over U+00FF. */
  latin1: Uint8Array | null;
  /** ASCII case is ignored (a non-`u` JavaScript `i` regex folds ASCII only to ASCII). */
  fold: boolean;
}

/**
 * The needle of a literal search as bytes, or null when lines cannot be passed over as bytes
 * (a needle with a line break could span lines as the decoded text is searched).
 */
export function quietNeedle(text: string, ignoreCase: boolean): QuietNeedle | null {
  if (text.length === 0 || text.includes("\n") || text.includes("\r")) return null;
  let ascii = true;
  let narrow = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) ascii = false;
    if (c > 0xff) narrow = false;
  }
  const bytes = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
  if (ignoreCase) {
    return { ascii: ascii ? bytes(text.toLowerCase()) : null, latin1: null, fold: true };
  }
  return {
    // A needle with other characters never occurs in a run of ASCII bytes.
    ascii: ascii ? bytes(text) : null,
    latin1: narrow ? bytes(text) : null,
    fold: false,
  };
}

/**
 * Where the first occurrence of the needle in `[from, to)` starts (its Latin-1 bytes when
 * `latin1` and case matters), or `to` when there is none.
 */
export function quietStop(
  chunk: Uint8Array,
  from: number,
  to: number,
  q: QuietNeedle,
  latin1: boolean,
): number {
  const needle = latin1 && !q.fold ? q.latin1 : q.ascii;
  let hit = to;
  if (needle) {
    const first = needle[0]!;
    const other = q.fold && first >= 0x61 && first <= 0x7a ? first - 0x20 : first;
    const last = to - needle.length;
    // The next place of each case of the first byte, each found once (-1: none left; a rare
    // case must not be searched for again from every place of the other).
    let lower = -2;
    let upper = other === first ? -1 : -2;
    for (let at = from; at <= last;) {
      if (lower !== -1 && lower < at) lower = chunk.indexOf(first, at);
      if (upper !== -1 && upper < at) upper = chunk.indexOf(other, at);
      const a = lower === -1 ? upper : upper === -1 ? lower : Math.min(lower, upper);
      if (a === -1 || a > last) break;
      let k = 1;
      for (; k < needle.length; k++) {
        let b = chunk[a + k]!;
        if (q.fold && b >= 0x41 && b <= 0x5a) b += 0x20;
        if (b !== needle[k]) break;
      }
      if (k === needle.length) {
        hit = a;
        break;
      }
      at = a + 1;
    }
  }
  return hit;
}

/**
 * The whole lines of `[from, to)` before its first byte over 0x7F (the first byte that is not
 * ASCII must be decoded: checked as UTF-8, or folded), or before `to` when `anyByte`: their
 * count in `out[0]`, their end in `out[1]`, and where the pass stopped in `out[2]`. One pass,
 * counting as it checks.
 */
export function quietRun(
  chunk: Uint8Array,
  from: number,
  to: number,
  anyByte: boolean,
  out: number[],
): void {
  let lines = 0;
  let end = from;
  let i = from;
  for (; i < to; i++) {
    const b = chunk[i]!;
    if (b === 10) {
      lines++;
      end = i + 1;
    } else if (b >= 0x80 && !anyByte) break;
  }
  out[0] = lines;
  out[1] = end;
  out[2] = i;
}

/**
 * The start of the last `lines` lines of `[from, to)` (which ends with a line feed and holds
 * more than `lines` of them).
 */
export function lastLinesStart(
  chunk: Uint8Array,
  from: number,
  to: number,
  lines: number,
): number {
  let at = to - 1;
  for (let k = 0; k < lines; k++) at = chunk.lastIndexOf(10, at - 1);
  return Math.max(from, at + 1);
}
