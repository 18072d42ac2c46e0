// lib/core/text: text as files hold it and as messages carry it: decoding and encoding, wire size,
// terminal output cleaned for reading, token estimates. Pure.
// This file is the folder's public surface: what code outside lib/core/text/ uses.

export {
  addStats,
  type CleanLine,
  cleanLogForViewing,
  type CleanStats,
  cleanTerminalText,
  COLLAPSE_MIN_RUN,
  describeCleaning,
  renderCleanLines,
  statsOf,
} from "./terminal_text.ts";
export {
  type Decoded,
  decodeLatin1,
  decodeText,
  describeEncoding,
  dominantEol,
  encodeDoc,
  looksBinary,
  splitLines,
  type TextDoc,
  type TextEncoding,
} from "./text_file.ts";
export { countLines, estimateTokens, textBytes } from "./token_estimate.ts";
export { type FileSummary, summarizeHead } from "./head_summary.ts";
export {
  CONTROL_PICTURES_NOTE,
  jsonStringBytes,
  showControls,
  shownWireBytes,
  tailForWire,
  utf8Bytes,
} from "./wire_text.ts";
