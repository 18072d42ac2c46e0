// lib/core/outline: a file's structure from its syntax tree: the languages and their rules, the
// outline model (declarations nested by containment, qualified names, doc comments, cut
// signatures), its rendering within a budget, repository-map entries, name lookup and the cache
// of parsed outlines. Pure: the tree comes in through the SyntaxNode shape.
// This file is the folder's public surface: what code outside lib/core/outline/ uses.

export { collectDeclarations, type Collected, cutSignature, MAX_DECLARATIONS } from "./collect.ts";
export {
  allDeclarations,
  type Declaration,
  type DeclKind,
  type SyntaxNode,
  type SyntaxPoint,
} from "./declaration.ts";
export { type Language, languageFor, languageNames, LANGUAGES } from "./languages.ts";
export { mapEntry, type MapFile } from "./map_render.ts";
export { OutlineCache } from "./outline_cache.ts";
export { OUTLINE_MAX_BYTES, type OutlineView, renderOutline } from "./outline_render.ts";
export { blankLines, resyncLine } from "./recover.ts";
export { findSymbol, normalizeSymbol, type SymbolMatch } from "./symbol_match.ts";
