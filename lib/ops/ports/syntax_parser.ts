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
   * Throws when the grammar cannot be loaded (a broken install: the ops say so), and
   * ParseTimeout when the parse ran past the parser's own wall deadline.
   */
  outline(
    text: string,
    language: Language,
    shouldStop?: () => boolean,
  ): Promise<ParsedOutline | null>;

  /** Releases what the parser holds (its worker); a later outline starts again. */
  close?(): void;
}

/** A parse that ran past the parser's wall deadline (a pathological file): it was abandoned. */
export class ParseTimeout extends Error {
  constructor(readonly deadlineMs: number) {
    super(`the parse ran past its ${deadlineMs} ms deadline and was stopped`);
    this.name = "ParseTimeout";
  }

  /** The deadline as a sentence says it: "20 s", or "5 ms" under a second. */
  get deadline(): string {
    return this.deadlineMs < 1000 ? `${this.deadlineMs} ms` : `${this.deadlineMs / 1000} s`;
  }
}
