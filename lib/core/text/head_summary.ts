// What a directory listing shows of a file, from its first bytes: binary or not, lines and text
// bytes (scaled to the whole size when only a head was read). One function for every backend, so
// a local summary made beside the read and a remote one made from fetched bytes agree. Pure.

import { BINARY_SNIFF_FUNCTIONS, looksBinary } from "./text_file.ts";
import { countLines, LINE_COUNT_FUNCTIONS, textBytes } from "./token_estimate.ts";

/** A file as a listing row describes it. */
export interface FileSummary {
  /** The file's full size in bytes. */
  size: number;
  /** A NUL byte in the first 8 KiB (no UTF-16 byte order mark): shown as binary with its size. */
  binary: boolean;
  /** Lines (LF count, see countLines) of the bytes read, scaled when only a head was read. */
  lines: number;
  /** Text bytes for the token estimate, scaled the same way. */
  textBytes: number;
  /** Only a head was read: `lines` and `textBytes` are estimates. */
  estimated: boolean;
}

/**
 * Summarizes `head`, the first bytes of a file of `size` bytes (the whole file when they are
 * equal). A head shorter than the file is scaled to the whole size.
 */
export function summarizeHead(head: Uint8Array, size: number): FileSummary {
  if (looksBinary(head)) {
    return { size, binary: true, lines: 0, textBytes: 0, estimated: false };
  }
  const lines = countLines(head);
  const text = textBytes(head);
  if (size > head.length && head.length > 0) {
    const scale = size / head.length;
    return {
      size,
      binary: false,
      lines: Math.round(lines * scale),
      textBytes: Math.round(text * scale),
      estimated: true,
    };
  }
  return { size, binary: false, lines, textBytes: text, estimated: false };
}

/**
 * summarizeHead and every function it calls, none referring to anything outside the list: the
 * local listing ships their source text to its worker threads (one implementation everywhere).
 */
export const HEAD_SUMMARY_FUNCTIONS: readonly ((...args: never[]) => unknown)[] = [
  summarizeHead,
  ...BINARY_SNIFF_FUNCTIONS,
  ...LINE_COUNT_FUNCTIONS,
];
