// What the outline ops need from a parser (lib/backends/tree_sitter implements it): a file's
// declarations from its text, read with the language's rules. The ops never see a syntax tree.

import type { Declaration } from "../../core/outline/declaration.ts";
import type { Language } from "../../core/outline/languages.ts";

/** A file's declarations as parsed, with where it did not parse. */
export interface ParsedOutline {
  declarations: Declaration[];
  /** More declarations were found than one outline keeps; the rest were dropped. */
  truncated: boolean;
  /** Line ranges (1-based, inclusive) with syntax errors, the first few; empty when clean. */
  errors: { start: number; end: number }[];
}

export interface SyntaxParser {
  /**
   * Parses `text` as `language` and reads its declarations. `shouldStop` is asked while parsing
   * (a cancelled call or a deadline): when it says yes the parse is dropped and this gives null.
   * Throws when the grammar cannot be loaded (a broken install: the ops say so).
   */
  outline(
    text: string,
    language: Language,
    shouldStop?: () => boolean,
  ): Promise<ParsedOutline | null>;
}
