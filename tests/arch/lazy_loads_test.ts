// What a server loads before it needs it is memory it holds for good (issue 26): the optional
// parts' heavy modules (ssh2, the HTTP server, tree-sitter) stay out of the static import graph
// that the first call loads (lib/commands.ts), reached only by a dynamic import() where used; so
// do, for a server whose calls view files, the modules of other calls: the ssh config and
// connection, listing and search (ops/tree, the scanner's workers, globs, re2js), the edit ops and
// their diff, the human CLI, and outlines (the file outline, the language table, the parser).

import { assertEquals } from "../_assert.ts";
import { REPO_ROOT } from "../_harness.ts";

interface InfoModule {
  specifier: string;
  dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
}

/** Every module reachable from `roots` by static imports (`deno info --json`, from the cache). */
async function staticGraph(...roots: string[]): Promise<string[]> {
  const all = new Set<string>();
  for (const root of roots) for (const s of await staticGraphOf(root)) all.add(s);
  return [...all];
}

async function staticGraphOf(root: string): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", root],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    roots: string[];
    modules: InfoModule[];
    redirects: Record<string, string>;
  };
  const byName = new Map(info.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const visit = (specifier: string) => {
    const name = info.redirects[specifier] ?? specifier;
    if (seen.has(name)) return;
    seen.add(name);
    for (const dep of byName.get(name)?.dependencies ?? []) {
      if (dep.code && !dep.isDynamic) visit(dep.code.specifier);
    }
  };
  for (const r of info.roots) visit(r);
  return [...seen].map((s) => s.replace(`file://${REPO_ROOT}/`, ""));
}

/** A module as the lists below name it: repo paths as they are, npm ones by package name. */
const named = (s: string) => s.replace(/^npm:\/?((?:@[^/]+\/)?[^@/]+)@.*$/, "npm:$1");

Deno.test("the modules the first call loads hold no ssh2, HTTP serving or tree-sitter", async () => {
  const graph = (await staticGraph("lib/commands.ts")).map(named);
  // deno info names npm modules `npm:/ssh2@1.17.0`: matched by package name.
  const optional = graph.filter((s) =>
    s.startsWith("lib/mcp/http/http_command") || s === "npm:ssh2" ||
    s === "npm:@vscode/tree-sitter-wasm"
  );
  assertEquals(optional, []);
  // The scan is not vacuous: the graph reaches the server and the local backend.
  assertEquals(graph.includes("lib/backends/local/local_backend.ts"), true);
  assertEquals(graph.includes("lib/mcp/command.ts"), true);
});

/** Modules only some calls need, by what needs them (repo paths, or npm package names). */
const LOADED_ON_FIRST_USE = [
  "lib/backends/ssh/ssh_host.ts", // an ssh:// path
  "lib/backends/ssh/ssh_link.ts",
  "lib/core/ssh/ssh_config.ts",
  "lib/backends/local/parallel_scan.ts", // a listing or a search
  "lib/backends/local/scan_worker.ts", // the workers' source, with the pool
  "lib/backends/local/inline_scan.ts",
  "lib/ops/tree/list_dir.ts",
  "lib/ops/tree/search.ts",
  "lib/ops/outline/repo_map.ts",
  "lib/core/search/glob.ts", // view's `pattern`
  "lib/core/search/search_pattern.ts", // view's `content`
  "npm:re2js",
  "lib/ops/edit/text_editor.ts", // an edit
  "lib/ops/edit/batch_edit.ts",
  "lib/ops/edit/extract_lines.ts",
  "lib/core/edit/edit_diff.ts", // an edit, or the re-view of a changed file
  "npm:diff",
  "lib/cli/main.ts", // the human CLI
  "lib/ops/outline/file_outline.ts", // view's `outline` or `symbol`
  "lib/core/outline/languages.ts",
  "lib/backends/tree_sitter/tree_sitter_parser.ts",
];

Deno.test("a server whose calls view files loads none of what other calls need", async () => {
  // What `anchorfs mcp` loads by its first call: the commands and the stdio server.
  const graph = await staticGraph("lib/commands.ts", "lib/mcp/stdio/stdio_serve.ts");
  const loaded = new Set(graph.map(named));
  assertEquals(LOADED_ON_FIRST_USE.filter((m) => loaded.has(m)), []);
  // Not vacuous: the graph holds the file view, the SDK and zod, named as the list names them.
  for (const m of ["lib/ops/view_file.ts", "npm:@modelcontextprotocol/server", "npm:zod"]) {
    assertEquals(loaded.has(m), true, m);
  }
});
