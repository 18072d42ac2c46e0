// Ranged views without decoding the whole file (issue 26): scanUtf8Lines agrees with a fatal
// TextDecoder and counts line feeds and CRLF; sniffTextBody makes the same encoding decision and
// refusals as decodeTextBody; ByteLineCursor gives splitLines' lines, in any order, across windows.

import { assertEquals } from "../../_assert.ts";
import fc from "fast-check";
import {
  countLines,
  decodeTextBody,
  decodeUndecoded,
  sniffTextBody,
  splitLines,
} from "../../../lib/core/text/text_file.ts";
import { scanUtf8Lines } from "../../../lib/core/text/utf8_check.ts";
import { ByteLineCursor } from "../../../lib/core/text/byte_lines.ts";

/** Bytes around UTF-8's edges: ASCII, LF, CR, lead bytes, continuations, overlongs, F4/F5. */
const edgyByte = fc.constantFrom(
  0x61,
  0x0a,
  0x0d,
  0x00,
  0x7f,
  0x80,
  0x8f,
  0x90,
  0x9f,
  0xa0,
  0xbf,
  0xc0,
  0xc1,
  0xc2,
  0xdf,
  0xe0,
  0xed,
  0xef,
  0xf0,
  0xf4,
  0xf5,
  0xff,
);
/** Mostly-valid UTF-8 with the odd stray byte, long enough (some) for the four-byte path. */
const utf8ish = fc.array(
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.string({ unit: "grapheme", maxLength: 6 }).map((s) =>
        new TextEncoder().encode(s)
      ),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom("\n", "\r\n", "\r", "abcdefgh").map((s) =>
        new TextEncoder().encode(s)
      ),
    },
    {
      weight: 1,
      arbitrary: fc.uint8Array({ minLength: 1, maxLength: 3 }).map((a) => a.map((b) => b | 0x80)),
    },
    {
      weight: 1,
      arbitrary: fc.array(edgyByte, { minLength: 1, maxLength: 4 }).map((a) => new Uint8Array(a)),
    },
  ),
  { maxLength: 80 },
).map((parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
});
/** The same bytes at every alignment: the four-byte path starts wherever the view's offset is. */
const shifted = fc.tuple(utf8ish, fc.integer({ min: 0, max: 3 })).map(([bytes, shift]) => {
  const room = new Uint8Array(bytes.length + shift);
  room.set(bytes, shift);
  return room.subarray(shift);
});

function fatalUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

Deno.test("scanUtf8Lines is well-formed exactly when a fatal TextDecoder decodes, with its LFs and CRLF", () => {
  fc.assert(
    fc.property(shifted, (bytes) => {
      const scan = scanUtf8Lines(bytes);
      const text = fatalUtf8(bytes);
      assertEquals(scan.wellFormed, text !== null);
      if (text === null) return;
      assertEquals(scan.lineFeeds, text.split("\n").length - 1);
      assertEquals(scan.crlf, text.includes("\r\n"));
    }),
    { numRuns: 3000 },
  );
  // The classic refusals, each after enough ASCII for the four-byte path.
  const pad = new Uint8Array(70).fill(0x61);
  for (
    const bad of [[0xc0, 0x80], [0xe0, 0x9f, 0xbf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [
      0xf0,
      0x9f,
      0x98,
    ]]
  ) {
    assertEquals(scanUtf8Lines(new Uint8Array([...pad, ...bad])).wellFormed, false, String(bad));
  }
});

Deno.test("sniffTextBody decides as decodeTextBody: encoding, BOM, refusal, text, lines, CRLF", () => {
  const withHeads = fc.tuple(
    fc.constantFrom([], [0xef, 0xbb, 0xbf], [0xff, 0xfe], [0xfe, 0xff], [0x00]),
    shifted,
  ).map(([head, body]) => new Uint8Array([...head, ...body]));
  fc.assert(
    fc.property(withHeads, (bytes) => {
      const decoded = decodeTextBody(bytes);
      const sniffed = sniffTextBody(bytes);
      if (sniffed.kind === "undecoded") {
        if (decoded.kind !== "text") throw new Error(`decodeTextBody refused: ${decoded.reason}`);
        assertEquals(decodeUndecoded(sniffed.body), decoded.body);
        assertEquals(sniffed.body.lineCount, countLines(decoded.body.text));
        assertEquals(sniffed.body.crlf, decoded.body.text.includes("\r\n"));
      } else {
        assertEquals(sniffed, decoded);
      }
    }),
    { numRuns: 3000 },
  );
});

Deno.test("ByteLineCursor gives splitLines' lines in any order, across windows, past the end", () => {
  fc.assert(
    fc.property(
      shifted,
      fc.array(fc.integer({ min: -1, max: 90 }), { maxLength: 30 }),
      fc.integer({ min: 1, max: 40 }),
      (bytes, asks, window) => {
        const sniffed = sniffTextBody(bytes);
        if (sniffed.kind !== "undecoded") return;
        const { lines } = splitLines(decodeUndecoded(sniffed.body).text);
        const cursor = new ByteLineCursor(sniffed.body.bytes, sniffed.body.encoding, window);
        // In order first (a view's range), then the asked lines as they come.
        for (let n = 1; n <= lines.length + 1; n++) assertEquals(cursor.at(n), lines[n - 1]);
        for (const n of asks) assertEquals(cursor.at(n), n >= 1 ? lines[n - 1] : undefined);
      },
    ),
    { numRuns: 2000 },
  );
});

Deno.test("ByteLineCursor jumps straight to any line of many short lines, at any alignment", () => {
  const manyLines = fc.tuple(
    fc.array(fc.constantFrom("", "a", "é", "ab", "abc", "\r", "😀x", "abcdefg"), {
      minLength: 60,
      maxLength: 200,
    }),
    fc.constantFrom("\n", "\r\n"),
    fc.boolean(),
    fc.integer({ min: 0, max: 3 }),
  ).map(([lines, eol, lastEol, shift]) => {
    const bytes = new TextEncoder().encode(lines.join(eol) + (lastEol ? eol : ""));
    const room = new Uint8Array(bytes.length + shift);
    room.set(bytes, shift);
    return room.subarray(shift);
  });
  fc.assert(
    fc.property(manyLines, (bytes) => {
      const { lines } = splitLines(new TextDecoder().decode(bytes));
      for (let n = 1; n <= lines.length + 1; n++) {
        assertEquals(new ByteLineCursor(bytes, "utf-8").at(n), lines[n - 1], `line ${n}`);
      }
    }),
    { numRuns: 300 },
  );
});
