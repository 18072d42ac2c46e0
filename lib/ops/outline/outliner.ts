// The process-wide outline service: a parser behind a bounded cache keyed by the text's content
// hash (a file viewed again, or a symbol looked up after its outline, is not parsed again), and
// the second parse for files that do not parse: the broken lines are blanked and the rest read
// again, so one unclosed bracket does not hide every declaration after it.

import { blankLines, OutlineCache, resyncLine } from "../../core/outline/mod.ts";
import type { Language } from "../../core/outline/languages.ts";
import { allDeclarations } from "../../core/outline/declaration.ts";
import type { ParsedOutline, SyntaxParser } from "../ports/syntax_parser.ts";

/**
 * Texts larger than this are not parsed; the op says so and names the search to use. A syntax
 * tree takes about 50 bytes per byte of source in tree-sitter's wasm memory, which never shrinks
 * back: 1 MiB keeps that peak near 60 MB (4 MiB took the server past 270 MB), and parses in
 * about a second here. Every hand-written source file fits; generated bundles do not.
 */
export const PARSE_MAX_BYTES = 1024 * 1024;
/** Broken regions blanked and parsed again per file, at most. */
const RECOVERY_PARSES = 3;

/** A file's outline: its declarations, and the lines that did not parse (left out). */
export interface FileOutline {
  declarations: ParsedOutline["declarations"];
  truncated: boolean;
  unparsed: { start: number; end: number }[];
}

const hex = (bytes: ArrayBuffer) =>
  [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");

export class Outliner {
  readonly #cache = new OutlineCache<FileOutline>();

  constructor(readonly parser: SyntaxParser) {}

  /** Entries and declarations the cache holds (for tests and benchmarks). */
  get cached(): { entries: number; declarations: number } {
    return { entries: this.#cache.size, declarations: this.#cache.weight };
  }

  /** The outline of `text` as `language`; null when `shouldStop` stopped the parse. */
  async outline(
    text: string,
    language: Language,
    shouldStop?: () => boolean,
  ): Promise<FileOutline | null> {
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
    const key = `${language.id}:${hex(digest)}`;
    const hit = this.#cache.get(key);
    if (hit) return hit;
    const outline = await this.#parse(text, language, shouldStop);
    if (outline) {
      const weight = [...allDeclarations(outline.declarations)].length + 1;
      this.#cache.set(key, outline, weight);
    }
    return outline;
  }

  async #parse(
    text: string,
    language: Language,
    shouldStop?: () => boolean,
  ): Promise<FileOutline | null> {
    let current = text;
    let parsed = await this.parser.outline(current, language, shouldStop);
    if (!parsed) return null;
    const blanked: { start: number; end: number }[] = [];
    for (let i = 0; i < RECOVERY_PARSES && parsed.errors.length > 0; i++) {
      const broken = parsed.errors[0]!;
      const resume = resyncLine(current, broken.start);
      if (resume === null) break;
      const next = blankLines(current, broken.start, resume - 1);
      const again = await this.parser.outline(next, language, shouldStop);
      if (!again) return null;
      // Kept only when fewer lines fail to parse than before.
      if (errorLines(again) >= errorLines(parsed)) break;
      blanked.push({ start: broken.start, end: resume - 1 });
      current = next;
      parsed = again;
    }
    return {
      declarations: parsed.declarations,
      truncated: parsed.truncated,
      unparsed: mergeRanges([...blanked, ...parsed.errors]),
    };
  }
}

const errorLines = (p: ParsedOutline) => p.errors.reduce((n, r) => n + r.end - r.start + 1, 0);

function mergeRanges(ranges: { start: number; end: number }[]): { start: number; end: number }[] {
  const sorted = ranges.toSorted((a, b) => a.start - b.start);
  const out: { start: number; end: number }[] = [];
  for (const r of sorted) {
    const last = out.at(-1);
    if (last && r.start <= last.end + 1) last.end = Math.max(last.end, r.end);
    else out.push({ ...r });
  }
  return out;
}
