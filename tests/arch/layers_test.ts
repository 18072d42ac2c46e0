// Architecture rules as tests: dependencies point one way (core ← ops ← {mcp, cli}), backends
// implement interfaces declared in ops, and each SDK has exactly one home.

import { assertEquals } from "../_assert.ts";
import { REPO_ROOT } from "../_harness.ts";
import { collect, inDir, type SourceFile, violationsIn } from "./_import_graph.ts";

const files = await collect("lib");

function violations(rule: (f: SourceFile, imp: string) => boolean): string[] {
  return violationsIn(files, rule);
}

Deno.test("lib/core imports only lib/core and pure npm packages", () => {
  // node:crypto only for deterministic hashing (known_hosts fingerprints and hashed host names).
  const pure = new Set(["diff", "ignore", "re2js", "node:path", "node:crypto"]);
  assertEquals(
    violations((f, imp) =>
      inDir(f.path, "lib/core") &&
      (imp.startsWith("lib/") ? !inDir(imp, "lib/core") : !pure.has(imp))
    ),
    [],
  );
});

/** Files under `dir` that name the Deno namespace (a call, a type, an error class). */
function denoUsers(dir: string): string[] {
  return files.filter((f) => inDir(f.path, dir) && /\bDeno\./.test(f.text)).map((f) => f.path);
}

Deno.test("lib/core uses no Deno APIs", () => {
  assertEquals(denoUsers("lib/core"), []);
});

Deno.test("lib/ops uses no Deno APIs (its I/O comes through backends and services)", () => {
  assertEquals(denoUsers("lib/ops"), []);
});

Deno.test("lib/ops imports neither backends, adapters nor SDKs", () => {
  assertEquals(
    violations((f, imp) =>
      inDir(f.path, "lib/ops") &&
      (inDir(imp, "lib/backends") || inDir(imp, "lib/mcp") || inDir(imp, "lib/cli") ||
        imp.startsWith("@modelcontextprotocol") || imp === "ssh2" || imp === "lib/compose.ts")
    ),
    [],
  );
});

Deno.test("the MCP adapter and the CLI never import each other", () => {
  assertEquals(
    violations((f, imp) =>
      (inDir(f.path, "lib/mcp") && inDir(imp, "lib/cli")) ||
      (inDir(f.path, "lib/cli") && inDir(imp, "lib/mcp"))
    ),
    [],
  );
});

Deno.test("only lib/mcp imports the MCP SDK", () => {
  assertEquals(
    violations((f, imp) => imp.startsWith("@modelcontextprotocol") && !inDir(f.path, "lib/mcp")),
    [],
  );
});

Deno.test("only lib/backends/ssh imports ssh2", () => {
  assertEquals(violations((f, imp) => imp === "ssh2" && !inDir(f.path, "lib/backends/ssh")), []);
});

Deno.test("only lib/backends/tree_sitter imports the tree-sitter runtime, and only on first use", () => {
  const runtime = "@vscode/tree-sitter-wasm";
  assertEquals(
    violations((f, imp) => imp === runtime && !inDir(f.path, "lib/backends/tree_sitter")),
    [],
  );
  // A static import would load the runtime (and its wasm) before the server answers initialize.
  const staticImports = files.filter((f) =>
    new RegExp(`(?:^|\\n)\\s*import[^"'(]*from\\s+["']${runtime}["']`).test(f.text)
  ).map((f) => f.path);
  assertEquals(staticImports, []);
  const users = files.filter((f) => f.imports.includes(runtime)).map((f) => f.path);
  assertEquals(users, ["lib/backends/tree_sitter/tree_sitter_runtime.ts"]);
  // The runtime's wasm memory lives in the outline worker, never in the main isolate: only the
  // worker's entry imports the module that loads it.
  const loader = "lib/backends/tree_sitter/tree_sitter_runtime.ts";
  assertEquals(files.filter((f) => f.imports.includes(loader)).map((f) => f.path), [
    "lib/backends/tree_sitter/outline_worker.ts",
  ]);
});

Deno.test("backends import no adapter", () => {
  assertEquals(
    violations((f, imp) =>
      inDir(f.path, "lib/backends") && (inDir(imp, "lib/mcp") || inDir(imp, "lib/cli"))
    ),
    [],
  );
});

Deno.test("the Deno API scan sees the backends that use it (so the rules above can fail)", () => {
  assertEquals(
    denoUsers("lib/backends/local").includes("lib/backends/local/disk_job_store.ts"),
    true,
  );
});

Deno.test("the import scanner sees relative and bare imports (so the rules above can fail)", () => {
  const location = files.find((f) => f.path === "lib/ops/location.ts");
  assertEquals(location?.imports.includes("lib/core/errors.ts"), true);
  const server = files.find((f) => f.path === "lib/mcp/server.ts");
  assertEquals(server?.imports.includes("@modelcontextprotocol/server"), true);
});

// lib/core folders have no facade mod.ts (tests/arch/facades_test.ts); an entry file beside its
// folder (x.ts next to x/) would be one under another name.
Deno.test("no entry file sits beside its folder", async () => {
  const beside: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const names = new Set<string>();
    const dirs: string[] = [];
    for await (const e of Deno.readDir(`${REPO_ROOT}/${dir}`)) {
      names.add(e.name);
      if (e.isDirectory) dirs.push(e.name);
    }
    for (const d of dirs) {
      if (names.has(`${d}.ts`)) beside.push(`${dir}/${d}.ts`);
      await walk(`${dir}/${d}`);
    }
  };
  await walk("lib");
  assertEquals(beside, []);
});

Deno.test("lib/core has no import cycles (type-only imports included)", () => {
  const graph = new Map(
    files.filter((f) => inDir(f.path, "lib/core")).map((f) => [f.path, f.imports]),
  );
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const visit = (path: string, stack: string[]): void => {
    state.set(path, "open");
    for (const next of graph.get(path) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === "open") {
        cycles.push([...stack.slice(stack.indexOf(next)), path, next].join(" → "));
      } else if (!state.has(next)) visit(next, [...stack, path]);
    }
    state.set(path, "done");
  };
  for (const path of graph.keys()) if (!state.has(path)) visit(path, []);
  assertEquals(cycles, []);
});
