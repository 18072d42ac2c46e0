// column_width.ts (pure): terminal columns of wide and combining characters, and cuts that never
// exceed the width or halve a character (property tests).

import fc from "fast-check";
import { assertEquals } from "../../_assert.ts";
import { cutToColumns, textColumns } from "../../../lib/core/text/column_width.ts";

Deno.test("textColumns counts wide characters twice and combining marks not at all", () => {
  const cases: [string, number][] = [
    ["job 1-2 running 3s", 18],
    ["日本語", 6],
    ["e\u0301", 1], // e + combining acute
    ["🙂 ok", 5],
    ["ｆｕｌｌ", 8], // fullwidth Latin
    ["·…", 2],
    ["", 0],
  ];
  for (const [text, columns] of cases) assertEquals(textColumns(text), columns, text);
});

Deno.test("cutToColumns leaves text that fits and cuts the rest with …, never halving a wide character", () => {
  assertEquals(cutToColumns("short", 10), "short");
  assertEquals(cutToColumns("exactly10!", 10), "exactly10!");
  assertEquals(cutToColumns("a longer line", 8), "a longe…");
  assertEquals(cutToColumns("日本語テキスト", 6), "日本…");
  assertEquals(cutToColumns("日本語テキスト", 5), "日本…");
  assertEquals(cutToColumns("abc", 1), "…");
  assertEquals(cutToColumns("abc", 0), "");
});

Deno.test("cutToColumns never exceeds the width it is given", () => {
  fc.assert(
    fc.property(fc.string({ unit: "grapheme" }), fc.integer({ min: 0, max: 60 }), (s, n) => {
      const cut = cutToColumns(s, n);
      return textColumns(cut) <= n &&
        (textColumns(s) <= n ? cut === s : cut.endsWith("…") || n === 0);
    }),
  );
});
