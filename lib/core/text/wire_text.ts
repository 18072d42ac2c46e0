// Text as it travels inside a JSON message: its size on the wire (UTF-8 after JSON escaping),
// and control characters shown as visible symbols instead of 6-byte `\u0000` escapes, so a cap
// on output counts what is actually sent. Pure.

/**
 * How control characters are shown: the Unicode "control pictures" block, one symbol per byte
 * (U+2400 + code: ␀ NUL, ␁ SOH, … ␛ ESC, … ␟ US; ␡ DEL). Tab and newline stay as they are.
 */
export const CONTROL_PICTURES_NOTE =
  "control bytes are shown as Unicode control pictures (␀ = NUL, ␛ = ESC, ␍ = CR, ␡ = DEL, " +
  "U+2400 + the byte for the others)";

/** Whether the character code is a control byte that gets a picture (C0 but tab/LF, and DEL). */
function isPictured(c: number): boolean {
  return (c < 0x20 && c !== 0x09 && c !== 0x0a) || c === 0x7f;
}

// deno-lint-ignore no-control-regex
const HAS_CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/;

/** The picture of each pictured code (indexed by code; "" for the others). */
const PICTURES: readonly string[] = Array.from(
  { length: 0x80 },
  (_, c) => isPictured(c) ? String.fromCharCode(c === 0x7f ? 0x2421 : 0x2400 + c) : "",
);

/**
 * The text with every control byte but tab and newline replaced by its control picture.
 * Without a callback per byte: a run of one control byte becomes one repeated picture, so a
 * megabyte of NUL costs one string, not a million.
 */
export function showControls(text: string): { text: string; replaced: number } {
  if (!HAS_CONTROL.test(text)) return { text, replaced: 0 };
  const parts: string[] = [];
  let replaced = 0;
  let from = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c >= 0x80 || !isPictured(c)) {
      i++;
      continue;
    }
    let end = i + 1;
    while (end < text.length && text.charCodeAt(end) === c) end++;
    if (from < i) parts.push(text.slice(from, i));
    parts.push(end - i === 1 ? PICTURES[c]! : PICTURES[c]!.repeat(end - i));
    replaced += end - i;
    from = i = end;
  }
  if (from < text.length) parts.push(text.slice(from));
  return { text: parts.join(""), replaced };
}

/**
 * Wire bytes of the text as showControls would show it, without building that string:
 * `jsonStringBytes(showControls(text).text)`. Stops counting once past `limit`.
 */
export function shownWireBytes(text: string, limit = Infinity): number {
  let bytes = 0;
  for (let i = 0; i < text.length && bytes <= limit; i++) bytes += unitWireBytes(text, i, true);
  return bytes;
}

/** Wire bytes of one UTF-16 code unit at `i` as JSON.stringify writes it (pairs: 2 + 2). */
function unitWireBytes(text: string, i: number, pictures: boolean): number {
  const c = text.charCodeAt(i);
  if (c < 0x80) {
    if (c === 0x22 || c === 0x5c) return 2; // \" \\
    if (c >= 0x20 && c !== 0x7f) return 1;
    if (pictures && isPictured(c)) return 3; // a control picture is 3 bytes of UTF-8
    if (c === 0x7f) return 1;
    // \b \t \n \f \r are 2 bytes; other control bytes are \u00XX, 6 bytes.
    return c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d ? 2 : 6;
  }
  if (c < 0x800) return 2;
  if (c >= 0xd800 && c <= 0xdbff) {
    const next = text.charCodeAt(i + 1);
    return next >= 0xdc00 && next <= 0xdfff ? 2 : 6; // a lone surrogate is escaped as \uXXXX
  }
  if (c >= 0xdc00 && c <= 0xdfff) {
    const prev = text.charCodeAt(i - 1);
    return prev >= 0xd800 && prev <= 0xdbff ? 2 : 6;
  }
  return 3;
}

/** Bytes the text takes inside a JSON string on the wire (quotes excluded). */
export function jsonStringBytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) bytes += unitWireBytes(text, i, false);
  return bytes;
}

/** UTF-8 bytes of the text (what it took in the file or log it came from). */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdfff ? 2 : 3;
  }
  return bytes;
}

interface WireTail {
  /** The kept end of the text, control bytes shown as pictures. */
  text: string;
  /** UTF-8 bytes of the original text left out at the front. */
  droppedBytes: number;
  /** Control bytes replaced by pictures in `text`. */
  pictured: number;
}

/**
 * The longest end of `text` whose shown form (control pictures) fits in `maxBytes` of JSON
 * string on the wire, cut on a character boundary.
 */
export function tailForWire(text: string, maxBytes: number): WireTail {
  let bytes = 0;
  let start = text.length;
  while (start > 0) {
    let unit = start - 1;
    // Keep a surrogate pair together.
    const c = text.charCodeAt(unit);
    if (c >= 0xdc00 && c <= 0xdfff && unit > 0) {
      const prev = text.charCodeAt(unit - 1);
      if (prev >= 0xd800 && prev <= 0xdbff) unit--;
    }
    let cost = 0;
    for (let i = unit; i < start; i++) cost += unitWireBytes(text, i, true);
    if (bytes + cost > maxBytes) break;
    bytes += cost;
    start = unit;
  }
  const shown = showControls(text.slice(start));
  return {
    text: shown.text,
    droppedBytes: utf8Bytes(text.slice(0, start)),
    pictured: shown.replaced,
  };
}
