// Turns a syntax tree into the outline model: walks only where declarations live (the file's
// top level, class bodies, namespaces, and the blocks the language rules name), never into
// function bodies, so the cost follows the number of declarations, not the file's size. Names
// are qualified by nesting, doc comments attached from the comment lines right above, and
// adjacent overloads merged. Pure: the tree comes in through the SyntaxNode shape.

import {
  type Declaration,
  type DeclKind,
  firstLine,
  lastLine,
  type SyntaxNode,
} from "./declaration.ts";
import type { DeclRule, Language, NameAt } from "./languages.ts";

/** Declarations kept per file: past this the rest are dropped (and the outline says so). */
const MAX_DECLARATIONS = 20_000;
/** Containers nested deeper than this are listed without their members. */
const MAX_DEPTH = 24;
/** Signatures are cut to about this many characters. */
const SIGNATURE_MAX = 100;
/** Names longer than this are cut (a CSS selector list can be long). */
const NAME_MAX = 120;

/** Kinds whose function members are methods. */
const CLASS_LIKE: ReadonlySet<DeclKind> = new Set([
  "class",
  "interface",
  "struct",
  "trait",
  "impl",
  "enum",
]);

interface Collected {
  declarations: Declaration[];
  /** More than MAX_DECLARATIONS were found; the rest were dropped. */
  truncated: boolean;
}

interface Walk {
  src: string;
  language: Language;
  /** Comment (and attribute) blocks by their last line: first line, and whether it starts it. */
  leading: Map<number, { first: number; lineStart: boolean }>;
  count: number;
  truncated: boolean;
}

/** The declarations of a parsed file, nested, in source order. */
export function collectDeclarations(root: SyntaxNode, src: string, language: Language): Collected {
  const walk: Walk = { src, language, leading: new Map(), count: 0, truncated: false };
  const declarations: Declaration[] = [];
  scan(walk, root.namedChildren, null, declarations, 0, null);
  attachDocs(declarations, walk.leading);
  return { declarations: mergeAdjacent(declarations), truncated: walk.truncated };
}

function scan(
  walk: Walk,
  nodes: readonly (SyntaxNode | null)[],
  parent: Declaration | null,
  out: Declaration[],
  depth: number,
  wrapper: SyntaxNode | null,
): void {
  const { rules } = walk.language;
  for (const node of nodes) {
    if (!node) continue;
    if (rules.leading.has(node.type)) {
      noteLeading(walk, node);
      continue;
    }
    const rule = rules.decls[node.type];
    const decl = rule ? declare(walk, node, rule, parent, wrapper) : null;
    if (decl) {
      if (walk.count >= MAX_DECLARATIONS) {
        walk.truncated = true;
        return;
      }
      walk.count++;
      out.push(decl);
      const members = rule!.members?.(node);
      if (members && depth < MAX_DEPTH) {
        // Comments between a container's name and its body (Ruby) sit on the container itself.
        for (const child of node.namedChildren) {
          if (child && rules.leading.has(child.type)) noteLeading(walk, child);
        }
        scan(walk, members.namedChildren, decl, decl.children, depth + 1, null);
      }
    } else if (rules.wrappers.has(node.type)) {
      scan(walk, node.namedChildren, parent, out, depth, wrapper ?? node);
    } else if (rules.transparent.has(node.type) || node.type === "ERROR") {
      // A syntax error's node still holds what parsed around it: look inside.
      scan(walk, node.namedChildren, parent, out, depth, wrapper);
    }
  }
}

function readName(walk: Walk, node: SyntaxNode, rule: DeclRule): NameAt | null {
  if (typeof rule.name === "function") return rule.name(node, walk.src);
  const name = node.childForFieldName(rule.name ?? "name");
  return name ? { text: walk.src.slice(name.startIndex, name.endIndex), end: name.endIndex } : null;
}

function declare(
  walk: Walk,
  node: SyntaxNode,
  rule: DeclRule,
  parent: Declaration | null,
  wrapper: SyntaxNode | null,
): Declaration | null {
  const inClass = parent !== null && CLASS_LIKE.has(parent.kind);
  if (rule.outsideClasses && inClass) return null;
  let kind = typeof rule.kind === "function" ? rule.kind(node, walk.src) : rule.kind;
  if (!kind) return null;
  if (kind === "function" && inClass) kind = "method";
  const name = readName(walk, node, rule);
  const own = name ? cut(name.text.replace(/\s+/g, " ").trim(), NAME_MAX) : "";
  if (!name || own === "") return null;
  const qualifier = rule.qualifier?.(node, walk.src);
  const sep = walk.language.rules.separator ?? ".";
  const path = [parent?.qualified, qualifier, own.replaceAll("::", sep)].filter((p) => p);
  const body = rule.body ? rule.body(node) : node.childForFieldName("body");
  const from = rule.headerFromStart ? node.startIndex : name.end;
  const to = Math.min(body?.startIndex ?? node.endIndex, from + 4 * SIGNATURE_MAX);
  const start = Math.min(firstLine(node), wrapper ? firstLine(wrapper) : Infinity);
  return {
    kind,
    name: own,
    qualified: path.join(sep),
    start,
    end: Math.max(lastLine(node), wrapper ? lastLine(wrapper) : 0),
    docStart: start,
    signature: cutSignature(header(walk.src.slice(from, Math.max(from, to)), rule.stopAt)),
    children: [],
  };
}

function header(text: string, stopAt: RegExp | undefined): string {
  const at = stopAt ? text.search(stopAt) : -1;
  return at === -1 ? text : text.slice(0, at);
}

/** A header as one short line: whitespace collapsed, the `{`, `:` or `;` before a body dropped. */
function cutSignature(header: string): string {
  const line = header.replace(/\s+/g, " ").trim().replace(/\s*[{:;]$/, "").trim()
    // Line breaks inside brackets leave no space there: `(\n  a,\n)` reads `(a,)`.
    .replace(/([([]) /g, "$1").replace(/ ([)\]])/g, "$1");
  return cut(line, SIGNATURE_MAX);
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function noteLeading(walk: Walk, node: SyntaxNode): void {
  // A shebang is not the doc comment of what follows it.
  if (node.startIndex === 0 && walk.src.startsWith("#!")) return;
  const first = firstLine(node);
  const last = lastLine(node);
  const before = walk.src.lastIndexOf("\n", node.startIndex - 1) + 1;
  const lineStart = walk.src.slice(before, node.startIndex).trim() === "";
  const known = walk.leading.get(last);
  if (!known || known.first > first) walk.leading.set(last, { first, lineStart });
}

/** Each declaration's doc comment: the unbroken run of comment lines right above it. */
function attachDocs(decls: Declaration[], leading: Walk["leading"]): void {
  for (const d of decls) {
    let top = d.start;
    for (let block = leading.get(top - 1); block?.lineStart; block = leading.get(top - 1)) {
      top = block.first;
    }
    d.docStart = top;
    attachDocs(d.children, leading);
  }
}

/**
 * Adjacent declarations of one name and kind are one (overload signatures and their body, a
 * getter and its setter, a property and its Python setter): shown and viewed together.
 */
function mergeAdjacent(decls: Declaration[]): Declaration[] {
  const out: Declaration[] = [];
  for (const d of decls) {
    d.children = mergeAdjacent(d.children);
    const prev = out.at(-1);
    if (prev && prev.qualified === d.qualified && prev.kind === d.kind) {
      prev.end = Math.max(prev.end, d.end);
      prev.children.push(...d.children);
    } else out.push(d);
  }
  return out;
}
