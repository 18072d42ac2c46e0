import { assertEquals } from "../_assert.ts";
import { plural } from "../../lib/core/plural.ts";

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
