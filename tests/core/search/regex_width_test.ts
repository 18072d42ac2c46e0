// A long line is probed in overlapping windows only when every match fits in the overlap: the
// bound must never be below a real match's length.

import fc from "fast-check";
import { RE2JS } from "re2js";
import { assert, assertEquals } from "../../_assert.ts";
import { maxMatchWidth } from "../../../lib/core/search/regex_width.ts";

Deno.test("maxMatchWidth bounds what a pattern can match, or says it cannot", () => {
  const cases: [string, number | null][] = [
    ["\\d{7}[qxz]\\d{7}", 30],
    ["(TODO|FIXME|XXX):", 12],
    ["abc", 6],
    ["a?b{2,3}", 8],
    ["^a$", 2],
    ["\\bfoo\\b", 6],
    ["(?i)ab", 4],
    ["(?:ab|c){2}", 8],
    ["(?P<x>ab)", 4],
    ["[]a]x", 4],
    ["[[:alpha:]]", 2],
    ["\\x{1F600}", 2],
    ["😀", 2],
    ["a+", null],
    ["a*", null],
    ["a{2,}", null],
    ["(a", null],
    ["a)", null],
    ["\\Qa.b\\E", null],
    ["(?=a)", null],
    ["x{3}b$", 8],
  ];
  for (const [body, width] of cases) assertEquals(maxMatchWidth(body), width, body);
});

Deno.test("no match is longer than maxMatchWidth says", () => {
  const piece = fc.constantFrom(
    "a",
    "b",
    "\\d",
    ".",
    "[ab]",
    "(a|bb)",
    "x?",
    "y{1,3}",
    "😀",
    "\\b",
  );
  fc.assert(
    fc.property(fc.array(piece, { minLength: 1, maxLength: 6 }), fc.string({ maxLength: 30 }), (
      parts,
      text,
    ) => {
      const body = parts.join("");
      const width = maxMatchWidth(body);
      assert(width !== null, body);
      const m = RE2JS.compile(body).matcher(text + "ab1😀bbyyy" + text);
      while (m.find()) assert(m.end() - m.start() <= width, `${body}: ${m.group()}`);
    }),
    { numRuns: 500 },
  );
});
