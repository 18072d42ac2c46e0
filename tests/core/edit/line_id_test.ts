// line_id.ts (pure): N:hh ids are formatted, parsed (pasted forms too) and checked for freshness,
// with moved lines found and reported; the FNV-1a 32 under them gives the published vectors.

import { assert, assertEquals, assertStringIncludes, assertThrows } from "../../_assert.ts";
import { AnchorError } from "../../../lib/core/errors.ts";
import {
  assertFresh,
  findMovedLines,
  fnv1a32,
  formatLineId,
  hashHex,
  hashLine,
  parseLineId,
  renderLine,
} from "../../../lib/core/edit/line_id.ts";
import { linePrint } from "../../../lib/core/edit/shown_lines.ts";

// Vectors computed independently (python, FNV-1a 32 folded to 8 bits as specified).
const VECTORS: [string, string][] = [
  ["", "c5"],
  ["hello", "57"],
  ["}", "14"],
  ["  return x;", "a2"],
  ["héllo wörld", "29"],
  ["日本語", "64"],
  ["\t\tif (a) {", "c2"],
];

for (const [content, hex] of VECTORS) {
  Deno.test(`hashLine(${JSON.stringify(content)}) is ${hex}`, () => {
    assertEquals(hashHex(hashLine(content)), hex);
  });
}

// FNV-1a 32 itself (python), unfolded: fnv1a32 over bytes and linePrint over a line's UTF-8 keep
// a signed 32-bit state internally (no heap number per step) and must still give these.
const FNV32_VECTORS: [string, number][] = [
  ["", 0x811c9dc5],
  ["a", 0xe40c292c],
  ["foobar", 0xbf9cf968],
  ["  return x;", 0x7ce3b984],
  ["héllo wörld", 0xd41e41a2],
  ["日本語", 0x805f5ce7],
  ["x".repeat(1000), 0x07d18165],
];

Deno.test("fnv1a32 and linePrint are FNV-1a 32 over UTF-8, as unsigned numbers", () => {
  for (const [text, expected] of FNV32_VECTORS) {
    assertEquals(fnv1a32(new TextEncoder().encode(text)), expected, JSON.stringify(text));
    assertEquals(linePrint(text), expected, JSON.stringify(text));
  }
});

Deno.test("formatLineId and renderLine use the line number and the content hash only", () => {
  assertEquals(formatLineId(42, "hello"), "42:57");
  assertEquals(renderLine(7, "hello"), "7:57|hello");
  assertEquals(formatLineId(1, "hello").split(":")[1], formatLineId(999, "hello").split(":")[1]);
});

Deno.test("parseLineId accepts N:hh and a pasted N:hh|content", () => {
  assertEquals(parseLineId("42:a3"), { line: 42, hash: 0xa3 });
  assertEquals(parseLineId(" 7:57|hello "), { line: 7, hash: 0x57 });
  // Upper-case hex is the same id.
  assertEquals(parseLineId("2:EF"), { line: 2, hash: 0xef });
});

const BAD: [unknown, string][] = [
  ["42", "bare number is only a position"],
  [42, "bare number is only a position"],
  ["42:", "hash after the colon is missing"],
  ["42:zz", "exactly two hex digits"],
  ["0:ab", "start at 1"],
  ["42:abc", "exactly two hex digits"],
  ["", "it is empty"],
  ["line 4", 'the form is "N:hh"'],
];
for (const [raw, why] of BAD) {
  Deno.test(`parseLineId rejects ${JSON.stringify(raw)} saying "${why}"`, () => {
    assertThrows(() => parseLineId(raw, "start"), (e) => {
      assert(e instanceof AnchorError);
      assertEquals(e.code, "INVALID_LINE_ID");
      assertStringIncludes(e.message, why);
      assertStringIncludes(e.message, "start");
      assertStringIncludes(e.hint ?? "", "view");
    });
  });
}

Deno.test("findMovedLines lists lines with the hash, nearest first, at most 3", () => {
  const lines = ["x", "}", "a", "}", "b", "}", "c", "}"];
  assertEquals(findMovedLines(lines, hashLine("}"), 5), [4, 6, 2]);
});

Deno.test("assertFresh reports the current content, where the content moved, and a view range", () => {
  const before = ["alpha", "beta", "gamma", "delta", "epsilon"];
  const id = parseLineId(formatLineId(3, before[2]!));
  // A line was inserted above: gamma moved from 3 to 4.
  const after = ["alpha", "NEW", "beta", "gamma", "delta", "epsilon"];
  assertFresh("f.txt", before, [{ id, what: "start" }]); // fresh against the old text
  const e = assertThrows(() => assertFresh("f.txt", after, [{ id, what: "start" }])) as AnchorError;
  assertEquals(e.code, "STALE_LINE_ID");
  assertStringIncludes(e.message, "nothing was written");
  const detail = e.detail ?? "";
  assertStringIncludes(detail, `start 3:${hashHex(hashLine("gamma"))}: line 3 no longer has hash`);
  assertStringIncludes(detail, renderLine(3, "beta"));
  assertStringIncludes(detail, renderLine(1, "alpha"));
  assertStringIncludes(detail, renderLine(5, "delta"));
  assertStringIncludes(detail, `is now at: ${renderLine(4, "gamma")}`);
  assertStringIncludes(detail, 'view {"path":"f.txt","start":1,"end":5}');
});

Deno.test("assertFresh reports an id past the end of the file", () => {
  const e = assertThrows(() =>
    assertFresh("f.txt", ["a", "b"], [{ id: { line: 9, hash: hashLine("a") }, what: "end" }])
  ) as AnchorError;
  assertStringIncludes(e.detail ?? "", "line 9 does not exist; the file has 2 lines now");
  assertStringIncludes(e.detail ?? "", `is now at: ${renderLine(1, "a")}`);
});
