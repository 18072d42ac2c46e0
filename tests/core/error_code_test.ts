// lib/core/errors.ts read as text: every ErrorCode has one line of doc right above it, and none is
// listed twice.

import { assert, assertEquals } from "../_assert.ts";

const SOURCE = await Deno.readTextFile(new URL("../../lib/core/error_code.ts", import.meta.url));

Deno.test("every ErrorCode has one line of doc right above it, and none is listed twice", () => {
  const lines = SOURCE.split("\n");
  const codes: string[] = [];
  lines.forEach((line, i) => {
    const code = /^\s*\| "([A-Z_]+)"/.exec(line)?.[1];
    if (code === undefined) return;
    codes.push(code);
    assert(/^\s*\/\*\* .+ \*\/$/.test(lines[i - 1] ?? ""), `${code} has no one-line doc above it`);
  });
  assert(codes.length > 50, `only ${codes.length} codes found: did the file's layout change?`);
  assertEquals(new Set(codes).size, codes.length);
});
