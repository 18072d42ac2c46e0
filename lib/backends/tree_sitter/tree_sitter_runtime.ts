// Tree-sitter itself, inside the outline's worker (outline_worker.ts): loads the runtime and each
// grammar (wasm, from the @vscode/tree-sitter-wasm package or the copies shipped beside the
// bundle and in compiled binaries) on first use, parses with a stop check, and hands the tree to
// lib/core/outline's collector. Only the worker imports this: the main isolate never holds wasm.

import { collectDeclarations } from "../../core/outline/collect.ts";
import type { SyntaxNode } from "../../core/outline/declaration.ts";
import type { Language } from "../../core/outline/languages.ts";
import type { ParsedOutline } from "../../ops/ports/syntax_parser.ts";
import { grammarFile, RUNTIME_WASM, WASM_SUBDIR } from "./wasm_files.ts";

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
 * One runtime per worker (one wasm instance, its memory shared by every grammar), loaded once,
 * as each grammar is. A failed load is not kept: the next outline tries again (and says why).
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

/**
 * The declarations of `text` as `language`; null when `shouldStop` said to stop (it is asked
 * while tree-sitter parses). The parse runs to its end on this thread: the worker has nothing
 * else to answer meanwhile, and the main thread stops it through `shouldStop` or terminates it.
 */
export async function parseOutline(
  text: string,
  language: Language,
  shouldStop: () => boolean,
): Promise<ParsedOutline | null> {
  const { runtime } = await loadRuntime();
  const grammar = await loadGrammar(language.grammar);
  const parser = new runtime.Parser();
  try {
    parser.setLanguage(grammar);
    const tree = parser.parse(text, null, { progressCallback: shouldStop });
    if (!tree) {
      parser.reset();
      return null;
    }
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
