// lib/core/shell: shell command lines before they run: parsing, the shell policy and its messages,
// pipeline notes, quoting. Pure.
// This file is the folder's public surface: what code outside lib/core/shell/ uses.

export { maskedStatusNote } from "./pipeline_note.ts";
export { shellQuote } from "./shell_quote.ts";
export { judgeCommand, type JudgeOptions, type PolicyVerdict } from "./policy/mod.ts";
export { fileShellDialect, shellStepForFile } from "./file_shell_step.ts";
export {
  cmdQuote,
  fileCommand,
  type FileIntent,
  powerShellQuote,
  type ShellDialect,
  shellDialect,
} from "./file_command.ts";
