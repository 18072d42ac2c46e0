// text_file.ts (pure): decoding (BOM, CRLF, encodings, binary by NUL) and line counting that
// matches splitLines without splitting (property tests).

import { assertEquals } from "../../_assert.ts";
import fc from "fast-check";
import {
  countLines,
  decodeText,
  decodeTextBody,
  encodeDoc,
  LineCursor,
  looksBinary,
  splitLines,
  type TextDoc,
} from "../../../lib/core/text/text_file.ts";

const enc = (s: string) => new TextEncoder().encode(s);

function doc(bytes: Uint8Array): TextDoc {
  const d = decodeText(bytes);
  if (d.kind !== "text") throw new Error(`expected text, got binary: ${d.reason}`);
  return d.doc;
}

const ROUND_TRIPS: [string, Uint8Array][] = [
  ["empty", new Uint8Array()],
  ["LF with final newline", enc("a\nb\n")],
  ["no final newline", enc("a\nb")],
  ["CRLF", enc("a\r\nb\r\n")],
  ["mixed endings", enc("a\r\nb\nc\r\nd")],
  ["lone CR kept in content", enc("a\rb\n")],
  ["UTF-8 BOM", new Uint8Array([0xef, 0xbb, 0xbf, ...enc("x\ny\n")])],
  ["Latin-1", new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a, 0xff, 0x0a])],
  ["UTF-16 LE", new Uint8Array([0xff, 0xfe, 0x61, 0, 0x0a, 0, 0x62, 0, 0x0a, 0])],
  ["UTF-16 BE", new Uint8Array([0xfe, 0xff, 0, 0x61, 0, 0x0d, 0, 0x0a, 0, 0x62])],
];
for (const [name, bytes] of ROUND_TRIPS) {
  Deno.test(`decodeText/encodeDoc round-trips ${name} byte for byte`, () => {
    assertEquals(encodeDoc(doc(bytes)), bytes);
  });
}

Deno.test("decodeText strips the BOM from line 1 and CR from CRLF lines", () => {
  const d = doc(new Uint8Array([0xef, 0xbb, 0xbf, ...enc("first\r\nsecond")]));
  assertEquals(d.lines, ["first", "second"]);
  assertEquals(d.eols, ["\r\n", ""]);
  assertEquals(d.bom, true);
});

Deno.test("decodeText detects encodings", () => {
  assertEquals(doc(enc("héllo")).encoding, "utf-8");
  assertEquals(doc(new Uint8Array([0x68, 0xe9])).encoding, "latin1");
  assertEquals(doc(new Uint8Array([0x68, 0xe9])).lines, ["hé"]);
  assertEquals(doc(new Uint8Array([0xff, 0xfe, 0x68, 0])).encoding, "utf-16le");
});

Deno.test("decodeText calls NUL-bearing files binary", () => {
  assertEquals(decodeText(new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1])).kind, "binary");
});

Deno.test("countLines and LineCursor give splitLines' lines without splitting, in any order", () => {
  const text = fc.array(fc.constantFrom("a", "bc", "\r", "\n", "\r\n", "é", ""), { maxLength: 30 })
    .map((parts) => parts.join(""));
  fc.assert(
    fc.property(text, fc.array(fc.integer({ min: -1, max: 35 }), { maxLength: 12 }), (t, asks) => {
      const { lines } = splitLines(t);
      assertEquals(countLines(t), lines.length);
      const cursor = new LineCursor(t);
      // In order (how a view reads), then in the order asked (ids before the range).
      for (let n = 1; n <= lines.length + 1; n++) assertEquals(cursor.at(n), lines[n - 1]);
      for (const n of asks) assertEquals(cursor.at(n), n >= 1 ? lines[n - 1] : undefined);
    }),
    { numRuns: 500 },
  );
});

Deno.test("decodeTextBody is decodeText before the split (every encoding)", () => {
  const samples = [
    new TextEncoder().encode("a\r\nb\nc"),
    new Uint8Array([0xef, 0xbb, 0xbf, 0x61, 0x0a]),
    new Uint8Array([0xff, 0xfe, 0x61, 0x00, 0x0a, 0x00]),
    new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]),
    new Uint8Array([0x00, 0x01]),
  ];
  for (const bytes of samples) {
    const body = decodeTextBody(bytes);
    const doc = decodeText(bytes);
    if (body.kind === "binary" || doc.kind === "binary") {
      assertEquals<unknown>(body, doc);
      continue;
    }
    const { encoding, bom, text } = body.body;
    assertEquals({ encoding, bom, ...splitLines(text) }, doc.doc);
  }
});

Deno.test("looksBinary finds a NUL anywhere in the first 8 KiB, whatever the head's alignment", () => {
  const buffer = new Uint8Array(8192 + 16).fill(0x61);
  for (const offset of [0, 1, 2, 3, 5]) {
    for (const length of [0, 1, 3, 4, 7, 8, 9, 100, 8192 - offset, 8192 + 8]) {
      const head = buffer.subarray(offset, offset + length);
      assertEquals(looksBinary(head), false, `offset ${offset}, ${length} bytes`);
      for (const at of new Set([0, 1, 2, 3, 4, 5, length >> 1, length - 2, length - 1, 8191])) {
        if (at < 0 || at >= length) continue;
        head[at] = 0;
        // Past the first 8 KiB a NUL does not count.
        assertEquals(
          looksBinary(head),
          at < 8192,
          `offset ${offset}, ${length} bytes, NUL at ${at}`,
        );
        head[at] = 0x61;
      }
    }
  }
  // A UTF-16 byte order mark: its NULs are text.
  assertEquals(looksBinary(new Uint8Array([0xff, 0xfe, 0x61, 0, 0x62, 0])), false);
});

Deno.test("looksBinary agrees with a byte loop over random heads", () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 64 }),
      fc.nat(3),
      (bytes: Uint8Array, offset: number) => {
        const head = new Uint8Array(bytes.length + offset).subarray(offset);
        head.set(bytes);
        const bom = head.length >= 2 &&
          ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff));
        assertEquals(looksBinary(head), !bom && head.includes(0));
      },
    ),
    { numRuns: 2000 },
  );
});
