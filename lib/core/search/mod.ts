// lib/core/search: what view searches and filters by: globs, gitignore rules, literal and RE2
// patterns matched in linear time. Pure.
// This file is the folder's public surface: what code outside lib/core/search/ uses.

export { compileGlobs, GlobFilter } from "./glob.ts";
export { type GlobShortcuts, globShortcuts } from "./glob_shortcuts.ts";
export { IgnoreChain, type IgnoreReason } from "./ignore_rules.ts";
export { windowAround } from "./line_window.ts";
export {
  type ByteLiteral,
  compileSearchPattern,
  containsLiteral,
  type SearchPattern,
} from "./search_pattern.ts";
