// The files the outline ships beside a bundle and inside compiled binaries (scripts/bundle.ts,
// scripts/release/compile.ts read these names): tree-sitter's wasm files and the worker's bundled entry.

import { LANGUAGES } from "../../core/outline/languages.ts";

/** Where the wasm files are shipped beside the bundle (dist/) and inside compiled binaries. */
export const WASM_SUBDIR = "tree-sitter";
/** The runtime's own wasm file. */
export const RUNTIME_WASM = "tree-sitter.wasm";
/** The grammar file of a grammar name (`typescript` → tree-sitter-typescript.wasm). */
export const grammarFile = (grammar: string) => `tree-sitter-${grammar}.wasm`;
/** The outline worker's bundled entry, written beside the bundle's core file and its chunks. */
export const OUTLINE_WORKER_FILE = "anchorfs_outline_worker.js";

/**
 * Every wasm file the outline uses: the runtime and one grammar per language. Exported for tests
 * (and the release scripts, which ship them).
 */
export function wasmFiles(): string[] {
  const grammars = new Set(Object.values(LANGUAGES).map((l) => l.grammar));
  return [RUNTIME_WASM, ...[...grammars].sort().map(grammarFile)];
}
