// Decoding and encoding of text files as they are: encoding (UTF-8 with or without BOM, UTF-16
// LE/BE with BOM, a single-byte Latin-1 fallback), line endings kept line by line, and the
// presence of a final newline. Pure: bytes in, bytes out. `view` and every edit use this one
// module so that what a model is shown is exactly what an edit will verify against.

import { AnchorError } from "../errors.ts";
import { scanUtf8Lines } from "./utf8_check.ts";

/** The encodings a text file is read and written back in. */
export type TextEncoding = "utf-8" | "utf-16le" | "utf-16be" | "latin1";

/** A text file split into lines; joining `lines[i] + eols[i]` gives back the decoded text. */
export interface TextDoc {
  /** The encoding it was read in and is written back in. */
  encoding: TextEncoding;
  /** Whether the file started with a byte order mark (never part of line 1's content). */
  bom: boolean;
  /** Line contents without terminators. An empty file has no lines. */
  lines: string[];
  /** The terminator after each line: "\n", "\r\n", or "" for a last line without one. */
  eols: string[];
}

/** What {@linkcode decodeText} found: a text document, or why the bytes are binary. */
export type Decoded =
  | { kind: "text"; doc: TextDoc }
  | { kind: "binary"; reason: string };

const SNIFF_BYTES = 8192;

/**
 * True when the bytes look binary: a NUL byte in the first 8 KiB (no UTF-16 BOM). Self-contained
 * with hasUtf16Bom (no other outside reference): the listing's worker threads run their source.
 */
export function looksBinary(bytes: Uint8Array): boolean {
  if (hasUtf16Bom(bytes)) return false;
  const end = Math.min(bytes.length, 8192); // SNIFF_BYTES
  // Four bytes at a time, as countLineFeeds counts: a word holds a zero byte exactly when
  // (x - 0x01010101) & ~x & 0x80808080 is not 0. A listing sniffs up to 1,000 heads; the byte
  // loop was a tenth of its workers' time, this takes a third of that.
  let i = 0;
  const lead = Math.min(end, (4 - (bytes.byteOffset & 3)) & 3);
  for (; i < lead; i++) if (bytes[i] === 0) return true;
  const words = (end - i) >>> 2;
  if (words > 0) {
    const view = new Uint32Array(bytes.buffer, bytes.byteOffset + i, words);
    for (let k = 0; k < words; k++) {
      const x = view[k]!;
      if (((x - 0x01010101) & ~x & 0x80808080) !== 0) return true;
    }
    i += words * 4;
  }
  for (; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

function hasUtf16Bom(bytes: Uint8Array): boolean {
  return bytes.length >= 2 &&
    ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff));
}

/** looksBinary with what it calls, for code that ships their source text to worker threads. */
export const BINARY_SNIFF_FUNCTIONS: readonly ((...args: never[]) => unknown)[] = [
  looksBinary,
  hasUtf16Bom,
];

/** A text file decoded but not yet split into lines (a ranged view splits only its range). */
export interface DecodedText {
  encoding: TextEncoding;
  bom: boolean;
  /** The decoded text, BOM left out, line terminators included. */
  text: string;
}

type DecodedBody =
  | { kind: "text"; body: DecodedText }
  | { kind: "binary"; reason: string };

/**
 * Decodes file bytes as they are: the encoding (UTF-8 with or without BOM, UTF-16 with BOM, else
 * Latin-1), each line's terminator and the final newline are kept, so {@linkcode encodeDoc}
 * writes back the same bytes.
 *
 * @example
 * ```ts
 * import { decodeText, encodeDoc } from "@anchorfs/anchorfs";
 *
 * const bytes = new TextEncoder().encode("a\r\nb");
 * const decoded = decodeText(bytes);
 * if (decoded.kind === "text") {
 *   decoded.doc.lines; // ["a", "b"]
 *   decoded.doc.eols; // ["\r\n", ""]
 *   encodeDoc(decoded.doc); // the same bytes
 * }
 * ```
 */
