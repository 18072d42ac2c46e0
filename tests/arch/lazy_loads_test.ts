// What a server loads before it needs it is memory it holds for good (issue 26): the optional
// parts' heavy modules (ssh2, the HTTP server, tree-sitter) stay out of the static import graph
// that the first call loads (lib/commands.ts), reached only by a dynamic import() where used.

import { assertEquals } from "../_assert.ts";
import { REPO_ROOT } from "../_harness.ts";

interface InfoModule {
  specifier: string;
  dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
}

/** Every module reachable from `root` by static imports (`deno info --json`, from the cache). */
async function staticGraph(root: string): Promise<string[]> {
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

Deno.test("the modules the first call loads hold no ssh2, HTTP serving or tree-sitter", async () => {
  const graph = await staticGraph("lib/commands.ts");
  const optional = graph.filter((s) =>
    s.startsWith("lib/mcp/http/http_command") || s.startsWith("npm:ssh2") ||
    s.startsWith("npm:@vscode/tree-sitter-wasm")
  );
  assertEquals(optional, []);
  // The scan is not vacuous: the graph reaches the server and the local backend.
  assertEquals(graph.includes("lib/backends/local/local_backend.ts"), true);
  assertEquals(graph.includes("lib/mcp/command.ts"), true);
});
