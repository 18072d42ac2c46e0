// The loops that replaced /x+$/-style regexes (quadratic on a long run followed by other text)
// give the regexes' answers, and stay fast on the hostile shapes.

import fc from "fast-check";
import { assertEquals } from "../_assert.ts";
import { stripTrailing } from "../../lib/core/path/path_text.ts";
import { baseName } from "../../lib/core/shell/policy/invocation.ts";
import { parseIgnoreFile } from "../../lib/core/search/ignore_rules.ts";

Deno.test("stripTrailing() answers what /\\/+$/ answered, for any text of slashes and letters", () => {
  fc.assert(
    fc.property(fc.stringMatching(/^[a\/\\ ]{0,30}$/), (text) => {
      assertEquals(stripTrailing(text, "/"), text.replace(/\/+$/, ""));
    }),
    { numRuns: 2000 },
  );
});

Deno.test("stripTrailing() and baseName() handle 200,000 slashes followed by a name", () => {
  const hostile = "/".repeat(200_000) + "x";
  assertEquals(stripTrailing(hostile, "/"), hostile);
  assertEquals(baseName(hostile), "x");
  assertEquals(stripTrailing("/".repeat(200_000), "/"), "");
});

Deno.test("parseIgnoreFile() keeps an escaped trailing space and survives a long run of spaces", () => {
  // A rule line of 200,000 spaces then a letter: the old regex retried every start (quadratic).
  const rules = parseIgnoreFile(`${" ".repeat(200_000)}x\nfoo\\  \nbar   \n`);
  assertEquals(rules.length, 3);
});
