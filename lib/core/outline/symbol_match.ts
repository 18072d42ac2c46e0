// Finding a declaration by the name an agent gives: the qualified name (`JobManager.start`, also
// written `JobManager::start` or `JobManager#start`), or a unique tail of it (`start`); case is
// forgiven when nothing matches exactly. Unknown names get the closest names instead. Pure.

import { allDeclarations, type Declaration } from "./declaration.ts";

type SymbolMatch =
  | { kind: "found"; decl: Declaration }
  | { kind: "ambiguous"; decls: Declaration[] }
  | { kind: "unknown"; candidates: Declaration[] };

/** Candidates an unknown name is answered with. */
const MAX_CANDIDATES = 3;

// Exported for tests.
/** A name as the outline writes it: `::`, `#` and `->` are `.`; `()` and spaces are dropped. */
export function normalizeSymbol(name: string): string {
  return name.trim().replace(/\(\s*\)$/, "").replace(/::|#|->/g, ".").replace(/\s*\.\s*/g, ".");
}

/** The declaration `name` names in `decls`, the several it could mean, or the closest names. */
export function findSymbol(decls: readonly Declaration[], name: string): SymbolMatch {
  const wanted = normalizeSymbol(name);
  const all = [...allDeclarations(decls)];
  const tiers: ((d: Declaration) => boolean)[] = [
    (d) => d.qualified === wanted,
    (d) => d.qualified.endsWith(`.${wanted}`) || d.name === wanted,
    (d) => d.qualified.toLowerCase() === wanted.toLowerCase(),
    (d) => d.qualified.toLowerCase().endsWith(`.${wanted.toLowerCase()}`),
  ];
  for (const tier of tiers) {
    const hits = all.filter(tier);
    if (hits.length === 1) return { kind: "found", decl: hits[0]! };
    if (hits.length > 1) return { kind: "ambiguous", decls: hits };
  }
  return { kind: "unknown", candidates: closest(all, wanted) };
}

/** The names nearest to `wanted` by edit distance (on the whole name or its last part). */
function closest(all: readonly Declaration[], wanted: string): Declaration[] {
  const lower = wanted.toLowerCase();
  const last = lower.slice(lower.lastIndexOf(".") + 1);
  const scored = all.map((d) => {
    const q = d.qualified.toLowerCase();
    const score = Math.min(
      editDistance(lower, q),
      editDistance(last, d.name.toLowerCase()) + (lower === last ? 0 : 1),
      q.includes(lower) ? Math.abs(q.length - lower.length) / 4 : Infinity,
    );
    return { d, score };
  });
  scored.sort((a, b) => a.score - b.score || a.d.start - b.d.start);
  return scored.slice(0, MAX_CANDIDATES).map((s) => s.d);
}

// Exported for tests.
/** Levenshtein distance, on at most 64 characters of each string (names, not documents). */
export function editDistance(a: string, b: string): number {
  const x = a.slice(0, 64);
  const y = b.slice(0, 64);
  let prev = Array.from({ length: y.length + 1 }, (_, i) => i);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost));
    }
    prev = row;
  }
  return prev[y.length]!;
}
