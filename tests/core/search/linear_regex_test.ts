// linear_regex.ts (pure): a user regex runs on V8 only where V8 is linear, else on re2js; the two
// agree on random patterns and lines.

import { RE2JS } from "re2js";
import { assert, assertEquals } from "../../_assert.ts";
import {
  compileGeneratedRegex,
  compileUserRegex,
  jsEquivalent,
  v8LinearFallback,
} from "../../../lib/core/search/linear_regex.ts";

Deno.test("jsEquivalent keeps RE2's meaning or gives up", () => {
  const cases: [string, string | null, boolean][] = [
    ["foo|bar", "foo|bar", false],
    ["a.b", "a[^\\n]b", false],
    ["\\s+x", "[\\t\\n\\f\\r ]+x", true],
    ["[\\s,]", "[\\t\\n\\f\\r ,]", false],
    ["\\S", "[^\\t\\n\\f\\r ]", false],
    ["x{2,3}", "x{2,3}", true],
    ["(?:ab)?", "(?:ab)?", true],
    ["x{,3}", null, false], // stray braces: RE2 and JavaScript disagree
    ["[]a]", null, false],
    ["[[:alpha:]]", null, false],
    ["(?i)a", null, false],
    ["(?P<n>a)", null, false],
    ["\\pL", null, false],
    ["\\Qa\\E", null, false],
    ["\\z", null, false],
    ["é", null, false],
    ["[\\b]", null, false],
  ];
  for (const [body, source, repeats] of cases) {
    const got = jsEquivalent(body, false);
    assertEquals(got?.source ?? null, source, body);
    if (got) assertEquals(got.repeats, repeats, body);
  }
  assertEquals(jsEquivalent("a.b", true)?.source, "a[\\s\\S]b");
});

Deno.test("a user regex runs on V8 only where V8 is linear", () => {
  // No repetition: V8's time is bounded by text × pattern.
  assertEquals(compileUserRegex("foo|\\bbar\\b").engine, "v8");
  assertEquals(compileUserRegex("foo", { ignoreCase: true }).engine, "v8");
  // Repetition: V8 only with its linear fallback on, and never with case folding.
  assertEquals(compileUserRegex("^(a|aa)+$").engine, v8LinearFallback ? "v8" : "re2");
  assertEquals(compileUserRegex("a+", { ignoreCase: true }).engine, "re2");
  assertEquals(compileUserRegex("[[:alpha:]]+").engine, "re2");
});

Deno.test("the V8 translation and re2js agree on random ASCII patterns and lines", async () => {
  const fc = (await import("fast-check")).default;
  const atom = fc.constantFrom(
    "a",
    "b",
    ".",
    "\\s",
    "\\d",
    "[ab]",
    "[^a]",
    "(?:ab|b)",
    "\\bb",
    "x",
  );
  const quant = fc.constantFrom("", "", "*", "+", "?", "{1,2}");
  const pattern = fc.array(fc.tuple(atom, quant), { minLength: 1, maxLength: 5 })
    .map((parts: [string, string][]) => parts.map(([a, q]) => a + q).join(""));
  const line = fc.array(fc.constantFrom("a", "b", " ", "1", "x", "\u00a0", "\t"), { maxLength: 12 })
    .map((c: string[]) => c.join(""));
  fc.assert(
    fc.property(pattern, line, fc.boolean(), (p: string, l: string, anchored: boolean) => {
      const body = anchored ? `^${p}$` : p;
      const js = jsEquivalent(body, false);
      if (js === null) return;
      const viaV8 = new RegExp(js.source).test(l);
      const viaRe2 = RE2JS.compile(body).test(l);
      assertEquals(viaV8, viaRe2, `${body} on ${JSON.stringify(l)}`);
    }),
    { numRuns: 1000 },
  );
});

Deno.test("a pathological glob answers at once", () => {
  const stars = compileGeneratedRegex(`^${"[^/]*a".repeat(12)}[^/]*b$`);
  assertEquals(stars.engine === "re2" || v8LinearFallback, true);
  assert(!stars.test("a".repeat(255)));
  const alternations = compileGeneratedRegex(`^${"(?:a|a)".repeat(60)}b$`);
  assert(!alternations.test("a".repeat(200)));
  assertEquals(compileGeneratedRegex("^[^/]*\\.ts$").engine, "v8", "ordinary globs stay on V8");
  assertEquals(
    compileGeneratedRegex("^(?:[^/]*/)*[^/]*\\.(?:ts|tsx)$").engine,
    "v8",
    "**/*.{ts,tsx}",
  );
  const globstars = compileGeneratedRegex(`^${"(?:[^/]*/)*".repeat(8)}x$`);
  assert(!globstars.test("a/".repeat(300)));
});

Deno.test("find() gives the first match's span in UTF-16 units on every engine", () => {
  const text = "😀 say HELLO, hello";
  const cases: [string, { ignoreCase?: boolean }, [number, number] | null][] = [
    ["hello", {}, [14, 19]], // no repetition: V8
    ["h\\w+o", { ignoreCase: true }, [7, 12]], // case folding with repetition: re2js
    ["l+o", {}, [16, 19]],
    ["absent", {}, null],
  ];
  for (const [body, flags, span] of cases) {
    assertEquals(compileUserRegex(body, flags).find(text), span, body);
  }
  assertEquals(compileUserRegex("h\\w+o", { ignoreCase: true }).engine, "re2");
});
