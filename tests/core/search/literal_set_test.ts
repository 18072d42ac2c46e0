// literal_set.ts (pure): the literals of which every match of a regex holds one, read from its
// syntax tree, and the patterns that carry them as byte prefilters (search_pattern.ts anyOf).

import fc from "fast-check";
import { assert, assertEquals } from "../../_assert.ts";
import { literalSet, MAX_LITERALS } from "../../../lib/core/search/literal_set.ts";
import {
  type ByteLiteral,
  compileSearchPattern,
  containsLiteral,
} from "../../../lib/core/search/search_pattern.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
// Longer literals first: a set's cost is the sum, so a run beats its parts.
const byLength = (s: string) => 100 - s.length;
const sorted = (set: string[] | null) => set && [...set].sort();

Deno.test("literalSet reads alternations, groups, small classes and optional parts", () => {
  const cases: [string, boolean, string[] | null][] = [
    ["(TODO|FIXME|XXX):", false, ["FIXME:", "TODO:", "XXX:"]],
    ["TODO|FIXME|XXX", false, ["FIXME", "TODO", "XXX"]],
    ["\\b(?:get|set)Value\\(", false, ["getValue(", "setValue("]],
    ["(?P<verb>get|put)_\\w+", false, ["get_", "put_"]],
    ["colou?r", false, ["color", "colour"]],
    ["[Tt]odo|note", false, ["Todo", "note", "todo"]],
    ["x(a|b)(c|d)y", false, ["xacy", "xady", "xbcy", "xbdy"]],
    ["function\\s+\\w+|class\\s+\\w+", false, ["class", "function"]],
    ["(ab)+|(cd){2,}", false, ["ab", "cd"]],
    ["todo|fixme", true, ["fixme", "todo"]],
    ["TODO|FIXME", true, ["fixme", "todo"]],
    // A literal holding another is dropped: a line with TODO: holds TODO.
    ["TODO|TODO:", false, ["TODO"]],
  ];
  for (const [body, ignoreCase, expected] of cases) {
    assertEquals(sorted(literalSet(body, ignoreCase, byLength)), expected, body);
  }
});

Deno.test("literalSet gives no set for what some match lacks or what it does not read", () => {
  const none: [string, boolean][] = [
    ["a|\\d+", false], // a one-character alternative tells little
    ["TODO|.", false],
    ["(TODO)?x", false],
    ["(TODO)*", false],
    ["(?i)kiss|miss", true], // k and s fold from non-ASCII characters
    ["(?i)é|ü", true],
    ["[^a]b|cd", false],
    ["a(?i)bc|de", false], // flags past the start
    ["\\Qa|b\\E", false],
    ["(?<=ab)c|de", false], // lookbehind
    ["\\x41B|CD", false],
    ["\\u0041B|CD", false],
    ["a{,2}b|cd", false], // RE2 reads it as text: not guessed at
    ["(ab|cd", false],
    ["ab)|cd", false],
    [Array.from({ length: MAX_LITERALS + 1 }, (_, i) => `w${i}x`).join("|"), false],
  ];
  for (const [body, ignoreCase] of none) {
    assertEquals(literalSet(body, ignoreCase, byLength), null, body);
  }
});

Deno.test("a regex with alternatives carries them as byte needles, UTF-8 and Latin-1", () => {
  const p = compileSearchPattern("(TODO|FIXME|XXX):", true);
  assertEquals(p.literal, undefined);
  assertEquals(p.anyOf?.map((l) => dec.decode(l.bytes)).sort(), ["FIXME:", "TODO:", "XXX:"]);
  assertEquals(p.mayMatchBytes(enc.encode("a\n// FIXME: later\n")), true);
  assertEquals(p.mayMatchBytes(enc.encode("a\n// TODO later, FIXME\n")), false);
  const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9]); // "café" in Latin-1
  const accented = compileSearchPattern("café|naïve", true);
  assertEquals(accented.mayMatchBytes(latin1), true);
  assertEquals(accented.mayMatchBytes(enc.encode("cafe naive")), false);
  // One literal every alternative's match holds is the pattern's literal (and line needle).
  const one = compileSearchPattern("(TODO):", true);
  assertEquals(one.literal && dec.decode(one.literal.bytes), "TODO:");
  assertEquals(one.spec.needle, { text: "TODO:", ignoreCase: false });
});

