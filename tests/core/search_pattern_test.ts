import { assert, assertEquals, assertStringIncludes, assertThrows } from "../_assert.ts";
import { compileSearchPattern, indexOfBytes } from "../../lib/core/search_pattern.ts";
import type { AnchorError } from "../../lib/core/errors.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

Deno.test("a literal pattern matches text exactly and prefilters raw bytes", () => {
  const p = compileSearchPattern("a.b(", false);
  assert(p.matchesLine("x a.b( y"));
  assert(!p.matchesLine("aXb("));
  assertEquals(p.mayMatchBytes(bytes("zzz\nza.b(")), true);
  assertEquals(p.mayMatchBytes(bytes("a.b")), false);
  assertEquals(compileSearchPattern("é", false).mayMatchBytes(bytes("caf\u00e9")), true);
});

Deno.test("indexOfBytes finds needles at the start, the end and after false starts", () => {
  assertEquals(indexOfBytes(bytes("aab"), bytes("ab"), 0), 1);
  assertEquals(indexOfBytes(bytes("xyz"), bytes("yz"), 0), 1);
  assertEquals(indexOfBytes(bytes("xy"), bytes("xyz"), 0), -1);
  assertEquals(indexOfBytes(bytes("abcabd"), bytes("abd"), 0), 3);
});

Deno.test("a regex pattern supports a leading (?i) and defers the prefilter to decoded text", () => {
  const p = compileSearchPattern("(?i)todo|fixme", true);
  assert(p.matchesLine("// ToDo later"));
  assert(p.matchesLine("FIXME"));
  assertEquals(p.mayMatchBytes(bytes("x")), null);
  assert(p.mayMatchText("a\nb TODO\n"));
  assert(!p.mayMatchText("nothing here"));
  const anchored = compileSearchPattern("^end$", true);
  assert(anchored.mayMatchText("start\r\nend\r\n"), "^/$ work per line in the prefilter");
});

Deno.test("an invalid regex quotes the parser's message and offers the literal search", () => {
  const error = assertThrows(() => compileSearchPattern("foo(", true)) as AnchorError;
  assertEquals(error.code, "INVALID_REGEX");
  assertStringIncludes(error.message, 'regex "foo(" does not compile: Invalid regular expression');
  assertStringIncludes(error.hint!, '"regex":false');
});

Deno.test("empty and multi-line content are refused with the next call", () => {
  assertEquals(
    (assertThrows(() => compileSearchPattern("", false)) as AnchorError).code,
    "EMPTY_SEARCH",
  );
  const multi = assertThrows(() => compileSearchPattern("a\nb", false)) as AnchorError;
  assertStringIncludes(multi.hint!, '{"content":"a"}');
});

Deno.test("indexOfBytes agrees with a naive search on random inputs", async () => {
  const fc = (await import("fast-check")).default;
  const naive = (h: Uint8Array, n: Uint8Array) => {
    outer: for (let i = 0; i + n.length <= h.length; i++) {
      for (let j = 0; j < n.length; j++) if (h[i + j] !== n[j]) continue outer;
      return i;
    }
    return -1;
  };
  const small = fc.uint8Array({ maxLength: 40 }).map((a: Uint8Array) => a.map((b) => 97 + (b % 3)));
  fc.assert(
    fc.property(
      small,
      small.filter((a: Uint8Array) => a.length > 0),
      (h: Uint8Array, n: Uint8Array) => {
        assertEquals(indexOfBytes(h, n, 0), naive(h, n));
      },
    ),
    { numRuns: 500 },
  );
});
