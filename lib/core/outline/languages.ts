// The languages an outline is made for: which file names they take (extension, a few well-known
// names, a shebang), the grammar that parses them, and the rules that say which syntax nodes are
// declarations, where their names and members are. Adding a language is adding one entry here
// (and its grammar file to the parser's list). Pure data and small node readers.

import type { DeclKind, SyntaxNode } from "./declaration.ts";

/** A name as found in the tree: its text and where it ends (the signature starts there). */
export interface NameAt {
  text: string;
  end: number;
}

/** How one node type becomes a declaration. */
export interface DeclRule {
  /** Its kind; a function for kinds read from the node (null: this node is not listed). */
  kind: DeclKind | ((node: SyntaxNode, src: string) => DeclKind | null);
  /** Where its name is: a field (default "name") or a reader; no name, no declaration. */
  name?: string | ((node: SyntaxNode, src: string) => NameAt | null);
  /** The node whose children are its members (listed nested); none: members are not listed. */
  members?: (node: SyntaxNode) => SyntaxNode | null;
  /** Where its signature ends (default: the "body" field); none: at the node's end. */
  body?: (node: SyntaxNode) => SyntaxNode | null;
  /** The signature starts at the node's start instead of its name (`impl Runner for Jobs`). */
  headerFromStart?: boolean;
  /** Listed only outside class-like declarations (module-level constants, not fields). */
  outsideClasses?: boolean;
  /** A name it belongs to though declared outside it (a Go method's receiver type). */
  qualifier?: (node: SyntaxNode, src: string) => string | null;
  /** The signature ends before this (a Ruby header ends with its line). */
  stopAt?: RegExp;
}

interface LanguageRules {
  decls: Readonly<Record<string, DeclRule>>;
  /** Nodes around one declaration whose lines are the declaration's (export, decorators). */
  wrappers: ReadonlySet<string>;
  /** Nodes walked through for the declarations inside them (declaration blocks, #ifdef). */
  transparent: ReadonlySet<string>;
  /** Nodes that belong to the declaration right below them (comments, Rust attributes). */
  leading: ReadonlySet<string>;
  /** Joins a member's name to its container's (default "."). */
  separator?: string;
}

/** A language the outline knows. `grammar` names its tree-sitter grammar. */
export interface Language {
  id: string;
  /** How the outline names it ("TypeScript"). */
  name: string;
  grammar: string;
  rules: LanguageRules;
}

const text = (src: string, node: SyntaxNode): string => src.slice(node.startIndex, node.endIndex);

const field = (name: string) => (node: SyntaxNode) => node.childForFieldName(name);

/** The first named child of one of `types`. */
function childOfType(node: SyntaxNode, ...types: string[]): SyntaxNode | null {
  return node.namedChildren.find((c) => c !== null && types.includes(c.type)) ?? null;
}

const childNamed = (...types: string[]) => (node: SyntaxNode, src: string): NameAt | null => {
  const child = childOfType(node, ...types);
  return child ? { text: text(src, child), end: child.endIndex } : null;
};

const self = (node: SyntaxNode) => node;
const set = (...names: string[]): ReadonlySet<string> => new Set(names);

// --- TypeScript, TSX and JavaScript (one rule set: JavaScript's trees use a subset) ---

const FUNCTION_VALUES = set(
  "arrow_function",
  "function_expression",
  "function",
  "generator_function",
);

/** `const x = () => …` is a function; other bindings are constants (const) or variables. */
function bindingKind(node: SyntaxNode, src: string): DeclKind {
  const value = node.childForFieldName("value");
  if (value && FUNCTION_VALUES.has(value.type)) return "function";
  const decl = node.parent;
  return decl && text(src, decl).startsWith("const") ? "constant" : "variable";
}

const functionValueBody = (node: SyntaxNode) => {
  const value = node.childForFieldName("value");
  return value && FUNCTION_VALUES.has(value.type) ? value.childForFieldName("body") : null;
};

