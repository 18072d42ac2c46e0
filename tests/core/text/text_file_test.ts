import { assertEquals } from "../../_assert.ts";
import { decodeText, encodeDoc, type TextDoc } from "../../../lib/core/text/text_file.ts";

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
