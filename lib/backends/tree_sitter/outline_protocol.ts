// The messages between the main thread (tree_sitter_parser.ts) and the outline worker
// (outline_worker.ts): plain data, so nothing of tree-sitter crosses back.

import type { ParsedOutline } from "../../ops/ports/syntax_parser.ts";

/** One parse: the text, its language's id (LANGUAGES key), and a flag the main thread sets to stop. */
export interface OutlineAsk {
  id: number;
  text: string;
  language: string;
  /** Set to 1 by the main thread: tree-sitter stops at its next progress check. */
  stop: Int32Array;
}

/** A parse's outcome: the outline (null when stopped), or why the runtime or grammar failed. */
export type OutlineAnswer =
  | { id: number; outline: ParsedOutline | null }
  | { id: number; error: string };
