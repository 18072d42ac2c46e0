// next_step.ts (pure): guides keep their steps among the prose, splice and join in order, and an
// AnchorError's steps are written per syntax (tool call for a model, command for a person).

import { assertEquals } from "../_assert.ts";
import {
  argExample,
  guide,
  guideShape,
  type GuideStep,
  joinGuide,
  joinGuides,
  renderGuide,
  step,
  toolCallSyntax,
} from "../../lib/core/next_step.ts";
import { AnchorError, formatError } from "../../lib/core/errors.ts";

const upper = (s: GuideStep) => `<${s.tool.toUpperCase()}>`;

Deno.test("guide keeps steps in place between the prose; strings and numbers are prose", () => {
  const g = guide`Read ${3} lines with ${step("view", { path: "a", start: 1 })}, or ${
    step("jobs", { action: "list" })
  }.`;
  assertEquals(g.text, ["Read 3 lines with ", ", or ", "."]);
  assertEquals(g.next, [
    { tool: "view", args: { path: "a", start: 1 } },
    { tool: "jobs", args: { action: "list" } },
  ]);
  assertEquals(
    renderGuide(g, toolCallSyntax),
    'Read 3 lines with view {"path":"a","start":1}, or jobs {"action":"list"}.',
  );
  assertEquals(renderGuide(g, upper), "Read 3 lines with <VIEW>, or <JOBS>.");
});

Deno.test("guides splice into guides and join with a separator, steps kept in order", () => {
  const a = step("view", { path: "a" });
  const b = step("view", { path: "b" });
  const list = joinGuides([a, "plain", b], ", ");
  assertEquals(renderGuide(list, upper), "<VIEW>, plain, <VIEW>");
  const outer = guide`View each: ${list}; then ${joinGuide("retry ", b)}.`;
  assertEquals(outer.next, [a, b, b]);
  assertEquals(renderGuide(outer, upper), "View each: <VIEW>, plain, <VIEW>; then retry <VIEW>.");
  assertEquals(renderGuide("no steps", upper), "no steps");
});

Deno.test("a guide's shape keeps its prose's lines, each step one character, in no syntax", () => {
  const g = guide`rows\n\n[Narrow it: ${step("view", { path: "a", max_depth: 2 })}.]`;
  assertEquals(guideShape(g), "rows\n\n[Narrow it: ….]");
  assertEquals(guideShape("plain\n[notice]"), "plain\n[notice]");
  // Where the lines break is the rendered text's in every syntax.
  for (const syntax of [toolCallSyntax, upper]) {
    assertEquals(renderGuide(g, syntax).split("\n").length, guideShape(g).split("\n").length);
  }
});

Deno.test("an AnchorError carries its next steps; hint and formatError write them per syntax", () => {
  const error = new AnchorError({
    code: "IS_A_DIRECTORY",
    message: '"src" is a directory, not a file.',
    detail: guide`To see more: ${step("view", { path: "src", max_depth: 1 })}`,
    hint: guide`${step("view", { path: "src" })} lists its files; name one of them.`,
  });
  assertEquals(error.next.map((s) => s.args), [{ path: "src" }, { path: "src", max_depth: 1 }]);
  assertEquals(error.hint, 'view {"path":"src"} lists its files; name one of them.');
  assertEquals(error.detail, 'To see more: view {"path":"src","max_depth":1}');
  assertEquals(
    formatError(error),
    '"src" is a directory, not a file.\n\nTo see more: view {"path":"src","max_depth":1}\n\n' +
      'Next: view {"path":"src"} lists its files; name one of them.',
  );
  assertEquals(
    formatError(error, upper),
    '"src" is a directory, not a file.\n\nTo see more: <VIEW>\n\nNext: <VIEW> lists its files; ' +
      "name one of them.",
  );
  const plain = new AnchorError({ code: "NO_CHANGE", message: "m", hint: "Pass the new text." });
  assertEquals([plain.next, plain.hint], [[], "Pass the new text."]);
});

Deno.test("an argument example is a JSON fragment for a model and no call among an error's steps", () => {
  const hint = guide`e.g. ${argExample("view", { start: 10 })} or ${
    argExample("view", { start: "10:a3" })
  }; then ${step("view", { path: "a" })}.`;
  assertEquals(
    renderGuide(hint, toolCallSyntax),
    'e.g. {"start":10} or {"start":"10:a3"}; then view {"path":"a"}.',
  );
  const error = new AnchorError({ code: "INVALID_ARGUMENT", message: "m", hint });
  assertEquals(error.next, [{ tool: "view", args: { path: "a" } }]);
});
