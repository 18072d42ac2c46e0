// The Outliner over the real tree-sitter parser: one parse per content (a view of the same text,
// or a symbol after its outline, is served from the cache), the cache bounded, and the second
// parse that reads past a broken declaration.

import { assertEquals } from "../../_assert.ts";
import { TreeSitterParser } from "../../../lib/backends/tree_sitter/tree_sitter_parser.ts";
import { languageFor } from "../../../lib/core/outline/languages.ts";
import { outlineBytes, Outliner } from "../../../lib/ops/outline/outliner.ts";
import type { SyntaxParser } from "../../../lib/ops/ports/syntax_parser.ts";

/** The real parser, counting its parses. */
function countingParser(): SyntaxParser & { parses: number } & Disposable {
  const real = new TreeSitterParser();
  const counting = {
    parses: 0,
    outline: (...args: Parameters<SyntaxParser["outline"]>) => {
      counting.parses++;
      return real.outline(...args);
    },
    close: () => real.close(),
    [Symbol.dispose]: () => real.close(),
  };
  return counting;
}

Deno.test("the Outliner parses a text once, keyed by its content and language", async () => {
  using parser = countingParser();
  const outliner = new Outliner(parser);
  const ts = languageFor("a.ts")!;
  const text = "export function a() {}\n";
  const first = await outliner.outline(text, ts);
  const again = await outliner.outline(text, ts);
  assertEquals(parser.parses, 1);
  assertEquals(again, first);
  await outliner.outline(`${text}// changed\n`, ts);
  await outliner.outline(text, languageFor("a.js")!);
  assertEquals(parser.parses, 3);
  assertEquals(outliner.cached.entries, 3);
  // Three outlines of one function `a()` each: its strings (2 bytes a character) and fixed costs.
  assertEquals(outliner.cached.bytes, 3 * (64 + 96 + 2 * "functionaa()".length));
});

Deno.test("the Outliner's cache keeps within its bytes: the least recently used go first", async () => {
  using parser = countingParser();
  const ts = languageFor("a.ts")!;
  const one = (n: number) => `export function f${n}(a: string): void {}\n`.repeat(5);
  const first = await new Outliner(parser).outline(one(0), ts);
  const each = outlineBytes(first!);
  const outliner = new Outliner(parser, 2 * each + each / 2);
  for (let n = 0; n < 5; n++) await outliner.outline(one(n), ts);
  assertEquals(outliner.cached, { entries: 2, bytes: 2 * each });
  await outliner.outline(one(4), ts); // the newest is still held
  assertEquals(parser.parses, 6);
  await outliner.outline(one(0), ts); // the oldest was dropped: parsed again
  assertEquals(parser.parses, 7);
});

Deno.test("the Outliner reads past a broken declaration and names the lines it left out", async () => {
  using parser = countingParser();
  const outliner = new Outliner(parser);
  const text = "export class A {\n  ok(): void {}\n  bad(x: number {\n    if (x > 1 {\n" +
    "      return\n  }\n  later(): string { return 'x'; }\n}\n\nexport function after(): void {}\n" +
    "export const LAST = 1;\n";
  const outline = (await outliner.outline(text, languageFor("a.ts")!))!;
  const rows = outline.declarations.map((d) =>
    `${d.qualified} ${d.start}-${d.end} ${d.children.map((c) => c.name).join(",")}`
  );
  assertEquals(rows, ["A 1-8 ok,later", "after 10-10 ", "LAST 11-11 "]);
  assertEquals(outline.unparsed, [{ start: 3, end: 6 }]);
});