export function decodeText(bytes: Uint8Array): Decoded {
  const decoded = decodeTextBody(bytes);
  if (decoded.kind === "binary") return decoded;
  const { encoding, bom, text } = decoded.body;
  const { lines, eols } = splitLines(text);
  return { kind: "text", doc: { encoding, bom, lines, eols } };
}

/** Like decodeText without the split into lines. */
export function decodeTextBody(bytes: Uint8Array): DecodedBody {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) {
    if (bytes.length % 2 !== 0) {
      return { kind: "binary", reason: "UTF-16 LE byte order mark with an odd byte count" };
    }
    return textBody(
      "utf-16le",
      true,
      new TextDecoder("utf-16le", { ignoreBOM: true }).decode(bytes.subarray(2)),
    );
  }
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) {
    if (bytes.length % 2 !== 0) {
      return { kind: "binary", reason: "UTF-16 BE byte order mark with an odd byte count" };
    }
    return textBody(
      "utf-16be",
      true,
      new TextDecoder("utf-16be", { ignoreBOM: true }).decode(bytes.subarray(2)),
    );
  }
  if (looksBinary(bytes)) return { kind: "binary", reason: "contains NUL bytes" };
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const body = bom ? bytes.subarray(3) : bytes;
  try {
    return textBody(
      "utf-8",
      bom,
      new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(body),
    );
  } catch {
    if (bom) return { kind: "binary", reason: "UTF-8 byte order mark followed by invalid UTF-8" };
    if (looksLikeOtherBinary(body)) {
      return { kind: "binary", reason: "invalid UTF-8 with many control bytes" };
    }
    return textBody("latin1", false, decodeLatin1(body));
  }
}

/** A UTF-8 or Latin-1 body left as bytes: what decodeTextBody would decode, checked but not made. */
export interface UndecodedText {
  encoding: "utf-8" | "latin1";
  bom: boolean;
  /** The body's bytes, BOM left out. */
  bytes: Uint8Array;
  /** How many lines splitLines would make of the text (countLines). */
  lineCount: number;
  /** Some line ends with CRLF. */
  crlf: boolean;
}

/**
 * decodeTextBody without making the text of a UTF-8 or Latin-1 body: the same encoding and the
 * same refusals, from a well-formedness check instead of a decode (UTF-16 is decoded as there).
 * For reads that show a few lines of a long file.
 */
export function sniffTextBody(
  bytes: Uint8Array,
): DecodedBody | { kind: "undecoded"; body: UndecodedText } {
  if (hasUtf16Bom(bytes)) return decodeTextBody(bytes);
  if (looksBinary(bytes)) return { kind: "binary", reason: "contains NUL bytes" };
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const body = bom ? bytes.subarray(3) : bytes;
  const scan = scanUtf8Lines(body);
  if (scan.wellFormed) {
    return { kind: "undecoded", body: undecoded("utf-8", bom, body, scan.lineFeeds, scan.crlf) };
  }
  if (bom) return { kind: "binary", reason: "UTF-8 byte order mark followed by invalid UTF-8" };
  if (looksLikeOtherBinary(body)) {
    return { kind: "binary", reason: "invalid UTF-8 with many control bytes" };
  }
  return { kind: "undecoded", body: latin1Undecoded(body) };
}

/** A Latin-1 body's line count and CRLF from its bytes (the same in Latin-1 as in the text). */
function latin1Undecoded(bytes: Uint8Array): UndecodedText {
  let lineFeeds = 0;
  let crlf = false;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 0x0a) continue;
    lineFeeds++;
    if (i > 0 && bytes[i - 1] === 0x0d) crlf = true;
  }
  return undecoded("latin1", false, bytes, lineFeeds, crlf);
}

