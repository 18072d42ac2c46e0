// The Outliner over the real tree-sitter parser: one parse per content (a view of the same text,
// or a symbol after its outline, is served from the cache), the cache bounded, and the second
// parse that reads past a broken declaration.

import { assertEquals } from "../../_assert.ts";
import { TreeSitterParser } from "../../../lib/backends/tree_sitter/tree_sitter_parser.ts";
import { languageFor } from "../../../lib/core/outline/mod.ts";
import { Outliner } from "../../../lib/ops/outline/outliner.ts";
import type { SyntaxParser } from "../../../lib/ops/ports/syntax_parser.ts";

/** The real parser, counting its parses. */
function countingParser(): SyntaxParser & { parses: number } {
  const real = new TreeSitterParser();
  const counting = {
    parses: 0,
    outline: (...args: Parameters<SyntaxParser["outline"]>) => {
      counting.parses++;
      return real.outline(...args);
    },
  };
  return counting;
}

Deno.test("the Outliner parses a text once, keyed by its content and language", async () => {
  const parser = countingParser();
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
  assertEquals(outliner.cached, { entries: 3, declarations: 6 });
});

Deno.test("the Outliner reads past a broken declaration and names the lines it left out", async () => {
  const outliner = new Outliner(new TreeSitterParser());
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
