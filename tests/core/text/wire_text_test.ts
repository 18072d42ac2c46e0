// Wire sizes match what JSON.stringify + UTF-8 really send, and a tail fitted to a byte budget
// is the longest end of the text that fits, with control bytes shown as pictures.

import fc from "fast-check";
import { assert, assertEquals } from "../../_assert.ts";
import {
  jsonStringBytes,
  showControls,
  shownWireBytes,
  tailForWire,
  utf8Bytes,
} from "../../../lib/core/text/wire_text.ts";

const enc = new TextEncoder();
const wire = (text: string) => enc.encode(JSON.stringify(text)).length - 2;

// Strings rich in what changes sizes: controls, quotes, backslashes, multi-byte, lone surrogates.
const tricky = fc.array(
  fc.oneof(
    fc.constantFrom("\u0000", "\u001b", "\r", "\n", "\t", "\u007f", '"', "\\", "é", "€", "😀"),
    fc.constantFrom("\ud800", "\udc00"),
    fc.string({ unit: "binary", maxLength: 4 }),
  ),
  { maxLength: 40 },
).map((parts) => parts.join(""));

Deno.test("jsonStringBytes is the size JSON.stringify sends, quotes excluded", () => {
  fc.assert(fc.property(tricky, (text) => assertEquals(jsonStringBytes(text), wire(text))), {
    numRuns: 500,
  });
  assertEquals(jsonStringBytes("\u0000"), 6);
  assertEquals(jsonStringBytes("a\nb"), 4);
});

Deno.test("utf8Bytes is the size TextEncoder writes for well-formed text", () => {
  fc.assert(
    fc.property(fc.string({ unit: "grapheme" }), (text) => {
      assertEquals(utf8Bytes(text), enc.encode(text).length);
    }),
  );
});

Deno.test("showControls pictures C0 bytes but tab and newline, and DEL", () => {
  assertEquals(showControls("a\u0000b\u001b[31m\tc\r\n\u007f"), {
    text: "a␀b␛[31m\tc␍\n␡",
    replaced: 4,
  });
  assertEquals(showControls("plain\ttext\n"), { text: "plain\ttext\n", replaced: 0 });
});

Deno.test("tailForWire keeps the longest end that fits the budget as sent", () => {
  fc.assert(
    fc.property(tricky, fc.nat(120), (text, max) => {
      const fit = tailForWire(text, max);
      assert(wire(fit.text) <= max, `${JSON.stringify(fit.text)} over ${max}`);
      // The kept part is the original's end, pictured (a picture replaces one code unit); the
      // dropped part is counted in bytes.
      const keptOriginal = text.slice(text.length - fit.text.length);
      assertEquals(showControls(keptOriginal).text, fit.text);
      assertEquals(fit.droppedBytes, utf8Bytes(text.slice(0, text.length - keptOriginal.length)));
      // One more character would not fit.
      if (keptOriginal.length < text.length) {
        let more = text.length - keptOriginal.length - 1;
        const c = text.charCodeAt(more);
        if (c >= 0xdc00 && c <= 0xdfff && more > 0) {
          const p = text.charCodeAt(more - 1);
          if (p >= 0xd800 && p <= 0xdbff) more--;
        }
        assert(wire(showControls(text.slice(more)).text) > max);
      }
    }),
    { numRuns: 500 },
  );
});

Deno.test("tailForWire fits a NUL flood into its budget at 3 bytes per NUL", () => {
  const fit = tailForWire("\u0000".repeat(100_000), 30 * 1024);
  assertEquals(fit.text.length, Math.floor(30 * 1024 / 3));
  assertEquals(fit.pictured, fit.text.length);
  assertEquals(fit.droppedBytes, 100_000 - fit.text.length);
  assertEquals(enc.encode(JSON.stringify(fit.text)).length - 2, fit.text.length * 3);
});

// The definition showControls must keep: one picture per control byte but tab and newline.
const pictured = (text: string) =>
  // deno-lint-ignore no-control-regex
  text.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, (ch) => {
    const c = ch.charCodeAt(0);
    return String.fromCharCode(c === 0x7f ? 0x2421 : 0x2400 + c);
  });
// deno-lint-ignore no-control-regex
const controlCount = (text: string) => (text.match(/[\x00-\x08\x0b-\x1f\x7f]/g) ?? []).length;

Deno.test("showControls pictures every control byte but tab and newline, runs included", () => {
  const runs = fc.array(
    fc.oneof(tricky, fc.constantFrom("\u0000", "\u001b", "\u007f").map((c) => c.repeat(50))),
    { maxLength: 6 },
  ).map((parts) => parts.join(""));
  fc.assert(
    fc.property(runs, (text) => {
      const shown = showControls(text);
      assertEquals(shown.text, pictured(text));
      assertEquals(shown.replaced, controlCount(text));
    }),
    { numRuns: 500 },
  );
  assertEquals(showControls("a\u0000\u0000b\tc\n\u007f"), { text: "a␀␀b\tc\n␡", replaced: 3 });
  const plain = "no controls here";
  assertEquals(showControls(plain), { text: plain, replaced: 0 });
});

Deno.test("shownWireBytes is the wire size of the pictured text, counted only up to a limit", () => {
  fc.assert(
    fc.property(tricky, (text) => {
      assertEquals(shownWireBytes(text), wire(showControls(text).text));
    }),
    { numRuns: 500 },
  );
  const nul = "\u0000".repeat(1000);
  assertEquals(shownWireBytes(nul), 3000);
  // Past the limit it stops: more than the limit, far less than the whole.
  const cut = shownWireBytes(nul, 10);
  assert(cut > 10 && cut <= 13, `${cut}`);
});