/** An undecoded body of `lineFeeds` line feeds: its lines are one more unless it ends with one. */
function undecoded(
  encoding: UndecodedText["encoding"],
  bom: boolean,
  bytes: Uint8Array,
  lineFeeds: number,
  crlf: boolean,
): UndecodedText {
  const lineCount = bytes.length === 0 || bytes[bytes.length - 1] === 0x0a
    ? lineFeeds
    : lineFeeds + 1;
  return { encoding, bom, bytes, lineCount, crlf };
}

/** An undecoded body's text, as decodeTextBody would have made it. */
export function decodeUndecoded(body: UndecodedText): DecodedText {
  const text = body.encoding === "utf-8"
    ? new TextDecoder("utf-8", { ignoreBOM: true }).decode(body.bytes)
    : decodeLatin1(body.bytes);
  return { encoding: body.encoding, bom: body.bom, text };
}

/** Control bytes (other than tab, LF, CR, FF, ESC) in more than 10% of the sniffed bytes. */
function looksLikeOtherBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, SNIFF_BYTES);
  let control = 0;
  for (let i = 0; i < end; i++) {
    const b = bytes[i]!;
    if (b < 0x20 && b !== 9 && b !== 10 && b !== 13 && b !== 12 && b !== 27) control++;
  }
  return end > 0 && control * 10 > end;
}

function textBody(encoding: TextEncoding, bom: boolean, text: string): DecodedBody {
  return { kind: "text", body: { encoding, bom, text } };
}

/** How many lines splitLines would make of `text`, without making them. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let count = 0;
  for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", nl + 1)) count++;
  return text.charCodeAt(text.length - 1) === 10 ? count : count + 1;
}

/**
 * Lines of `text` by number (1-based) as splitLines gives them, found on demand: reading lines
 * in order walks the text once, and only the lines asked for are made (a view of 100 lines of a
 * long file makes 100 strings, not one per line of the file).
 */
export class LineCursor {
  /** The line `line` starts at `offset` (line 1 at 0). */
  private line = 1;
  private offset = 0;

  constructor(private readonly text: string) {}

  /** Line `n`'s content without its terminator; undefined past the last line. */
  at(n: number): string | undefined {
    if (n < 1) return undefined;
    if (n < this.line) {
      this.line = 1;
      this.offset = 0;
    }
    const text = this.text;
    while (this.line < n) {
      const nl = text.indexOf("\n", this.offset);
      if (nl === -1) return undefined;
      this.offset = nl + 1;
      this.line++;
    }
    if (this.offset >= text.length) return undefined;
    const nl = text.indexOf("\n", this.offset);
    if (nl === -1) return text.slice(this.offset);
    const crlf = nl > this.offset && text.charCodeAt(nl - 1) === 13;
    return text.slice(this.offset, crlf ? nl - 1 : nl);
  }
}

/** Splits on LF and CRLF; a lone CR stays part of the line's content. */
export function splitLines(decoded: string): { lines: string[]; eols: string[] } {
  const lines: string[] = [];
  const eols: string[] = [];
  let start = 0;
  while (start < decoded.length) {
    const nl = decoded.indexOf("\n", start);
    if (nl === -1) {
      lines.push(decoded.slice(start));
      eols.push("");
      break;
    }
    const crlf = nl > start && decoded.charCodeAt(nl - 1) === 13;
    lines.push(decoded.slice(start, crlf ? nl - 1 : nl));
    eols.push(crlf ? "\r\n" : "\n");
    start = nl + 1;
  }
  return { lines, eols };
}

/** Latin-1: each byte is the code point of the same value, so every byte sequence round-trips. */
export function decodeLatin1(bytes: Uint8Array): string {
  let out = "";
  const CHUNK = 8192;
  for (let i = 0; i < bytes.length; i += CHUNK) {
    out += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  }
  return out;
}

/** The decoded text of a document, terminators included, without the BOM. */
function joinDoc(doc: Pick<TextDoc, "lines" | "eols">): string {
  let out = "";
  for (let i = 0; i < doc.lines.length; i++) out += doc.lines[i]! + (doc.eols[i] ?? "\n");
  return out;
}

