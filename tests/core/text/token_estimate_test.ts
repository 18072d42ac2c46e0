// token_estimate.ts (pure): line counts as view shows them in every encoding, agreeing with
// decodeText on random text and at any buffer offset.

import { assertEquals } from "../../_assert.ts";
import { countLines, textBytes } from "../../../lib/core/text/token_estimate.ts";
import { decodeText } from "../../../lib/core/text/text_file.ts";

function utf16(text: string, order: "le" | "be"): Uint8Array {
  const out = new Uint8Array(2 + text.length * 2);
  out.set(order === "le" ? [0xff, 0xfe] : [0xfe, 0xff]);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    out[2 + i * 2 + (order === "le" ? 0 : 1)] = c & 0xff;
    out[2 + i * 2 + (order === "le" ? 1 : 0)] = c >> 8;
  }
  return out;
}

const utf8 = (text: string, bom = false) =>
  new Uint8Array([...(bom ? [0xef, 0xbb, 0xbf] : []), ...new TextEncoder().encode(text)]);

Deno.test("countLines counts what view shows, in UTF-8, with a BOM and in UTF-16", () => {
  assertEquals(countLines(utf8("")), 0);
  assertEquals(countLines(utf8("a\nb")), 2);
  assertEquals(countLines(utf8("a\nb\n")), 2);
  assertEquals(countLines(utf8("", true)), 0, "a BOM alone is an empty file");
  assertEquals(
    countLines(utf16("hi\n", "le")),
    1,
    "UTF-16 LE ends with 0A 00, not a line of its own",
  );
  assertEquals(countLines(utf16("a\nb", "be")), 2);
  assertEquals(countLines(utf16("\u0a0a\n", "le")), 1, "U+0A0A is not a line feed");
  assertEquals(textBytes(utf16("abcd", "le")), 4);
});

Deno.test("countLines agrees with decodeText on random text in every encoding", async () => {
  const fc = (await import("fast-check")).default;
  const text = fc.string({ unit: fc.constantFrom("a", "\n", "\r", "é", "\u0a0a", "\u2028", " ") });
  fc.assert(fc.property(text, (t) => {
    for (const bytes of [utf8(t), utf8(t, true), utf16(t, "le"), utf16(t, "be")]) {
      const decoded = decodeText(bytes);
      if (decoded.kind !== "text") throw new Error("decoded as binary");
      if (countLines(bytes) !== decoded.doc.lines.length) return false;
    }
    return true;
  }));
});

Deno.test("countLines counts every LF of any bytes at any offset of a shared buffer", async () => {
  const fc = (await import("fast-check")).default;
  // Bytes near LF (0x0A) in every lane of a word, and around the bit trick's edges (0x00, 0x7F,
  // 0x80, 0x8A, 0xFF), placed at every alignment of the buffer they are a view of.
  const byte = fc.constantFrom(0x0a, 0x0a, 0x00, 0x0b, 0x09, 0x7f, 0x80, 0x8a, 0xff, 0x61, 0x0d);
  const bytes = fc.array(byte, { maxLength: 70 });
  fc.assert(
    fc.property(bytes, fc.nat(7), fc.nat(7), (list, before, after) => {
      const whole = new Uint8Array(before + list.length + after).fill(0x0a);
      whole.set(list, before);
      const view = whole.subarray(before, before + list.length);
      if (view[0] === 0xef || view[0] === 0xff || view[0] === 0xfe) return; // BOMs: other test
      let lf = 0;
      for (const b of list) if (b === 0x0a) lf++;
      const expected = list.length > 0 && list[list.length - 1] !== 0x0a ? lf + 1 : lf;
      assertEquals(countLines(view), expected);
    }),
    { numRuns: 3000 },
  );
});
