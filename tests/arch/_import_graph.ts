// The import scanner the architecture tests share: every .ts file under a folder with its
// imports (relative ones resolved to repo paths, bare ones as written), and a rule runner that
// takes the file list as an argument, so a test can feed it a graph that breaks the rule.

import { REPO_ROOT } from "../_harness.ts";

export interface SourceFile {
  path: string; // relative to the repo, e.g. lib/core/edit/line_id.ts
  imports: string[]; // resolved repo-relative paths for relative imports, bare specifiers as written
  text: string;
}

/** The imports `text` (a file at repo path `rel`) names. */
export function importsOf(rel: string, text: string): string[] {
  const imports: string[] = [];
  for (
    const m of text.matchAll(/(?:^|\n)\s*(?:import|export)[^"'`]*?from\s+["']([^"']+)["']/g)
  ) {
    const spec = m[1]!;
    imports.push(spec.startsWith(".") ? new URL(spec, `file:///${rel}`).pathname.slice(1) : spec);
  }
  for (const m of text.matchAll(/import\(\s*["']([^"']+)["']\s*\)/g)) imports.push(m[1]!);
  return imports;
}

export async function collect(dir: string): Promise<SourceFile[]> {
  const out: SourceFile[] = [];
  for await (const entry of Deno.readDir(`${REPO_ROOT}/${dir}`)) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory) out.push(...await collect(rel));
    else if (entry.isFile && entry.name.endsWith(".ts")) {
      const text = await Deno.readTextFile(`${REPO_ROOT}/${rel}`);
      out.push({ path: rel, imports: importsOf(rel, text), text });
    }
  }
  return out;
}

/** `file imports imp` for every import of `files` that breaks `rule`. */
export function violationsIn(
  files: readonly SourceFile[],
  rule: (f: SourceFile, imp: string) => boolean,
): string[] {
  const bad: string[] = [];
  for (const f of files) {
    for (const imp of f.imports) if (rule(f, imp)) bad.push(`${f.path} imports ${imp}`);
  }
  return bad;
}

export const inDir = (p: string, dir: string): boolean => p.startsWith(`${dir}/`);
