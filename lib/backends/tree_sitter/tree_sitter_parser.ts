// The tree-sitter adapter behind outlines: loads the runtime and each grammar (wasm, from the
// @vscode/tree-sitter-wasm package, or the copies shipped beside the bundle and in compiled
// binaries) on first use, parses with a stop check, and hands the tree to lib/core/outline's
// collector. Nothing is imported or read before the first outline: start-up stays as it was.

import { setImmediate } from "node:timers";
import { collectDeclarations } from "../../core/outline/collect.ts";
import type { SyntaxNode } from "../../core/outline/declaration.ts";
import { type Language, LANGUAGES } from "../../core/outline/languages.ts";
import type { ParsedOutline, SyntaxParser } from "../../ops/ports/syntax_parser.ts";

/** The part of web-tree-sitter's API this adapter uses. */
interface TreeSitterNode extends SyntaxNode {
  readonly hasError: boolean;
  readonly isMissing: boolean;
  readonly children: readonly (TreeSitterNode | null)[];
}
interface Tree {
  readonly rootNode: TreeSitterNode;
  delete(): void;
}
interface Parser {
  setLanguage(language: unknown): Parser;
  parse(
    input: string,
    oldTree: null,
    options: { progressCallback: () => boolean },
  ): Tree | null;
  reset(): void;
  delete(): void;
}
interface Runtime {
  Parser: {
    new (): Parser;
    init(options: Record<string, unknown>): Promise<void>;
  };
  Language: { load(bytes: Uint8Array): Promise<unknown> };
}

/** Where the wasm files are shipped beside the bundle (dist/) and inside compiled binaries. */
export const WASM_SUBDIR = "tree-sitter";
/** The runtime's own wasm file. */
export const RUNTIME_WASM = "tree-sitter.wasm";
/** The grammar file of a grammar name (`typescript` → tree-sitter-typescript.wasm). */
export const grammarFile = (grammar: string) => `tree-sitter-${grammar}.wasm`;

/** Every wasm file the outline uses: the runtime and one grammar per language (for packaging). */
export function wasmFiles(): string[] {
  const grammars = new Set(Object.values(LANGUAGES).map((l) => l.grammar));
  return [RUNTIME_WASM, ...[...grammars].sort().map(grammarFile)];
}

/** Syntax error ranges reported per file (the first ones, in source order). */
const MAX_ERROR_RANGES = 3;

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

function say(line: string): void {
  // stdout is the MCP channel: the runtime's messages go to stderr.
  Deno.stderr.writeSync(new TextEncoder().encode(`anchorfs: tree-sitter: ${line}\n`));
}

type Loaded = { runtime: Runtime; dir: string };

/**
 * Parsing runs in slices of this many milliseconds: tree-sitter stops when asked and resumes
 * where it left off on the next call, so a big file never holds the event loop (pings, other
 * calls, a cancellation) for longer than one slice.
 */
const SLICE_MS = 10;

/**
 * The runtime is process-wide (one wasm instance, its memory shared by every grammar): loaded
 * once for every TreeSitterParser, as each grammar is. A failed load is not kept: the next
 * outline tries again (and says why again).
 */
let loading: Promise<Loaded> | undefined;
const grammars = new Map<string, Promise<unknown>>();

function loadRuntime(): Promise<Loaded> {
  loading ??= (async () => {
    const runtime = (await import("@vscode/tree-sitter-wasm")).default as unknown as Runtime;
    // Beside a bundle (dist/, the npm package, a compiled binary) the wasm files are in the
    // tree-sitter/ folder next to this code, read with Deno's API (which reads a compiled
    // binary's embedded files); from source they are in the npm package, found by the runtime.
    const beside = `${import.meta.dirname}/${WASM_SUBDIR}/`;
    let dir = isFile(`${beside}${RUNTIME_WASM}`) ? beside : undefined;
    await runtime.Parser.init({
      ...(dir ? { wasmBinary: await Deno.readFile(`${dir}${RUNTIME_WASM}`) } : {}),
      locateFile: (file: string, folder: string) => `${(dir ??= folder)}${file}`,
      print: say,
      printErr: say,
    });
    if (!dir) throw new Error("tree-sitter's runtime did not say where its wasm files are");
    return { runtime, dir };
  })();
  loading.catch(() => (loading = undefined));
  return loading;
}

function loadGrammar(grammar: string): Promise<unknown> {
  let loaded = grammars.get(grammar);
  if (!loaded) {
    loaded = loadRuntime().then(async ({ runtime, dir }) =>
      runtime.Language.load(await Deno.readFile(`${dir}${grammarFile(grammar)}`))
    );
    grammars.set(grammar, loaded);
    loaded.catch(() => grammars.delete(grammar));
  }
  return loaded;
}

export class TreeSitterParser implements SyntaxParser {
  async outline(
    text: string,
    language: Language,
    shouldStop?: () => boolean,
  ): Promise<ParsedOutline | null> {
    const { runtime } = await loadRuntime();
    const grammar = await loadGrammar(language.grammar);
    // A parser per call: a parse paused between slices must not be resumed by another call.
    const parser = new runtime.Parser();
    try {
      parser.setLanguage(grammar);
      const tree = await parseInSlices(parser, text, shouldStop);
      if (!tree) return null;
      try {
        const { declarations, truncated } = collectDeclarations(tree.rootNode, text, language);
        return { declarations, truncated, errors: errorRanges(tree.rootNode) };
      } finally {
        tree.delete();
      }
    } finally {
      parser.delete();
    }
  }
}

/** The tree of `text`, parsed a slice at a time; null when `shouldStop` said to stop. */
async function parseInSlices(
  parser: Parser,
  text: string,
  shouldStop?: () => boolean,
): Promise<Tree | null> {
  for (;;) {
    const sliceEnd = performance.now() + SLICE_MS;
    let stop = false;
    const tree = parser.parse(text, null, {
      progressCallback: () => (stop = shouldStop?.() ?? false) || performance.now() > sliceEnd,
    });
    if (tree) return tree;
    if (stop) {
      parser.reset();
      return null;
    }
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/**
 * The lines of the first few syntax errors (ERROR and MISSING nodes), descending only into nodes
 * that contain one; adjacent ranges are merged.
 */
function errorRanges(root: TreeSitterNode): { start: number; end: number }[] {
  const ranges: { start: number; end: number }[] = [];
  if (!root.hasError) return ranges;
  const stack: TreeSitterNode[] = [root];
  let visited = 0;
  while (stack.length > 0 && ranges.length < MAX_ERROR_RANGES && visited++ < 100_000) {
    const node = stack.pop()!;
    if (node.type === "ERROR" || node.isMissing) {
      const start = node.startPosition.row + 1;
      const end = Math.max(start, node.endPosition.row + 1);
      const last = ranges.at(-1);
      if (last && start <= last.end + 1) last.end = Math.max(last.end, end);
      else ranges.push({ start, end });
      continue;
    }
    const children = node.children.filter((c): c is TreeSitterNode =>
      c !== null && (c.hasError || c.isMissing || c.type === "ERROR")
    );
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return ranges;
}