const TS_RULES: LanguageRules = {
  decls: {
    class_declaration: { kind: "class", members: field("body") },
    abstract_class_declaration: { kind: "class", members: field("body") },
    interface_declaration: { kind: "interface", members: field("body") },
    type_alias_declaration: { kind: "type" },
    enum_declaration: { kind: "enum" },
    function_declaration: { kind: "function" },
    generator_function_declaration: { kind: "function" },
    function_signature: { kind: "function" },
    method_definition: { kind: "method" },
    method_signature: { kind: "method" },
    abstract_method_signature: { kind: "method" },
    internal_module: { kind: "namespace", members: field("body") },
    module: { kind: "namespace", members: field("body") },
    variable_declarator: { kind: bindingKind, outsideClasses: true, body: functionValueBody },
    public_field_definition: {
      kind: (node) => (functionValueBody(node) ? "method" : null),
      body: functionValueBody,
    },
  },
  wrappers: set("export_statement", "ambient_declaration"),
  transparent: set("lexical_declaration", "variable_declaration", "expression_statement"),
  leading: set("comment"),
};

// --- Python ---

function assignmentName(node: SyntaxNode, src: string): NameAt | null {
  const left = node.childForFieldName("left");
  return left && left.type === "identifier" ? { text: text(src, left), end: left.endIndex } : null;
}

const PYTHON_RULES: LanguageRules = {
  decls: {
    class_definition: { kind: "class", members: field("body") },
    function_definition: { kind: "function" },
    assignment: {
      kind: (node, src) =>
        /^_*[A-Z][A-Z0-9_]*$/.test(assignmentName(node, src)?.text ?? "") ? "constant" : "variable",
      name: assignmentName,
      outsideClasses: true,
      body: () => null,
    },
  },
  wrappers: set("decorated_definition"),
  transparent: set("expression_statement"),
  leading: set("comment"),
};

// --- Go ---

