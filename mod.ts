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

export {
  AnchorError,
  type ErrorCode,
  type Fault,
  formatError,
  isAnchorError,
} from "./lib/core/errors.ts";
export {
  type Guide,
  guide,
  type NextStep,
  renderGuide,
  step,
  type StepSyntax,
  type ToolArgs,
  toolCallSyntax,
} from "./lib/core/next_step.ts";
export {
  assertFresh,
  formatLineId,
  formatStaleReport,
  hashLine,
  type LineId,
  parseLineId,
  renderLine,
  staleIdError,
} from "./lib/core/edit/mod.ts";
export { decodeText, encodeDoc, type TextDoc, type TextEncoding } from "./lib/core/text/mod.ts";
export { judgeCommand, type PolicyVerdict } from "./lib/core/shell/mod.ts";
export type {
  DirEntry,
  EntryType,
  FileBackend,
  FileInfo,
  WriteOptions,
} from "./lib/ops/file_backend.ts";
export { type Location, Locations, type PathGuard, type RemoteOpener } from "./lib/ops/location.ts";
export { Confinement, type ConfinementOptions } from "./lib/ops/confinement.ts";
export { type AllowedDir, isPathInside } from "./lib/core/path/mod.ts";
export { createSession, type Session } from "./lib/ops/session.ts";
export type { Services } from "./lib/ops/services.ts";
export { LocalBackend } from "./lib/backends/local/local_backend.ts";
export { MemoryBackend } from "./lib/backends/memory/memory_backend.ts";
export { closeServices, createServices } from "./lib/compose.ts";
export { createServerFactory } from "./lib/mcp/server.ts";
export { VERSION } from "./lib/version.ts";

// The use cases behind the MCP tools and the CLI subcommands.
export { runView, type ViewArgs } from "./lib/ops/view.ts";
export { runTextEditor, type TextEditorArgs } from "./lib/ops/edit/text_editor.ts";
export { type BatchEditArgs, runBatchEdit } from "./lib/ops/edit/batch_edit.ts";
export { type ExtractLinesArgs, runExtractLines } from "./lib/ops/edit/extract_lines.ts";
export { runWorkdir } from "./lib/ops/workdir.ts";
export { runShell } from "./lib/ops/shell.ts";
export { JobManager, jobUri } from "./lib/ops/jobs/job_manager.ts";

// Pure building blocks.
export { planLineEdits, planStrReplace } from "./lib/core/edit/mod.ts";
export { compileGlobs, GlobFilter } from "./lib/core/search/mod.ts";
export {
  checkHostKey,
  parseKnownHosts,
  parseRemoteUrl,
  type RemoteTarget,
  resolveSshHost,
} from "./lib/core/ssh/mod.ts";

// Remote files.
export { SshPool } from "./lib/backends/ssh/ssh_pool.ts";
