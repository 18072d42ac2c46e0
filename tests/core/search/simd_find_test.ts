// simd_find.ts (pure WebAssembly): the SIMD finder answers as containsLiteral on random bytes,
// needles and case folding, at every offset and within its given length.

import { assertEquals } from "../../_assert.ts";
import fc from "fast-check";
import { createFinder, finderModuleBytes } from "../../../lib/core/search/simd_find.ts";
import { byteLiteral, containsLiteral } from "../../../lib/core/search/search_pattern.ts";

const finder = createFinder(finderModuleBytes());
const decoder = new TextDecoder("latin1");

/** The finder's answer for `hay`, copied into its buffer. */
function finds(hay: Uint8Array, needle: string, ignoreCase: boolean): boolean {
  finder.room(hay.length).set(hay);
  return finder.contains(hay.length, byteLiteral(needle, ignoreCase));
}

Deno.test("the SIMD finder answers as containsLiteral on random bytes, needles and case folding", () => {
  // A small alphabet with both cases, NUL and a non-ASCII byte, so matches and near misses abound.
  const alphabet = [0x61, 0x62, 0x41, 0x42, 0x5f, 0x00, 0xe9, 0x0a];
  const bytes = (max: number) =>
    fc.array(fc.constantFrom(...alphabet), { maxLength: max }).map((a) => Uint8Array.from(a));
  fc.assert(
    fc.property(bytes(90), bytes(5), fc.boolean(), (hay, needleBytes, ignoreCase) => {
      let needle = decoder.decode(needleBytes);
      if (needle === "") return;
      if (ignoreCase) needle = needle.toLowerCase();
      const literal = byteLiteral(needle, ignoreCase);
      assertEquals(
        finds(hay, needle, ignoreCase),
        containsLiteral(hay, literal),
        JSON.stringify({ hay: [...hay], needle, ignoreCase }),
      );
    }),
    { numRuns: 3000 },
  );
});

Deno.test("the SIMD finder finds a needle at every offset of a buffer, and none past its length", () => {
  const needle = "needle";
  for (let size = 6; size < 80; size++) {
    for (let at = 0; at + 6 <= size; at++) {
      const hay = new Uint8Array(size).fill(0x2e);
      hay.set(new TextEncoder().encode(needle), at);
      assertEquals(finds(hay, needle, false), true, `size ${size} at ${at}`);
      assertEquals(finds(hay, "NEEDLE".toLowerCase(), true), true);
      // The same bytes just past the searched length do not count.
      finder.room(size + 6).set(hay);
      assertEquals(finder.contains(at + 5, byteLiteral(needle, false)), false);
    }
  }
});

Deno.test("the SIMD finder sees a NUL byte only within the length it is given", () => {
  for (let size = 1; size < 70; size++) {
    for (let at = 0; at < size; at++) {
      const buf = finder.room(size + 1);
      buf.fill(1, 0, size + 1);
      buf[at] = 0;
      assertEquals(finder.hasZero(size), true);
      assertEquals(finder.hasZero(at), false);
    }
  }
});

Deno.test("the SIMD finder keeps its contents when its buffer grows, and takes a Latin-1 twin", () => {
  const small = finder.room(10);
  small.set(new TextEncoder().encode("xx café"));
  const grown = finder.room(20 * 1024 * 1024);
  assertEquals(finder.contains(8, byteLiteral("café", false)), true);
  grown.set([0x63, 0x61, 0x66, 0xe9]); // "café" as Latin-1 bytes
  assertEquals(finder.contains(4, byteLiteral("café", false)), true);
  assertEquals(finder.contains(4, byteLiteral("cafe", false)), false);
});

Deno.test("the SIMD finder counts LF bytes and tells non-ASCII in any range, and finds a needle's first start in it", () => {
  const alphabet = [0x61, 0x62, 0x0a, 0x0d, 0x7f, 0x80, 0xe9, 0xff, 0x00];
  const bytes = fc.array(fc.constantFrom(...alphabet), { maxLength: 120 }).map((a) =>
    Uint8Array.from(a)
  );
  fc.assert(
    fc.property(bytes, fc.nat(), fc.nat(), fc.nat(40), (hay, a, b, offset) => {
      const buf = finder.room(offset + hay.length).subarray(offset);
      buf.set(hay);
      const from = hay.length === 0 ? 0 : a % (hay.length + 1);
      const to = from + (hay.length === 0 ? 0 : b % (hay.length - from + 1));
      const part = hay.subarray(from, to);
      const lf = part.filter((x) => x === 10).length;
      assertEquals(finder.lines(buf, from, to), part.every((x) => x < 0x80) ? lf : -1 - lf);
      const literal = byteLiteral("ab", false);
      const at = decoder.decode(part).indexOf("ab");
      assertEquals(finder.indexIn(buf, from, to, literal), at === -1 ? -1 : from + at);
    }),
    { numRuns: 2000 },
  );
  // Bytes outside its memory: it cannot tell (and reads nothing).
  assertEquals(finder.lines(Uint8Array.from([10, 10]), 0, 2), null);
  assertEquals(finder.indexIn(Uint8Array.from([0x61, 0x62]), 0, 2, byteLiteral("ab", false)), null);
});
