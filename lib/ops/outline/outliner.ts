// The process-wide outline service: a parser behind a bounded cache keyed by the text's content
// hash (a file viewed again, or a symbol looked up after its outline, is not parsed again; the
// cache is held here, on the main thread, and bounded by the bytes its outlines take), and
// the second parse for files that do not parse: the broken lines are blanked and the rest read
// again, so one unclosed bracket does not hide every declaration after it.

import { OutlineCache } from "../../core/outline/outline_cache.ts";
import { blankLines, resyncLine } from "../../core/outline/recover.ts";
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
/** Outlines cached at most, and the bytes they may take together (estimated, see outlineBytes). */
const CACHE_ENTRIES = 256;
const CACHE_MAX_BYTES = 8 * 1024 * 1024;
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
  readonly #cache: OutlineCache<FileOutline>;

  constructor(readonly parser: SyntaxParser, cacheBytes = CACHE_MAX_BYTES) {
    this.#cache = new OutlineCache<FileOutline>(CACHE_ENTRIES, cacheBytes);
  }

  /** Entries the cache holds and their estimated bytes (for tests and benchmarks). */
  get cached(): { entries: number; bytes: number } {
    return { entries: this.#cache.size, bytes: this.#cache.weight };
  }

  /** Ends what the parser holds (its worker); the cache stays. */
  close(): void {
    this.parser.close?.();
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
      this.#cache.set(key, outline, outlineBytes(outline));
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

/**
 * About what an outline takes in memory: its strings (two bytes a character) and a fixed cost
 * per object. An estimate, for the cache's bound, not an accounting. Exported for tests.
 */
export function outlineBytes(outline: FileOutline): number {
  let bytes = 64 + 32 * outline.unparsed.length;
  for (const d of allDeclarations(outline.declarations)) {
    bytes += 96 + 2 * (d.kind.length + d.name.length + d.qualified.length + d.signature.length);
  }
  return bytes;
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
