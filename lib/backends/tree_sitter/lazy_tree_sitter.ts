// The outline parser as the services hold it: tree_sitter_parser.ts (its worker's source, the
// wasm file names) is imported on the first outline, not when the server starts: a server whose
// calls never ask for an outline or a symbol never loads it (issue 26).

import { onFirstUse } from "../../core/first_use.ts";
import type { Language } from "../../core/outline/languages.ts";
import type { ParsedOutline, SyntaxParser } from "../../ops/ports/syntax_parser.ts";
import type { TreeSitterParser } from "./tree_sitter_parser.ts";

export class LazyTreeSitterParser implements SyntaxParser {
  #parser: TreeSitterParser | undefined;
  // A load that fails (no descriptor free) is that outline's error; the next one loads again.
  readonly #load = onFirstUse("outline", async () => {
    const { TreeSitterParser } = await import("./tree_sitter_parser.ts");
    return this.#parser = new TreeSitterParser();
  });

  async outline(
    text: string,
    language: Language,
    shouldStop?: () => boolean,
  ): Promise<ParsedOutline | null> {
    return await (await this.#load()).outline(text, language, shouldStop);
  }

  /** Ends the parser's worker when one was loaded; a later outline starts it again. */
  close(): void {
    this.#parser?.close();
  }
}
