// symbol_match.ts (pure): a symbol name finds its declaration by qualified name, unique tail, other
// separators, then case; name normalizing and edit distance.

import { assertEquals } from "../../_assert.ts";
import type { Declaration } from "../../../lib/core/outline/declaration.ts";
import {
  editDistance,
  findSymbol,
  normalizeSymbol,
} from "../../../lib/core/outline/symbol_match.ts";

function decl(
  kind: Declaration["kind"],
  qualified: string,
  start: number,
  children: Declaration[] = [],
): Declaration {
  const name = qualified.slice(qualified.lastIndexOf(".") + 1);
  return { kind, name, qualified, start, end: start + 1, docStart: start, signature: "", children };
}

const DECLS = [
  decl("class", "JobManager", 1, [
    decl("method", "JobManager.start", 2),
    decl("method", "JobManager.stop", 4),
    decl("method", "JobManager.size", 6),
  ]),
  decl("class", "Runner", 10, [decl("method", "Runner.start", 11)]),
  decl("function", "formatJob", 20),
];

const names = (m: ReturnType<typeof findSymbol>) =>
  m.kind === "found"
    ? [m.decl.qualified]
    : m.kind === "ambiguous"
    ? m.decls.map((d) => d.qualified)
    : m.candidates.map((d) => d.qualified);

Deno.test("findSymbol: qualified names, unique tails, other separators, then case", () => {
  const cases: [string, string, string[]][] = [
    ["JobManager.start", "found", ["JobManager.start"]],
    ["JobManager::start", "found", ["JobManager.start"]],
    ["JobManager#stop", "found", ["JobManager.stop"]],
    ["formatJob()", "found", ["formatJob"]],
    ["size", "found", ["JobManager.size"]],
    ["jobmanager.SIZE", "found", ["JobManager.size"]],
    ["start", "ambiguous", ["JobManager.start", "Runner.start"]],
    ["JobManager.strat", "unknown", ["JobManager.start", "JobManager.stop", "Runner.start"]],
    ["formatjobs", "unknown", ["formatJob", "JobManager", "JobManager.stop"]],
  ];
  for (const [query, kind, expected] of cases) {
    const m = findSymbol(DECLS, query);
    assertEquals([m.kind, ...names(m)], [kind, ...expected], query);
  }
});

Deno.test("normalizeSymbol and editDistance", () => {
  assertEquals(normalizeSymbol(" A :: b -> c() "), "A.b.c");
  assertEquals(editDistance("strat", "start"), 2);
  assertEquals(editDistance("", "abc"), 3);
  assertEquals(editDistance("same", "same"), 0);
});