/** The receiver's type name of a Go method: `(m *JobManager)` → JobManager. */
function goReceiver(node: SyntaxNode, src: string): string | null {
  const receiver = node.childForFieldName("receiver");
  const param = receiver ? childOfType(receiver, "parameter_declaration") : null;
  const type = param?.childForFieldName("type");
  if (!type) return null;
  return text(src, type).replace(/^\*/, "").replace(/\[.*$/s, "").trim() || null;
}

function goTypeKind(node: SyntaxNode): DeclKind {
  const type = node.childForFieldName("type")?.type;
  return type === "struct_type" ? "struct" : type === "interface_type" ? "interface" : "type";
}

const GO_RULES: LanguageRules = {
  decls: {
    function_declaration: { kind: "function" },
    method_declaration: { kind: "method", qualifier: goReceiver },
    type_spec: { kind: goTypeKind, body: field("type") },
    type_alias: { kind: "type", body: () => null },
    const_spec: { kind: "constant", body: () => null },
    var_spec: { kind: "variable", body: () => null },
  },
  wrappers: set(),
  transparent: set("type_declaration", "const_declaration", "var_declaration"),
  leading: set("comment"),
};

// --- Rust ---

/** An impl block is named after its type, generics dropped: `impl<T> Stack<T>` → Stack. */
function implName(node: SyntaxNode, src: string): NameAt | null {
  const type = node.childForFieldName("type");
  if (!type) return null;
  return { text: text(src, type).replace(/<.*$/s, "").trim(), end: type.endIndex };
}

const RUST_RULES: LanguageRules = {
  decls: {
    function_item: { kind: "function" },
    function_signature_item: { kind: "function", body: () => null },
    struct_item: { kind: "struct" },
    union_item: { kind: "struct" },
    enum_item: { kind: "enum" },
    trait_item: { kind: "trait", members: field("body") },
    impl_item: { kind: "impl", name: implName, members: field("body"), headerFromStart: true },
    mod_item: { kind: "module", members: field("body") },
    const_item: { kind: "constant", body: () => null },
    static_item: { kind: "constant", body: () => null },
    type_item: { kind: "type", body: () => null },
    macro_definition: { kind: "macro", body: () => null },
  },
  wrappers: set(),
  transparent: set(),
  leading: set("line_comment", "block_comment", "attribute_item"),
};

// --- Java ---

function declaratorName(node: SyntaxNode, src: string): NameAt | null {
  const name = node.childForFieldName("declarator")?.childForFieldName("name");
  return name ? { text: text(src, name), end: name.endIndex } : null;
}

const JAVA_RULES: LanguageRules = {
  decls: {
    class_declaration: { kind: "class", members: field("body") },
    record_declaration: { kind: "class", members: field("body") },
    interface_declaration: { kind: "interface", members: field("body") },
    annotation_type_declaration: { kind: "interface", members: field("body") },
    enum_declaration: { kind: "enum", members: field("body") },
    method_declaration: { kind: "method" },
    constructor_declaration: { kind: "method" },
    compact_constructor_declaration: { kind: "method" },
    field_declaration: {
      kind: (node, src) => {
        const modifiers = childOfType(node, "modifiers");
        const words = modifiers ? text(src, modifiers) : "";
        return /\bstatic\b/.test(words) && /\bfinal\b/.test(words) ? "constant" : null;
      },
      name: declaratorName,
      body: () => null,
    },
    constant_declaration: { kind: "constant", name: declaratorName, body: () => null },
  },
  wrappers: set(),
  transparent: set("enum_body_declarations"),
  leading: set("line_comment", "block_comment"),
};

// --- C# ---

function csharpFieldName(node: SyntaxNode, src: string): NameAt | null {
  const declarator = childOfType(
    childOfType(node, "variable_declaration") ?? node,
    "variable_declarator",
  );
  const name = declarator?.childForFieldName("name") ??
    (declarator && childOfType(declarator, "identifier"));
  return name ? { text: text(src, name), end: name.endIndex } : null;
}

const CSHARP_RULES: LanguageRules = {
  decls: {
    namespace_declaration: { kind: "namespace", members: field("body") },
    file_scoped_namespace_declaration: { kind: "namespace", members: self, body: () => null },
    class_declaration: { kind: "class", members: field("body") },
    record_declaration: { kind: "class", members: field("body") },
    struct_declaration: { kind: "struct", members: field("body") },
    record_struct_declaration: { kind: "struct", members: field("body") },
    interface_declaration: { kind: "interface", members: field("body") },
    enum_declaration: { kind: "enum" },
    method_declaration: { kind: "method" },
    constructor_declaration: { kind: "method" },
    destructor_declaration: { kind: "method" },
    property_declaration: { kind: "property", body: field("accessors") },
    delegate_declaration: { kind: "type", body: () => null },
    field_declaration: {
      kind: (node, src) => (/^[^=]*\bconst\b/.test(text(src, node)) ? "constant" : null),
      name: csharpFieldName,
      body: () => null,
    },
  },
  wrappers: set(),
  transparent: set(),
  leading: set("comment"),
};

// --- C and C++ (one grammar: C++'s, which reads C) ---

const DECLARATOR_WRAPPERS = set(
  "pointer_declarator",
  "reference_declarator",
  "parenthesized_declarator",
  "attributed_declarator",
);

/** The function_declarator under a declaration's declarator chain, or null. */
function functionDeclarator(node: SyntaxNode): SyntaxNode | null {
  let d = node.childForFieldName("declarator");
  for (let i = 0; d && i < 8; i++) {
    if (d.type === "function_declarator") return d;
    if (!DECLARATOR_WRAPPERS.has(d.type)) return null;
    d = d.childForFieldName("declarator");
  }
  return null;
}

function cFunctionName(node: SyntaxNode, src: string): NameAt | null {
  const name = functionDeclarator(node)?.childForFieldName("declarator");
  return name ? { text: text(src, name), end: name.endIndex } : null;
}

const cFunction = (kind: DeclKind): DeclRule => ({
  kind: (node) => (functionDeclarator(node) ? kind : null),
  name: cFunctionName,
});

/** `const int MAX = 4;` at file or namespace level: the declarator's name. */
function cConstantName(node: SyntaxNode, src: string): NameAt | null {
  const init = node.childForFieldName("declarator");
  const name = init?.type === "init_declarator" ? init.childForFieldName("declarator") : null;
  return name?.type === "identifier" ? { text: text(src, name), end: name.endIndex } : null;
}

/** A top-level declaration: a function's prototype, or a constant. */
const C_DECLARATION: DeclRule = {
  kind: (node, src) =>
    functionDeclarator(node)
      ? "function"
      : childOfType(node, "type_qualifier") && /\bconst\b/.test(text(src, node).split("=")[0]!) &&
          cConstantName(node, src)
      ? "constant"
      : null,
  name: (node, src) => cFunctionName(node, src) ?? cConstantName(node, src),
  body: () => null,
  outsideClasses: true,
};

/** A named struct, class, union or enum with a body (`struct s;` declares nothing new). */
const cType = (kind: DeclKind, members: boolean): DeclRule => ({
  kind: (node) => (node.childForFieldName("body") ? kind : null),
  ...(members ? { members: field("body") } : {}),
});

const C_RULES: LanguageRules = {
  decls: {
    function_definition: cFunction("function"),
    declaration: C_DECLARATION,
    field_declaration: cFunction("method"),
    class_specifier: cType("class", true),
    struct_specifier: cType("struct", true),
    union_specifier: cType("struct", true),
    enum_specifier: cType("enum", false),
    namespace_definition: { kind: "namespace", members: field("body") },
    type_definition: {
      kind: "type",
      name: (node, src) => {
        const d = node.childForFieldName("declarator");
        return d ? { text: text(src, d), end: d.endIndex } : null;
      },
      body: () => null,
    },
    preproc_def: { kind: "macro", body: () => null },
    preproc_function_def: { kind: "macro", body: () => null },
  },
  wrappers: set("template_declaration"),
  transparent: set(
    "linkage_specification",
    "declaration_list",
    "preproc_ifdef",
    "preproc_if",
    "preproc_else",
    "preproc_elif",
  ),
  leading: set("comment"),
};

// --- Ruby ---

const RUBY_RULES: LanguageRules = {
  decls: {
    class: { kind: "class", members: field("body"), stopAt: /\n/ },
    module: { kind: "module", members: field("body"), stopAt: /\n/ },
    method: { kind: "method", stopAt: /\n/ },
    singleton_method: { kind: "method", stopAt: /\n/ },
    assignment: {
      kind: (node) => (node.childForFieldName("left")?.type === "constant" ? "constant" : null),
      name: (node, src) => {
        const left = node.childForFieldName("left");
        return left ? { text: text(src, left), end: left.endIndex } : null;
      },
      body: () => null,
    },
  },
  wrappers: set(),
  transparent: set(),
  leading: set("comment"),
};

// --- PHP ---

const PHP_RULES: LanguageRules = {
  decls: {
    namespace_definition: { kind: "namespace", members: field("body") },
    class_declaration: { kind: "class", members: field("body") },
    interface_declaration: { kind: "interface", members: field("body") },
    trait_declaration: { kind: "trait", members: field("body") },
    enum_declaration: { kind: "enum", members: field("body") },
    function_definition: { kind: "function" },
    method_declaration: { kind: "method" },
    const_element: { kind: "constant", name: childNamed("name"), body: () => null },
  },
  wrappers: set(),
  transparent: set("const_declaration"),
  leading: set("comment"),
};

// --- Bash ---

const BASH_RULES: LanguageRules = {
  decls: { function_definition: { kind: "function" } },
  wrappers: set(),
  transparent: set(),
  leading: set("comment"),
};

// --- PowerShell ---

const scriptBlock = (node: SyntaxNode) => childOfType(node, "script_block");

const POWERSHELL_RULES: LanguageRules = {
  decls: {
    function_statement: { kind: "function", name: childNamed("function_name"), body: scriptBlock },
    class_statement: {
      kind: "class",
      name: childNamed("simple_name"),
      members: self,
      body: () => null,
      stopAt: /\{/,
    },
    class_method_definition: { kind: "method", name: childNamed("simple_name"), body: scriptBlock },
    enum_statement: { kind: "enum", name: childNamed("simple_name") },
  },
  wrappers: set(),
  transparent: set("statement_list"),
  leading: set("comment"),
};

// --- CSS ---

const block = (node: SyntaxNode) => childOfType(node, "block", "keyframe_block_list");

/** A rule's name is its header: the selectors, or the at-rule with its query. */
function cssHeader(node: SyntaxNode, src: string): NameAt | null {
  const end = block(node)?.startIndex ?? node.endIndex;
  const header = src.slice(node.startIndex, end).replace(/\s+/g, " ").trim();
  return header ? { text: header, end } : null;
}

const cssRule = (members: boolean): DeclRule => ({
  kind: "rule",
  name: cssHeader,
  body: block,
  ...(members ? { members: block } : {}),
});

const CSS_RULES: LanguageRules = {
  decls: {
    rule_set: cssRule(false),
    media_statement: cssRule(true),
    supports_statement: cssRule(true),
    keyframes_statement: cssRule(false),
    at_rule: cssRule(true),
  },
  wrappers: set(),
  transparent: set(),
  leading: set("comment"),
  // `@media (max-width: 600px) .button`: a selector inside an at-rule reads as CSS nesting does.
  separator: " ",
};

export const LANGUAGES: Readonly<Record<string, Language>> = {
  typescript: { id: "typescript", name: "TypeScript", grammar: "typescript", rules: TS_RULES },
  tsx: { id: "tsx", name: "TSX", grammar: "tsx", rules: TS_RULES },
  javascript: { id: "javascript", name: "JavaScript", grammar: "javascript", rules: TS_RULES },
  python: { id: "python", name: "Python", grammar: "python", rules: PYTHON_RULES },
  go: { id: "go", name: "Go", grammar: "go", rules: GO_RULES },
  rust: { id: "rust", name: "Rust", grammar: "rust", rules: RUST_RULES },
  java: { id: "java", name: "Java", grammar: "java", rules: JAVA_RULES },
  c: { id: "c", name: "C", grammar: "cpp", rules: C_RULES },
  cpp: { id: "cpp", name: "C++", grammar: "cpp", rules: C_RULES },
  csharp: { id: "csharp", name: "C#", grammar: "c-sharp", rules: CSHARP_RULES },
  ruby: { id: "ruby", name: "Ruby", grammar: "ruby", rules: RUBY_RULES },
  php: { id: "php", name: "PHP", grammar: "php", rules: PHP_RULES },
  bash: { id: "bash", name: "Bash", grammar: "bash", rules: BASH_RULES },
  powershell: {
    id: "powershell",
    name: "PowerShell",
    grammar: "powershell",
    rules: POWERSHELL_RULES,
  },
  css: { id: "css", name: "CSS", grammar: "css", rules: CSS_RULES },
};

const EXTENSIONS: Readonly<Record<string, string>> = {
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "tsx",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsx: "javascript",
  py: "python",
  pyi: "python",
  pyw: "python",
  go: "go",
  rs: "rust",
  java: "java",
  c: "c",
  h: "c",
  cc: "cpp",
  cpp: "cpp",
  cxx: "cpp",
  "c++": "cpp",
  hh: "cpp",
  hpp: "cpp",
  hxx: "cpp",
  cs: "csharp",
  rb: "ruby",
  rake: "ruby",
  gemspec: "ruby",
  php: "php",
  sh: "bash",
  bash: "bash",
  ps1: "powershell",
  psm1: "powershell",
  css: "css",
};

const FILE_NAMES: Readonly<Record<string, string>> = {
  Rakefile: "ruby",
  Gemfile: "ruby",
  ".bashrc": "bash",
  ".bash_profile": "bash",
  ".profile": "bash",
};

const SHEBANGS: readonly [RegExp, string][] = [
  [/^#!.*\b(?:ba)?sh\b/, "bash"],
  [/^#!.*\bpython[0-9.]*\b/, "python"],
  [/^#!.*\b(?:node|deno|bun)\b/, "javascript"],
  [/^#!.*\bruby\b/, "ruby"],
  [/^#!.*\bphp\b/, "php"],
  [/^#!.*\bpwsh\b/, "powershell"],
];

/**
 * The language of a file from its base name, else from a shebang on its first line; undefined
 * when the outline has no grammar for it.
 */
export function languageFor(baseName: string, firstLine = ""): Language | undefined {
  const dot = baseName.lastIndexOf(".");
  const byName = FILE_NAMES[baseName] ??
    (dot > 0 ? EXTENSIONS[baseName.slice(dot + 1).toLowerCase()] : undefined);
  if (byName) return LANGUAGES[byName];
  if (dot > 0 || !firstLine.startsWith("#!")) return undefined;
  const id = SHEBANGS.find(([re]) => re.test(firstLine))?.[1];
  return id ? LANGUAGES[id] : undefined;
}

/** The languages' names for the sentence a file without a grammar gets ("TypeScript, …"). */
export function languageNames(): string {
  const names = [...new Set(Object.values(LANGUAGES).map((l) => l.name))];
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}
