/**
 * anchorfs as a library. The public surface is what a program embedding anchorfs needs:
 *
 * - **Line ids** (`N:hh`): hash, format, parse and verify the ids every view shows.
 * - **Edit planning**: decode a file into a {@linkcode TextDoc}, apply line edits by id
 *   ({@linkcode planLineEdits}) or a str_replace ({@linkcode planStrReplace}) in memory, encode
 *   it back byte for byte.
 * - **Backends and services**: the {@linkcode FileBackend} interface with its local and
 *   in-memory implementations, and {@linkcode createServices} / {@linkcode closeServices}, the
 *   process-wide state the tools share.
 * - **The MCP server factory** ({@linkcode createServerFactory}) and **the CLI entry**
 *   ({@linkcode main}): `anchorfs mcp` and the human subcommands are built from these pieces.
 *
 * Every failure is an {@linkcode AnchorError} with a stable {@linkcode ErrorCode}, a message and a
 * hint whose suggested calls are data ({@linkcode NextStep}), written by each interface in its own
 * syntax ({@linkcode renderGuide}).
 *
 * @example Line ids
 * ```ts
 * import { formatLineId, parseLineId } from "@anchorfs/anchorfs";
 *
 * const id = formatLineId(42, "hello"); // "42:57"
 * parseLineId(id); // { line: 42, hash: 0x57 }
 * ```
 *
 * @example Editing a file in memory by line id
 * ```ts
 * import { decodeText, encodeDoc, formatLineId, parseEditOps, planLineEdits } from "@anchorfs/anchorfs";
 *
 * const decoded = decodeText(new TextEncoder().encode("a\nb\nc\n"));
 * if (decoded.kind !== "text") throw new Error("not text");
 * const ops = parseEditOps([
 *   { op: "replace", start: formatLineId(2, "b"), end: formatLineId(2, "b"), content: "B\n" },
 * ]);
 * const edited = planLineEdits(decoded.doc, ops, { path: "abc.txt" });
 * new TextDecoder().decode(encodeDoc(edited)); // "a\nB\nc\n"
 * ```
 * @module
 */

// Errors and the next steps they suggest.
export {
  AnchorError,
  type AnchorErrorInit,
  type ErrorCode,
  type Fault,
  formatError,
  isAnchorError,
} from "./lib/core/errors.ts";
export {
  type ArgExample,
  argExample,
  type Guide,
  guide,
  type GuidePart,
  type GuideStep,
  type NextStep,
  renderGuide,
  step,
  type StepSyntax,
  type ToolArgs,
  toolCallSyntax,
  type ToolName,
} from "./lib/core/next_step.ts";

// Line ids.
export {
  assertFresh,
  formatLineId,
  formatStaleReport,
  hashLine,
  type LineId,
  parseLineId,
  renderLine,
  type StaleId,
  staleIdError,
} from "./lib/core/edit/line_id.ts";

// Text documents and edit planning.
export {
  type Decoded,
  decodeText,
  encodeDoc,
  type TextDoc,
  type TextEncoding,
} from "./lib/core/text/text_file.ts";
export { type Anchor, type EditOp, parseEditOps } from "./lib/core/edit/edit_ops.ts";
export {
  type MatchTier,
  planStrReplace,
  type StrReplaceRequest,
  type StrReplaceResult,
} from "./lib/core/edit/str_replace/mod.ts";
export { planLineEdits, type PlanOptions } from "./lib/core/edit/edit_plan.ts";
export { type ShownMemory } from "./lib/core/edit/shown_lines.ts";

// The shell policy every command passes before it runs.
export {
  judgeCommand,
  type JudgeOptions,
  type PolicyRule,
  type PolicyVerdict,
} from "./lib/core/shell/policy/mod.ts";
export type { ShellKind } from "./lib/core/platform/platform.ts";

// File backends.
export type {
  DirEntry,
  EntryType,
  FileBackend,
  FileInfo,
  ListTreeOptions,
  ReadDirOptions,
  ReadFileOptions,
  ReadFilesOptions,
  SpecialKind,
  TreeEntry,
  WriteOptions,
} from "./lib/ops/ports/file_backend.ts";
export type { FileSummary } from "./lib/core/text/head_summary.ts";
export { LocalBackend } from "./lib/backends/local/local_backend.ts";
export type { WriteLockOptions } from "./lib/backends/local/write_lock.ts";
export { MemoryBackend, type MemoryBackendOptions } from "./lib/backends/memory/memory_backend.ts";
export { MemoryHost } from "./lib/backends/memory/memory_host.ts";
export {
  MACOS_PATHS,
  type PathRules,
  POSIX_PATHS,
  WINDOWS_PATHS,
} from "./lib/core/path/path_rules.ts";

// Services, locations and sessions.
export { closeServices, createServices, type ServiceOptions } from "./lib/compose.ts";
export type { Services } from "./lib/ops/services.ts";
export { type Location, Locations } from "./lib/ops/location.ts";
export { filesHost, type Host, type Hosts } from "./lib/ops/ports/host.ts";
export type { PathGuard } from "./lib/ops/ports/path_guard.ts";
export type { RemoteOpener } from "./lib/ops/ports/remote_opener.ts";
export type { RemoteTarget } from "./lib/core/ssh/remote_url.ts";
export { createSession, type Session } from "./lib/ops/session.ts";

// The MCP server factory and the CLI entry.
export { createServerFactory, type ServerFactory } from "./lib/mcp/server.ts";
export type { ServerOptions } from "./lib/mcp/tool_env.ts";
export { main } from "./main.ts";
export { VERSION } from "./lib/version.ts";
