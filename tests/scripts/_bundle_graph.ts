// Reads a built bundle's file graph (scripts/release/bundle.ts): which files load with a file
// (its static imports, followed), which can ever load (its import()s too), and which source
// modules each file holds (the bundle's sources.json, written before its comments went).

import { SOURCES_FILE } from "../../scripts/release/bundle.ts";

/**
 * A static import or re-export of a file beside this one, as the compacted bundle has them
 * (`import{a as b}from"./chunk-X.js";`, `import"./chunk-Y.js";`), at a statement's start. The `;`
 * that ends one is left for the next to start after (consumed, every second import was missed).
 */
const STATIC_IMPORT = /(?:^|;)(?:import|export)\s*(?:[^;"]*?from\s*)?"\.\/([^"]+\.js)"(?=;|$)/gm;
/**
 * An import() of a file beside this one: literal (the entry's of the core file), or as the chunks
 * have them, through the late import (bundle.ts deferImports: `new URL("./x.js",import.meta.url)`).
 */
const DYNAMIC_IMPORT =
  /\bimport\("\.\/([^"]+\.js)"\)|\bnew URL\("\.\/([^"]+\.js)",import\.meta\.url\)/g;

async function closure(dir: string, file: string, dynamic: boolean): Promise<string[]> {
  const seen = new Set<string>();
  const todo = [file];
  while (todo.length > 0) {
    const next = todo.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    const code = await Deno.readTextFile(`${dir}/${next}`);
    for (const m of code.matchAll(STATIC_IMPORT)) todo.push(m[1]!);
    if (dynamic) { for (const m of code.matchAll(DYNAMIC_IMPORT)) todo.push((m[1] ?? m[2])!); }
  }
  return [...seen].sort();
}

/** The files of `dir` that load with `file`: it and its static imports, followed. */
export function startFiles(dir: string, file: string): Promise<string[]> {
  return closure(dir, file, false);
}

/** The files of `dir` that `file` can ever load: static imports and import()s, followed. */
export function reachableFiles(dir: string, file: string): Promise<string[]> {
  return closure(dir, file, true);
}

/**
 * The source modules file `file` of `dir` holds (sources.json): `lib/...` paths as in the
 * checkout, npm packages' files as `npm:<name>/<version>/<file>`.
 */
export async function modulesIn(dir: string, file: string): Promise<string[]> {
  const sources = JSON.parse(await Deno.readTextFile(`${dir}/${SOURCES_FILE}`));
  const modules = sources[file];
  if (!Array.isArray(modules)) throw new Error(`${SOURCES_FILE} does not list ${file}`);
  return modules;
}

/**
 * What only some calls need (lib/core/first_use.ts and the import()s behind it): none of it may
 * load with the core file, each must ship in a chunk of its own (issue 26).
 */
export const LAZY_MODULES: [string, RegExp][] = [
  ["ssh2", /^npm:ssh2\//],
  ["the ssh connection", /^lib\/backends\/ssh\/ssh_(host|link)\.ts$/],
  ["the ssh config reader", /^lib\/core\/ssh\/ssh_config\.ts$/],
  ["the scanner", /^lib\/backends\/local\/parallel_scan\.ts$/],
  ["tree ops", /^lib\/ops\/tree\/(search|list_dir)\.ts$/],
  ["edits", /^lib\/ops\/edit\/(text_editor|batch_edit|extract_lines)\.ts$/],
  ["the re-view diff", /^lib\/core\/edit\/edit_diff\.ts$/],
  ["outlines", /^lib\/ops\/outline\/(file_outline|repo_map)\.ts$/],
  ["the outline parser", /^lib\/backends\/tree_sitter\/tree_sitter_parser\.ts$/],
  ["the shell policy", /^lib\/core\/shell\/policy\/mod\.ts$/],
  ["the CLI", /^lib\/cli\/main\.ts$/],
];

/**
 * For each of LAZY_MODULES, the files among `files` of `dir` holding one of its modules.
 */
export async function lazyPlaces(
  dir: string,
  files: string[],
): Promise<Record<string, string[]>> {
  const places: Record<string, string[]> = {};
  for (const [what] of LAZY_MODULES) places[what] = [];
  for (const file of files) {
    const modules = await modulesIn(dir, file);
    for (const [what, pattern] of LAZY_MODULES) {
      if (modules.some((m) => pattern.test(m))) places[what]!.push(file);
    }
  }
  return places;
}
