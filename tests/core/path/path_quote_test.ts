// path_quote.ts (pure): quoted and JSON-string paths unquoted, broken quoting refused with the
// fix, and names that are not UTF-8 kept byte for byte (property tests).

import fc from "fast-check";
import { assert, assertEquals, assertThrows } from "../../_assert.ts";
import { AnchorError } from "../../../lib/core/errors.ts";
import {
  decodeNameBytes,
  encodeNameBytes,
  hasRawBytes,
  needsQuoting,
  quotePath,
  quotePathAlways,
  splitPathList,
  unquotePath,
} from "../../../lib/core/path/path_quote.ts";

const TABLE: [string, string][] = [
  ["src/main.ts", "src/main.ts"],
  ["with space.txt", "with space.txt"],
  ['say "hi".txt', 'say "hi".txt'],
  ["back\\slash.txt", "back\\slash.txt"],
  ["日本語/ファイル.md", "日本語/ファイル.md"],
  ["emoji 😀.txt", "emoji 😀.txt"],
  ["new\nline.txt", '"new\\nline.txt"'],
  ["10 lines\tfake.txt", '"10 lines\\tfake.txt"'],
  ["cr\r.txt", '"cr\\r.txt"'],
  ["esc\u001b[31m.txt", '"esc\\u001b[31m.txt"'],
  ["del\u007f.txt", '"del\\u007f.txt"'],
  ["c1\u0085.txt", '"c1\\u0085.txt"'],
  ["rtl\u202etxt.exe", '"rtl\\u202etxt.exe"'],
  [" lead.txt", '" lead.txt"'],
  ["trail.txt ", '"trail.txt "'],
  ['"x".txt', '"\\"x\\".txt"'],
  ['tab\tand "q" and \\', '"tab\\tand \\"q\\" and \\\\"'],
  ["bad\udcffname.txt", '"bad\\xffname.txt"'],
  ["latin1 caf\udce9.txt", '"latin1 caf\\xe9.txt"'],
];

for (const [name, shown] of TABLE) {
  Deno.test(`quotePath(${JSON.stringify(name)}) is ${shown} and reads back`, () => {
    assertEquals(quotePath(name), shown);
    assertEquals(unquotePath(shown), name);
  });
}

Deno.test("unquotePath takes JSON strings too (\\uXXXX, \\/, surrogate pairs)", () => {
  assertEquals(unquotePath('"a\\u0009b"'), "a\tb");
  assertEquals(unquotePath('"a\\/b"'), "a/b");
  assertEquals(unquotePath('"\\ud83d\\ude00"'), "😀");
  assertEquals(unquotePath('"\\udcff"'), "\udcff");
  assertEquals(unquotePath(JSON.stringify("bad\udcff")), "bad\udcff");
  assertEquals(unquotePath('"\\x41"'), "A");
});

Deno.test("unquotePath trims plain paths and keeps a lone quote literal", () => {
  assertEquals(unquotePath("  src/a.ts \n"), "src/a.ts");
  assertEquals(unquotePath('"'), '"');
  assertEquals(unquotePath('a"b"'), 'a"b"');
  assertEquals(unquotePath('  " spaced "  '), " spaced ");
});

Deno.test("unquotePath refuses a broken quoted form and says how to write one", () => {
  for (const bad of ['"a"b"', '"a\\q"', '"a\\x4"', '"a\\u12"', '"a\\"']) {
    assertThrows(() => unquotePath(bad), (e) => {
      assert(e instanceof AnchorError);
      assertEquals(e.code, "INVALID_PATH");
      assert(e.message.includes("\\xNN"), e.message);
    });
  }
});

Deno.test("decodeNameBytes keeps each byte that is not UTF-8 as U+DC80..U+DCFF", () => {
  const b = (...xs: number[]) => new Uint8Array(xs);
  assertEquals(decodeNameBytes(b(0x61, 0xff, 0x62)), "a\udcffb");
  assertEquals(decodeNameBytes(b(0xc3, 0xa9)), "é");
  // Overlong "/", an encoded surrogate, a truncated sequence: each byte kept alone.
  assertEquals(decodeNameBytes(b(0xc0, 0xaf)), "\udcc0\udcaf");
  assertEquals(decodeNameBytes(b(0xed, 0xa0, 0x80)), "\udced\udca0\udc80");
  assertEquals(decodeNameBytes(b(0xe6, 0x97)), "\udce6\udc97");
  assertEquals(decodeNameBytes(b(0xf0, 0x9f, 0x98, 0x80)), "😀");
  assert(hasRawBytes("a\udcffb"));
  // U+1F080 is the pair D83C DC80: its low half is not a raw byte.
  assert(!hasRawBytes("\u{1F080}"));
  assertEquals(encodeNameBytes("\u{1F080}"), new TextEncoder().encode("\u{1F080}"));
});

Deno.test("property: any bytes survive decodeNameBytes → encodeNameBytes", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
      assertEquals(encodeNameBytes(decodeNameBytes(bytes)), bytes);
    }),
    { numRuns: 2000 },
  );
});

Deno.test("property: valid UTF-8 decodes exactly as TextDecoder does", () => {
  fc.assert(
    fc.property(fc.string({ unit: "grapheme", maxLength: 20 }), (text) => {
      assertEquals(decodeNameBytes(new TextEncoder().encode(text)), text);
    }),
  );
});

/** Names from bytes (any bytes but NUL and "/") and from odd text. */
const nameFromBytes = fc.uint8Array({ maxLength: 24 }).map((bytes) =>
  decodeNameBytes(bytes.filter((x) => x !== 0 && x !== 0x2f))
);
const oddText = fc.string({
  unit: fc.oneof(
    fc.constantFrom("\t", "\n", "\r", "\u001b", '"', "\\", " ", "\u2028", "\u202e", "\udcff"),
    fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }),
  ),
  maxLength: 20,
});

Deno.test("property: quotePath round-trips, is one line and leaves plain names alone", () => {
  fc.assert(
    fc.property(fc.oneof(nameFromBytes, oddText), (name) => {
      const shown = quotePath(name);
      assertEquals(unquotePath(shown), name);
      assertEquals(unquotePath(quotePathAlways(name)), name);
      if (!needsQuoting(name)) assertEquals(shown, name);
      else {
        // deno-lint-ignore no-control-regex -- no control character may remain
        assert(!/[\u0000-\u001f\u007f]/.test(shown), shown);
        assert(shown.isWellFormed(), shown);
      }
    }),
    { numRuns: 3000 },
  );
});

Deno.test("splitPathList splits at | outside quoted names only", () => {
  assertEquals(splitPathList("src|tests"), ["src", "tests"]);
  assertEquals(splitPathList('src| "a|b\\"|c" |x'), ["src", ' "a|b\\"|c" ', "x"]);
  assertEquals(splitPathList('say "a|b".txt'), ['say "a', 'b".txt']);
  assertEquals(splitPathList("a||b"), ["a", "", "b"]);
  assertEquals(splitPathList(""), [""]);
  assertEquals(splitPathList("a|"), ["a", ""]);
});

Deno.test("property: quoted names joined with | split back into the same names", () => {
  fc.assert(
    fc.property(
      fc.array(fc.oneof(nameFromBytes, oddText), { minLength: 1, maxLength: 4 }),
      (ns) => {
        const joined = ns.map(quotePathAlways).join("|");
        assertEquals(splitPathList(joined).map(unquotePath), ns);
      },
    ),
  );
});
