// plural.ts (pure): counts with singular or plural, digits grouped as toLocaleString('en-US') does.

import { assertEquals } from "../_assert.ts";
import { groupDigits, plural } from "../../lib/core/plural.ts";

Deno.test("plural: one takes the singular, every other count the plural, grouped in thousands", () => {
  const cases: [number, string, string | undefined, string][] = [
    [0, "byte", undefined, "0 bytes"],
    [1, "byte", undefined, "1 byte"],
    [2, "token", undefined, "2 tokens"],
    [50_000, "line", undefined, "50,000 lines"],
    [1, "entry", "entries", "1 entry"],
    [3, "entry", "entries", "3 entries"],
  ];
  for (const [n, word, many, want] of cases) {
    assertEquals(many === undefined ? plural(n, word) : plural(n, word, many), want);
  }
});

Deno.test("groupDigits writes every number as toLocaleString('en-US') does", () => {
  const cases = [0, -0, 1, 12, 999, 1000, -1000, 12_345, 999_999, 1_000_000, -1_234_567];
  cases.push(
    Number.MAX_SAFE_INTEGER,
    -Number.MAX_SAFE_INTEGER,
    1e21,
    1.5,
    1234.5678,
    NaN,
    Infinity,
  );
  for (let i = 0; i < 200; i++) cases.push(Math.floor(Math.random() * 10 ** (i % 17)));
  for (const n of cases) assertEquals(groupDigits(n), n.toLocaleString("en-US"), String(n));
});
