// outline_render.ts and map_render.ts (pure): outline rows with line ids and signatures, and what
// is dropped or counted past the budget, from declarations given as data.

import { assert, assertEquals, assertNotIncludes, assertStringIncludes } from "../../_assert.ts";
import { formatLineId } from "../../../lib/core/edit/line_id.ts";
import { renderGuide, toolCallSyntax } from "../../../lib/core/next_step.ts";
import type { Declaration } from "../../../lib/core/outline/declaration.ts";
import { renderOutline } from "../../../lib/core/outline/outline_render.ts";
import { mapEntry } from "../../../lib/core/outline/map_render.ts";

function decl(
  kind: Declaration["kind"],
  qualified: string,
  start: number,
  end: number,
  children: Declaration[] = [],
  signature = "",
): Declaration {
  const name = qualified.slice(qualified.lastIndexOf(".") + 1);
  return { kind, name, qualified, start, end, docStart: start, signature, children };
}

const line = (n: number) => `line ${n}`;
const text = (decls: Declaration[], extra: Partial<Parameters<typeof renderOutline>[0]> = {}) =>
  renderGuide(
    renderOutline({
      path: "a.ts",
      language: "TypeScript",
      totalLines: 9999,
      line,
      decls,
      ...extra,
    }),
    toolCallSyntax,
  );

/** A class per 50 lines, each with `methods` methods with long signatures. */
function classes(count: number, methods: number): Declaration[] {
  return Array.from({ length: count }, (_, i) => {
    const at = 1 + i * 50;
    return decl(
      "class",
      `Class${i}`,
      at,
      at + 49,
      Array.from(
        { length: methods },
        (_, j) =>
          decl(
            "method",
            `Class${i}.method${j}`,
            at + 1 + j,
            at + 1 + j,
            [],
            `(argument: Type${j}): Promise<Result>`,
          ),
      ),
      "extends Base",
    );
  });
}

Deno.test("rows: line id of the first line, kind, qualified name, lines, signature; nested by indentation", () => {
  const out = text([
    decl("class", "Jobs", 3, 9, [decl("method", "Jobs.start", 4, 6, [], "(x: number)")]),
  ]);
  const rows = out.split("\n");
  assertEquals(
    rows[0],
    'a.ts: TypeScript, 9,999 lines, 2 declarations. Rows: line id, kind, name, lines, signature. A name as symbol shows its lines with ids: view {"path":"a.ts","symbol":"Jobs.start"}.',
  );
  assertEquals(rows[1], `${formatLineId(3, "line 3")} class Jobs 3-9`);
  assertEquals(rows[2], `  ${formatLineId(4, "line 4")} method Jobs.start 4-6 (x: number)`);
  assertEquals(rows.length, 3);
});

Deno.test("past the budget: member signatures go first, then all signatures, with a notice", () => {
  const small = text(classes(3, 3));
  assertStringIncludes(small, "(argument: Type0)");
  const medium = text(classes(12, 6));
  assert(new TextEncoder().encode(medium).length <= 4096, `${medium.length} bytes`);
  assertNotIncludes(medium, "(argument: Type0)");
  assertStringIncludes(medium, "method Class11.method5");
  assertStringIncludes(medium, "[Some signatures left out to fit 4 KB.]");
});

Deno.test("far past the budget: members are counted on their class, with the call that outlines one", () => {
  const out = text(classes(40, 10));
  assert(new TextEncoder().encode(out).length <= 4096, `${out.length} bytes`);
  assertNotIncludes(out, "method Class0.method0");
  assertStringIncludes(out, " class Class39 1951-2000 +10 members");
  assertStringIncludes(
    out,
    '[Members of 40 declarations left out to fit 4 KB (+N members); outline one: view {"path":"a.ts","outline":true,"symbol":"Class0"}.]',
  );
});

Deno.test("when even the top level does not fit, the rest is named from its first line", () => {
  const many = Array.from(
    { length: 400 },
    (_, i) => decl("function", `function${i}`, i * 3 + 1, i * 3 + 2),
  );
  const out = text(many);
  assert(new TextEncoder().encode(out).length <= 4096, `${out.length} bytes`);
  const cut =
    /\[(\d+) more declarations from line (\d+) not shown: view \{"path":"a\.ts","outline":true,"start":(\d+)\}\.\]/
      .exec(out);
  assert(cut, out.slice(-300));
  const shown = out.split("\n").filter((l) => / function function\d+ /.test(l)).length;
  assertEquals(shown + Number(cut[1]), 400);
  assertEquals(cut[2], cut[3]);
  // The next call's window starts there.
  const next = text(many, { window: { start: Number(cut[2]), end: Number.MAX_SAFE_INTEGER } });
  assertStringIncludes(next, ` function function${shown} `);
  assertNotIncludes(next, " function function0 ");
});

Deno.test("an outline of one declaration, a window, unparsed lines and an empty outline", () => {
  const jobs = decl("class", "Jobs", 3, 9, [decl("method", "Jobs.start", 4, 6)]);
  const scoped = text(jobs.children, { scope: jobs });
  assertStringIncludes(scoped, "a.ts: class Jobs (lines 3-9), 1 declaration in it.");
  const windowed = text([decl("function", "a", 1, 2), decl("function", "b", 10, 12)], {
    window: { start: 5, end: 20 },
  });
  assertStringIncludes(windowed, "1 declaration in lines 5-20");
  assertNotIncludes(windowed, "function a ");
  const broken = text([decl("function", "a", 1, 2)], { unparsed: [{ start: 4, end: 6 }] });
  assertStringIncludes(
    broken,
    '[Lines 4-6 do not parse (a syntax error, or syntax newer than the grammar): declarations there may be missing; read them: view {"path":"a.ts","start":4,"end":6}.]',
  );
  assertEquals(
    text([]),
    'a.ts: TypeScript, 9,999 lines, 0 declarations: no classes, functions, methods, types or constants to list. Read it with view {"path":"a.ts"}.',
  );
});

Deno.test("a map entry: top-level declarations with lines, members by name, within its budget", () => {
  const decls = [
    decl(
      "class",
      "Jobs",
      3,
      90,
      Array.from({ length: 30 }, (_, i) => decl("method", `Jobs.m${i}`, 4 + i, 4 + i)),
    ),
    decl("function", "run", 92, 99),
  ];
  const wide = mapEntry({ path: "src/a.ts", lines: 99, decls, unparsed: false }, 1000);
  assertStringIncludes(wide, "src/a.ts (99 lines): class Jobs 3-90 {m0, m1,");
  assertStringIncludes(wide, "m29}, function run 92-99");
  const narrow = mapEntry({ path: "src/a.ts", lines: 99, decls, unparsed: true }, 120);
  assert(narrow.length <= 120, narrow);
  assertStringIncludes(narrow, "src/a.ts (99 lines, some lines do not parse): class Jobs 3-90 {");
  assertStringIncludes(narrow, "+");
  assertEquals(
    mapEntry({ path: "b.py", lines: 1, decls: [], unparsed: false }, 100),
    "b.py (1 line): no declarations",
  );
});
