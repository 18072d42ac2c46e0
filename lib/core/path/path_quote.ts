// The one escaping for file names in tool output, and its inverse for paths coming back. Names
// that would break a row (tab, newline), hide (controls, bidi overrides, edge spaces) or are not
// UTF-8 are shown as a quoted string; every tool accepts that quoted form as a path. Pure.
//
// Quoted form: a JSON string plus `\xNN` for a raw byte that is not UTF-8. In a path string such a
// byte is held as the lone surrogate U+DC80..U+DCFF (Python's "surrogateescape"): the local backend
// maps it back to the byte, so a name read from disk reaches the same file when passed back.
//
//   new<LF>line.txt        → "new\nline.txt"
//   10 lines<TAB>fake.txt  → "10 lines\tfake.txt"
//   bad<0xFF>.txt          → "bad\xff.txt"
//   say "hi".txt           → say "hi".txt        (quotes and backslashes inside a name are plain)
//   "x".txt                → "\"x\".txt"         (a leading quote would read as the quoted form)

import { AnchorError } from "../errors.ts";

/**
 * Characters that make a name quoted: C0 and C1 controls, DEL, the Unicode line/paragraph
 * separators, and bidirectional controls (they reorder how the name displays).
 */
// deno-lint-ignore no-control-regex -- finding control characters is the point
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/** Any lone surrogate: a raw byte (U+DC80..U+DCFF) or something no file name can hold. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** A raw byte held as U+DC80..U+DCFF (not the low half of a surrogate pair). */
const RAW_BYTE = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/;

/** True when `path` must be shown quoted to be read back unambiguously. */
export function needsQuoting(path: string): boolean {
  return HIDDEN.test(path) || LONE_SURROGATE.test(path) || path.startsWith('"') ||
    /^\s|\s$/.test(path);
}

/** True when `path` holds raw bytes that are not UTF-8 (as U+DC80..U+DCFF). */
export function hasRawBytes(path: string): boolean {
  return RAW_BYTE.test(path);
}

/** `path` as shown in rows and messages: unchanged when plain, else the quoted form. */
export function quotePath(path: string): string {
  return needsQuoting(path) ? quotePathAlways(path) : path;
}

const SHORT: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};

/** The quoted form of `path`, even for a plain name (for lists of paths in sentences). */
export function quotePathAlways(path: string): string {
  let out = '"';
  for (const ch of path) {
    const short = SHORT[ch];
    if (short !== undefined) {
      out += short;
      continue;
    }
    const code = ch.codePointAt(0)!;
    if (code >= 0xdc80 && code <= 0xdcff) out += `\\x${(code - 0xdc00).toString(16)}`;
    else if (ch.length === 1 && (HIDDEN.test(ch) || (code >= 0xd800 && code <= 0xdfff))) {
      out += `\\u${code.toString(16).padStart(4, "0")}`;
    } else out += ch;
  }
  return `${out}"`;
}

/** A path as given to a tool: the quoted form decoded, anything else trimmed and taken as is. */
export function unquotePath(raw: string): string {
  const text = raw.trim();
  if (text.length < 2 || !text.startsWith('"') || !text.endsWith('"')) return text;
  return decodeQuoted(text);
}

const UNSHORT: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

function decodeQuoted(text: string): string {
  let out = "";
  const end = text.length - 1;
  for (let i = 1; i < end; i++) {
    const ch = text[i]!;
    if (ch === '"') throw badQuoted(text, `an unescaped " at character ${i + 1}`);
    if (ch !== "\\") {
      out += ch;
      continue;
    }
    const kind = text[++i];
    const short = kind === undefined || i >= end ? undefined : UNSHORT[kind];
    if (short !== undefined) {
      out += short;
      continue;
    }
    const digits = kind === "x" ? 2 : kind === "u" ? 4 : 0;
    const hex = text.slice(i + 1, i + 1 + digits);
    if (digits === 0 || i + digits >= end || !/^[0-9a-fA-F]+$/.test(hex)) {
      throw badQuoted(text, `the escape ${JSON.stringify(text.slice(i - 1, i + 1 + digits))}`);
    }
    const value = parseInt(hex, 16);
    // \xNN below 0x80 is that ASCII character; from 0x80 it is the raw byte.
    out += String.fromCharCode(kind === "x" && value >= 0x80 ? 0xdc00 + value : value);
    i += digits;
  }
  return out;
}

function badQuoted(text: string, what: string): AnchorError {
  return new AnchorError({
    code: "INVALID_PATH",
    message: `The quoted path ${text} has ${what}. A path in double quotes is read as a quoted ` +
      'name: a JSON string plus \\xNN for a byte that is not UTF-8 (e.g. "new\\nline.txt").',
    hint: "Copy the quoted name exactly as the listing or search shows it; inside the quotes " +
      'write \\" for a quote and \\\\ for a backslash.',
  });
}

/**
 * A file name's bytes as a path string: UTF-8 decoded, each byte that is not part of a valid
 * UTF-8 sequence kept as U+DC00 + byte (always U+DC80..U+DCFF: ASCII bytes are valid).
 */
export function decodeNameBytes(bytes: Uint8Array): string {
  let out = "";
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      out += String.fromCharCode(b);
      i++;
      continue;
    }
    const n = sequenceLength(bytes, i);
    if (n === 0) {
      out += String.fromCharCode(0xdc00 + b);
      i++;
      continue;
    }
    let cp = b & (n === 2 ? 0x1f : n === 3 ? 0x0f : 0x07);
    for (let k = 1; k < n; k++) cp = (cp << 6) | (bytes[i + k]! & 0x3f);
    out += String.fromCodePoint(cp);
    i += n;
  }
  return out;
}

/** Length of the well-formed UTF-8 sequence at `i` (Unicode table 3-7), or 0. */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const b = bytes[i]!;
  const at = (k: number) => bytes[i + k] ?? -1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => at(k) >= lo && at(k) <= hi;
  if (b >= 0xc2 && b <= 0xdf) return cont(1) ? 2 : 0;
  if (b === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((b >= 0xe1 && b <= 0xec) || b === 0xee || b === 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (b === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (b === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (b >= 0xf1 && b <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (b === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

const encoder = new TextEncoder();

/** The inverse of decodeNameBytes: the bytes a path string names on disk. */
export function encodeNameBytes(path: string): Uint8Array {
  const parts: number[] = [];
  let run = "";
  const flush = () => {
    if (run === "") return;
    for (const byte of encoder.encode(run)) parts.push(byte);
    run = "";
  };
  for (const ch of path) {
    const code = ch.codePointAt(0)!;
    if (code >= 0xdc80 && code <= 0xdcff) {
      flush();
      parts.push(code - 0xdc00);
    } else run += ch;
  }
  flush();
  return new Uint8Array(parts);
}

/**
 * Splits `a|b|"c|d"` at each `|` outside a quoted form, so a quoted name may hold `|`. A quote
 * opens a quoted form only at the start of a piece (plain names may hold quotes elsewhere).
 */
export function splitPathList(text: string, separator = "|"): string[] {
  const pieces: string[] = [];
  let start = 0;
  let i = 0;
  while (i <= text.length) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (text[i] === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
      i++;
    }
    while (i < text.length && text[i] !== separator) i++;
    pieces.push(text.slice(start, i));
    start = ++i;
  }
  return pieces;
}
