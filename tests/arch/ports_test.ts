// Architecture rules for the seams (issue 22): backends see the use cases only through the
// interfaces in lib/ops/ports, and the use cases reach no Node module but timers. Each rule is
// also fed an import graph that breaks it, so a rule that can no longer fail is caught.

import { assertEquals } from "../_assert.ts";
import { collect, inDir, type SourceFile, violationsIn } from "./_import_graph.ts";

const files = await collect("lib");

/** A backend importing from lib/ anything but other backends, lib/core and lib/ops/ports. */
function backendReachesPastPorts(f: SourceFile, imp: string): boolean {
  return inDir(f.path, "lib/backends") && imp.startsWith("lib/") &&
    !inDir(imp, "lib/backends") && !inDir(imp, "lib/core") && !inDir(imp, "lib/ops/ports");
}

/** A use case importing a Node module other than node:timers (setImmediate, to yield). */
function opsImportsNode(f: SourceFile, imp: string): boolean {
  return inDir(f.path, "lib/ops") && imp.startsWith("node:") && imp !== "node:timers";
}

/** A made-up file, for the graphs the rules must refuse. */
function fake(path: string, imports: string[]): SourceFile {
  return { path, imports, text: "" };
}

Deno.test("backends import only lib/ops/ports and lib/core (no use case)", () => {
  assertEquals(violationsIn(files, backendReachesPastPorts), []);
});

Deno.test("the ports rule refuses a backend that imports a use case, and lets ports and core by", () => {
  const graph = [
    fake("lib/backends/ssh/sftp_files.ts", [
      "lib/ops/read_limits.ts",
      "lib/ops/ports/file_backend.ts",
      "lib/core/errors.ts",
      "lib/backends/fs_errors.ts",
      "ssh2",
    ]),
    fake("lib/backends/local/job_host.ts", ["lib/ops/jobs/job_manager.ts", "lib/compose.ts"]),
    fake("lib/ops/view.ts", ["lib/ops/read_limits.ts"]),
  ];
  assertEquals(violationsIn(graph, backendReachesPastPorts), [
    "lib/backends/ssh/sftp_files.ts imports lib/ops/read_limits.ts",
    "lib/backends/local/job_host.ts imports lib/ops/jobs/job_manager.ts",
    "lib/backends/local/job_host.ts imports lib/compose.ts",
  ]);
});

Deno.test("the scanner sees the backends' imports of ports (so the ports rule can fail)", () => {
  const memory = files.find((f) => f.path === "lib/backends/memory/memory_backend.ts");
  assertEquals(memory?.imports.includes("lib/ops/ports/file_backend.ts"), true);
});

Deno.test("lib/ops imports no node: module except node:timers", () => {
  assertEquals(violationsIn(files, opsImportsNode), []);
});

Deno.test("the node rule refuses node:fs in a use case, and lets node:timers and backends by", () => {
  const graph = [
    fake("lib/ops/tree/walk.ts", ["node:timers", "node:fs"]),
    fake("lib/ops/jobs/job_manager.ts", ["node:child_process"]),
    fake("lib/backends/local/process_runner.ts", ["node:child_process"]),
  ];
  assertEquals(violationsIn(graph, opsImportsNode), [
    "lib/ops/tree/walk.ts imports node:fs",
    "lib/ops/jobs/job_manager.ts imports node:child_process",
  ]);
});

Deno.test("the scanner sees node: imports (so the node rule can fail)", () => {
  // No use case imports one now (their turns come from core/event_turn.ts); the platform's does.
  assertEquals(
    files.some((f) =>
      f.path === "lib/backends/platform/io_turn.ts" && f.imports.includes("node:timers")
    ),
    true,
  );
});

/** Files of lib/ that spell the job URI scheme themselves, instead of lib/core/jobs/job_uri.ts. */
function spellsJobUri(all: readonly SourceFile[]): string[] {
  const allowed = new Set(["lib/core/jobs/job_uri.ts"]);
  return all.filter((f) => !allowed.has(f.path) && f.text.includes("anchorfs://jobs"))
    .map((f) => f.path);
}

Deno.test("only lib/core/jobs/job_uri.ts spells anchorfs://jobs", () => {
  assertEquals(spellsJobUri(files), []);
});

Deno.test("the job URI rule refuses a file that spells the scheme (so it can fail)", () => {
  const graph = [
    { path: "lib/ops/shell.ts", imports: [], text: "const u = `anchorfs://jobs/${id}`;" },
    { path: "lib/core/jobs/job_uri.ts", imports: [], text: 'const p = "anchorfs://jobs/";' },
  ];
  assertEquals(spellsJobUri(graph), ["lib/ops/shell.ts"]);
});
