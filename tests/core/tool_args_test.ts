// tool_args.ts (pure): argument aliases mapped with a line naming the one meant, never dropped
// silently, and schema type arrays turned into anyOf.

import { assertEquals } from "../_assert.ts";
import { normalizeToolArgs, singleTypeSchema, typeArrays } from "../../lib/core/tool_args.ts";

Deno.test("normalizeToolArgs maps aliases and joins lists of lines", () => {
  const { args, notes } = normalizeToolArgs(
    { command: "create", path: "a", content: ["x", "y"] },
    {
      known: ["command", "path", "file_text"],
      aliases: { content: "file_text" },
      lines: ["file_text"],
    },
  );
  assertEquals(args, { command: "create", path: "a", file_text: "x\ny" });
  assertEquals(notes, []);
});

Deno.test("normalizeToolArgs never drops an argument silently: each gets a line naming the one meant", () => {
  const { args, notes } = normalizeToolArgs(
    { path: "a", start_line: 3, pathh: "b", wat: 1, background: true },
    { known: ["path", "start", "end"], meant: { background: "no background flag." } },
  );
  assertEquals(args, { path: "a" });
  assertEquals(notes, [
    'Ignored argument "start_line": did you mean "start"?',
    'Ignored argument "pathh": did you mean "path"?',
    'Ignored argument "wat": this tool takes "path", "start", "end".',
    'Ignored argument "background": no background flag.',
  ]);
});

Deno.test("normalizeToolArgs keeps the canonical name when an alias is given too, and says so", () => {
  const { args, notes } = normalizeToolArgs(
    { file_text: "a", content: "b" },
    { known: ["file_text"], aliases: { content: "file_text" } },
  );
  assertEquals(args, { file_text: "a" });
  assertEquals(notes, ['Ignored "content": "file_text" was given too.']);
});

Deno.test("singleTypeSchema turns type arrays into anyOf of single types, at any depth", () => {
  const schema = {
    type: "object",
    properties: { a: { type: ["string", "number"], description: "d" }, b: { type: "string" } },
  };
  const out = singleTypeSchema(schema);
  assertEquals(out, {
    type: "object",
    properties: {
      a: { description: "d", anyOf: [{ type: "string" }, { type: "number" }] },
      b: { type: "string" },
    },
  });
  assertEquals(typeArrays(schema), ["$.properties.a.type"]);
  assertEquals(typeArrays(out), []);
});

Deno.test("normalizeToolArgs: past five ignored arguments, one note names the first five and counts the rest", () => {
  const raw: Record<string, unknown> = { path: "a", start_line: 1 };
  for (let i = 0; i < 300_000; i++) raw[`k${i}`] = i;
  raw[`${"x".repeat(5000)}`] = 1;
  const { args, notes } = normalizeToolArgs(raw, { known: ["path", "start", "end"] });
  assertEquals(args, { path: "a" });
  assertEquals(notes, [
    'Ignored 300,002 arguments this tool does not take: "start_line" (did you mean "start"?), ' +
    '"k0", "k1", "k2", "k3" and 299,997 more; this tool takes "path", "start", "end".',
  ]);
});

Deno.test("normalizeToolArgs: what a rewrite reads but leaves is ignored like any stray key", () => {
  const { args, notes } = normalizeToolArgs({ action: "get", reset: 1 }, {
    known: ["action"],
    reads: ["reset"],
    rewrite: (a) => {
      if (a.reset === true) delete a.reset;
    },
  });
  assertEquals(args, { action: "get" });
  assertEquals(notes, ['Ignored argument "reset": this tool takes "action".']);
});