/**
 * The refusal of text holding half a UTF-16 pair (a JSON "\ud800" escape without its other half):
 * UTF-8 cannot store it, and TextEncoder would quietly write U+FFFD instead, so the file would
 * not hold what the edit's result shows.
 */
function loneSurrogate(body: string): AnchorError {
  let i = 0;
  for (; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = body.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      else break;
    } else if (c >= 0xdc00 && c <= 0xdfff) break;
  }
  const code = body.charCodeAt(i).toString(16).toUpperCase();
  const line = body.slice(0, i).split("\n").length;
  const column = i - body.lastIndexOf("\n", i - 1);
  return new AnchorError({
    code: "UNENCODABLE_TEXT",
    message:
      `The new text has a lone surrogate U+${code} on line ${line}, column ${column} (half ` +
      `of a UTF-16 pair, e.g. a "\\u${code.toLowerCase()}" escape without its other half), ` +
      "which a text file cannot store (it would become U+FFFD); nothing was written.",
    hint: "Send the whole character (both halves, e.g. \\ud83d\\ude00 for 😀), or U+FFFD " +
      "itself if a replacement character is meant.",
  });
}

/**
 * Encodes a document back to bytes in its own encoding, BOM included. Text a file cannot hold
 * is refused (UNENCODABLE_TEXT): a lone surrogate, or in Latin-1 a character past U+00FF.
 */
export function encodeDoc(doc: TextDoc): Uint8Array {
  const body = joinDoc(doc);
  if (doc.encoding !== "latin1" && !body.isWellFormed()) throw loneSurrogate(body);
  switch (doc.encoding) {
    case "utf-8": {
      const encoded = new TextEncoder().encode(body);
      if (!doc.bom) return encoded;
      const out = new Uint8Array(encoded.length + 3);
      out.set([0xef, 0xbb, 0xbf]);
      out.set(encoded, 3);
      return out;
    }
    case "utf-16le":
    case "utf-16be": {
      const le = doc.encoding === "utf-16le";
      const out = new Uint8Array(2 + body.length * 2);
      out[0] = le ? 0xff : 0xfe;
      out[1] = le ? 0xfe : 0xff;
      for (let i = 0; i < body.length; i++) {
        const c = body.charCodeAt(i);
        out[2 + i * 2] = le ? c & 0xff : c >>> 8;
        out[3 + i * 2] = le ? c >>> 8 : c & 0xff;
      }
      return out;
    }
    case "latin1": {
      const out = new Uint8Array(body.length);
      for (let i = 0; i < body.length; i++) {
        const c = body.charCodeAt(i);
        if (c > 0xff) {
          const line = body.slice(0, i).split("\n").length;
          throw new AnchorError({
            code: "UNENCODABLE_TEXT",
            message: `The file is Latin-1 (single-byte) and the new text has ${
              JSON.stringify(body[i])
            } (U+${
              c.toString(16).toUpperCase().padStart(4, "0")
            }) on line ${line}, which Latin-1 cannot store; nothing was written.`,
            hint:
              "Use only characters U+0000-U+00FF in this file, or convert the file to UTF-8 first.",
          });
        }
        out[i] = c;
      }
      return out;
    }
  }
}

/** The line terminator new lines should get: the file's most common one, LF for a new file. */
export function dominantEol(doc: Pick<TextDoc, "eols">): "\n" | "\r\n" {
  let crlf = 0;
  let lf = 0;
  for (const e of doc.eols) {
    if (e === "\r\n") crlf++;
    else if (e === "\n") lf++;
  }
  return crlf > lf ? "\r\n" : "\n";
}

export function describeEncoding(doc: Pick<TextDoc, "encoding" | "bom">): string {
  const name =
    { "utf-8": "UTF-8", "utf-16le": "UTF-16 LE", "utf-16be": "UTF-16 BE", latin1: "Latin-1" }[
      doc.encoding
    ];
  return doc.bom && doc.encoding === "utf-8" ? `${name} with BOM` : name;
}
