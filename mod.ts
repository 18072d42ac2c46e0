/**
 * anchorfs as a library: verified line ids, text decoding that keeps files as they are, the
 * file-backend interface with its local and in-memory implementations, and the MCP server
 * factory. The CLI and `anchorfs mcp` are built from these same pieces (see main.ts).
 *
 * @example
 * ```ts
 * import { formatLineId, parseLineId } from "./mod.ts";
 * formatLineId(42, "hello"); // "42:57"
 * parseLineId("42:57"); // { line: 42, hash: 0x57 }
 * ```
 * @module
 */

export { AnchorError, type Fault, formatError, isAnchorError } from "./lib/core/errors.ts";
export {
  assertFresh,
  formatLineId,
  formatStaleReport,
  hashLine,
  type LineId,
  parseLineId,
  renderLine,
  staleIdError,
} from "./lib/core/line_id.ts";
export { decodeText, encodeDoc, type TextDoc, type TextEncoding } from "./lib/core/text_file.ts";
export { judgeCommand, type PolicyVerdict } from "./lib/core/shell_policy.ts";
export type {
  DirEntry,
  EntryType,
  FileBackend,
  FileInfo,
  WriteOptions,
} from "./lib/ops/file_backend.ts";
export { type Location, Locations, type RemoteOpener } from "./lib/ops/location.ts";
export { createSession, type Session } from "./lib/ops/session.ts";
export type { Services } from "./lib/ops/services.ts";
export { LocalBackend } from "./lib/backends/local/local_backend.ts";
export { MemoryBackend } from "./lib/backends/memory/memory_backend.ts";
export { closeServices, createServices } from "./lib/compose.ts";
export { createServerFactory } from "./lib/mcp/server.ts";
export { VERSION } from "./lib/version.ts";
