// The outline model: a file's declarations in source order, nested by containment, and the
// shape of the syntax tree nodes they are read from (structurally what tree-sitter's nodes offer,
// so this folder never imports a parser). Pure.

/** What a declaration is, as the outline names it. */
export type DeclKind =
  | "class"
  | "interface"
  | "type"
  | "enum"
  | "struct"
  | "trait"
  | "impl"
  | "namespace"
  | "module"
  | "function"
  | "method"
  | "property"
  | "constant"
  | "variable"
  | "macro"
  | "rule";

/** One declaration of a file. Lines are 1-based and inclusive. */
export interface Declaration {
  kind: DeclKind;
  /** Its own name as written (`start`, `JobManager::size`, `.button:hover`). */
  name: string;
  /** Names of the declarations it is nested in and its own, joined with `.` (`JobManager.start`). */
  qualified: string;
  /** Its first line (decorators, attributes and `export` included). */
  start: number;
  /** Its last line. */
  end: number;
  /** The first line of the comment block right above it (its doc comment); `start` when none. */
  docStart: number;
  /** What follows the name up to the body (parameters, return type, heritage), cut short. */
  signature: string;
  children: Declaration[];
}

/** A position in a syntax tree: 0-based row and column. */
interface SyntaxPoint {
  readonly row: number;
  readonly column: number;
}

/**
 * A node of a concrete syntax tree, as far as the outline reads it. Indices are offsets into the
 * parsed string (UTF-16 code units), rows are 0-based.
 */
export interface SyntaxNode {
  readonly type: string;
  readonly startIndex: number;
  readonly endIndex: number;
  readonly startPosition: SyntaxPoint;
  readonly endPosition: SyntaxPoint;
  /** Its named children in order (tree-sitter's arrays may hold nulls). */
  readonly namedChildren: readonly (SyntaxNode | null)[];
  readonly parent: SyntaxNode | null;
  childForFieldName(field: string): SyntaxNode | null;
}

/** The last line (1-based) a node covers: a node ending at column 0 ends on the line before. */
export function lastLine(node: SyntaxNode): number {
  const { row, column } = node.endPosition;
  return column === 0 && row > node.startPosition.row ? row : row + 1;
}

/** The first line (1-based) of a node. */
export function firstLine(node: SyntaxNode): number {
  return node.startPosition.row + 1;
}

/** Every declaration of a tree, depth first in source order (parents before their members). */
export function* allDeclarations(decls: readonly Declaration[]): Generator<Declaration> {
  for (const d of decls) {
    yield d;
    yield* allDeclarations(d.children);
  }
}
