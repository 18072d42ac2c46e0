// The export scanner of tests/arch/exports_test.ts: which names each module exports and which
// names each file imports from which module, read from the source text (no type checker).

/** One import of a file: the module (repo-relative for relative specifiers) and the names taken. */
export interface ModuleImport {
  from: string;
  module: string;
  /** The names imported, or "*" for a namespace import, `export *` or a dynamic import(). */
  names: string[] | "*";
}

const DECLARATION =
  /^export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\s*\*?|const|let|var|class|interface|type|enum)\s+(\w+)/gm;

/** The names `text` exports by declaration or by a local `export { a, b as c }` list. */
export function exportedNames(text: string): Map<string, number> {
  const names = new Map<string, number>();
  const lineOf = (index: number) => text.slice(0, index).split("\n").length;
  for (const m of text.matchAll(DECLARATION)) names.set(m[1]!, lineOf(m.index!));
  for (const m of text.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}\s*(from\s+["'][^"']+["'])?/gm)) {
    for (const part of m[1]!.split(",")) {
      const name = part.trim().replace(/^type\s+/, "").split(/\s+as\s+/).pop()!.trim();
      if (name !== "") names.set(name, lineOf(m.index!));
    }
  }
  return names;
}

function resolve(spec: string, from: string): string {
  return spec.startsWith(".") ? new URL(spec, `file:///${from}`).pathname.slice(1) : spec;
}

/** What `text` (the file at repo path `from`) imports, and re-exports, from other modules. */
export function importsOf(text: string, from: string): ModuleImport[] {
  const out: ModuleImport[] = [];
  const braces =
    /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:(\w+)\s*,\s*)?\{([^}]*)\}\s*from\s+["']([^"']+)["']/g;
  for (const m of text.matchAll(braces)) {
    const names = m[2]!.split(",").map((p) =>
      p.trim().replace(/^type\s+/, "").split(/\s+as\s+/)[0]!.trim()
    ).filter((n) => n !== "");
    if (m[1]) names.push("default");
    out.push({ from, module: resolve(m[3]!, from), names });
  }
  const star =
    /(?:^|\n)\s*(?:import\s+(?:type\s+)?\*\s+as\s+\w+|export\s+\*(?:\s+as\s+\w+)?)\s+from\s+["']([^"']+)["']/g;
  for (const m of text.matchAll(star)) out.push({ from, module: resolve(m[1]!, from), names: "*" });
  for (const m of text.matchAll(/(?:^|\n)\s*import\s+(\w+)\s+from\s+["']([^"']+)["']/g)) {
    out.push({ from, module: resolve(m[2]!, from), names: ["default"] });
  }
  for (const m of text.matchAll(/import\(\s*["'`]([^"'`]+)["'`]\s*\)/g)) {
    const names = dynamicNames(text.slice(0, m.index), text.slice(m.index! + m[0].length));
    out.push({ from, module: resolve(m[1]!, from), names });
  }
  return out;
}

/**
 * The names a dynamic import() takes, read around it: `const { a, b } = await import(...)`,
 * `(await import(...)).a`, `typeof import(...).a`, `import(...).then(({ a }) => ...)`; any other
 * use takes the whole module ("*").
 */
function dynamicNames(before: string, after: string): string[] | "*" {
  const list = (names: string) =>
    names.split(",").map((p) => p.trim().split(/\s*:\s*/)[0]!.trim()).filter((n) => n !== "");
  const destructured = /const\s*\{([^}]*)\}\s*=\s*await\s*$/.exec(before);
  if (destructured) return list(destructured[1]!);
  const member = /^\)?\.(\w+)/.exec(after);
  if (member && member[1] !== "then") return [member[1]!];
  const then = /^\.then\(\s*\(\s*\{([^}]*)\}\s*\)/.exec(after);
  if (then) return list(then[1]!);
  return "*";
}

/** Whether the export declared at `line` (1-based) carries the test-only tag in its comment. */
export function taggedForTests(text: string, line: number): boolean {
  const lines = text.split("\n");
  for (let i = line - 1; i >= 0; i--) {
    const l = lines[i]!.trim();
    if (/exported for (?:tests|benches|the release scripts)/i.test(l)) return true;
    if (i < line - 1 && !(l.startsWith("//") || l.startsWith("*") || l.startsWith("/**"))) break;
  }
  return false;
}