/** Random RE2 patterns from a small grammar: letters that fold (k, s), classes, groups, repeats. */
const pattern: fc.Arbitrary<string> = fc.letrec<{ alt: string; seq: string; atom: string }>(
  (tie) => ({
    alt: fc.array(tie("seq"), { minLength: 1, maxLength: 3 }).map((s) => s.join("|")),
    seq: fc.array(
      fc.tuple(
        tie("atom"),
        fc.oneof(
          { weight: 8, arbitrary: fc.constant("") },
          { weight: 1, arbitrary: fc.constantFrom("?", "*", "+", "{2}", "{0,2}", "+?", "{1,}") },
        ),
      ),
      { minLength: 1, maxLength: 4 },
    ).map((parts) => parts.map(([a, q]) => a + q).join("")),
    atom: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      { weight: 8, arbitrary: fc.constantFrom("a", "b", "X", "k", "s", "é", "1", " ", "\\.") },
      {
        weight: 2,
        arbitrary: fc.constantFrom("[ab]", "[^a]", "[Kk]", "\\d", "\\w", "\\b", "^", "$", "."),
      },
      { weight: 2, arbitrary: tie("alt").map((a) => `(${a})`) },
      { weight: 1, arbitrary: tie("alt").map((a) => `(?:${a})`) },
    ),
  }),
).alt;

/**
 * Lines for `body`: random ones, and (fast-check cannot generate for \\b) some the pattern
 * matches as written, with letters then swapped for their other case or a folding twin.
 */
function lines(body: string): fc.Arbitrary<string[]> {
  const random = fc.array(line, { minLength: 1, maxLength: 10 });
  let js: RegExp;
  try {
    js = new RegExp(body, "u");
  } catch {
    return random; // not JavaScript syntax (RE2 repeats an anchor)
  }
  if (body.includes("\\b")) return random;
  const twin: Record<string, string[]> = { k: ["K", "\u212a"], s: ["S", "\u017f"] };
  const swapped = fc.tuple(fc.stringMatching(js), fc.nat()).map(([t, seed]) =>
    [...t].map((c, i) => {
      const options = twin[c] ?? [c.toUpperCase(), c.toLowerCase()];
      return (seed >> (i % 30)) & 1 ? options[(seed + i) % options.length]! : c;
    }).join("")
  );
  return fc.tuple(random, fc.array(swapped, { minLength: 1, maxLength: 10 }))
    .map(([a, b]) => [...a, ...b]);
}

const line = fc.array(
  fc.constantFrom("a", "b", "ab", "X", "x", "k", "K", "\u212a", "s", "\u017f", "é", "1", " ", "."),
  { maxLength: 16 },
).map((a) => a.join(""));

// The prefilters' premise: a line holding none of the needles holds no match. Checked on the
// bytes, where the finder looks (ASCII case folded, the Kelvin sign and the long s not).
Deno.test("every match of a random regex holds one of its needles", () => {
  let sets = 0;
  let checked = 0;
  fc.assert(
    fc.property(fc.boolean(), pattern.chain((body) => fc.tuple(fc.constant(body), lines(body))), (
      fold,
      [body, lines],
    ) => {
      const source = (fold ? "(?i)" : "") + body;
      let p;
      try {
        p = compileSearchPattern(source, true);
      } catch {
        return; // not a valid RE2 pattern
      }
      const needles: readonly ByteLiteral[] | undefined = p.literal ? [p.literal] : p.anyOf;
      if (!needles) return;
      if (needles.length > 1) sets++;
      assert(needles.length <= MAX_LITERALS, source);
      for (const text of lines) {
        const at = p.findInLine(text);
        if (at === null) continue;
        checked++;
        const match = enc.encode(text.slice(at[0], at[1]));
        assert(
          needles.some((n) => containsLiteral(match, n)),
          `${source} matched ${JSON.stringify(text.slice(at[0], at[1]))} in ${
            JSON.stringify(text)
          }, which holds none of ${JSON.stringify(needles.map((n) => dec.decode(n.bytes)))}`,
        );
      }
    }),
    { numRuns: 3000 },
  );
  // Not vacuous: many patterns had a set of several needles, and many lines matched.
  assert(sets > 200 && checked > 1000, `${sets} sets, ${checked} matches checked`);
});
