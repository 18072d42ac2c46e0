// search_pattern.ts (pure): literal and regex patterns, their byte prefilters, (?i), and an invalid
// regex's message offering the literal search.

import { assert, assertEquals, assertStringIncludes, assertThrows } from "../../_assert.ts";
import {
  compileSearchPattern,
  indexOfBytes,
  MAX_SEARCH_CHARS,
  requiredLiteral,
} from "../../../lib/core/search/search_pattern.ts";
import type { AnchorError } from "../../../lib/core/errors.ts";

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
  // Its alternatives prefilter the bytes, ASCII case folded (literal_set.ts).
  assertEquals(p.mayMatchBytes(bytes("x")), false);
  assertEquals(p.mayMatchBytes(bytes("a FiXme")), true);
  assertEquals(compileSearchPattern("(?i)todo|\\d", true).mayMatchBytes(bytes("x")), null);
  assert(p.mayMatchText("a\nb TODO\n"));
  assert(!p.mayMatchText("nothing here"));
  const anchored = compileSearchPattern("^end$", true);
  assert(anchored.mayMatchText("start\r\nend\r\n"), "^/$ work per line in the prefilter");
});

Deno.test("an invalid regex quotes the parser's message and offers the literal search", () => {
  const error = assertThrows(() => compileSearchPattern("foo(", true)) as AnchorError;
  assertEquals(error.code, "INVALID_REGEX");
  assertStringIncludes(
    error.message,
    'regex "foo(" does not compile as RE2 syntax (the search dialect): missing closing )',
  );
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

Deno.test("content past MAX_SEARCH_CHARS is refused naming its length and start, never echoed whole", () => {
  const long = `needle ${"x".repeat(3_000_000)}`;
  const error = assertThrows(() => compileSearchPattern(long, true)) as AnchorError;
  assertEquals(error.code, "SEARCH_TOO_LONG");
  assertStringIncludes(error.message, "content is 3,000,007 characters long");
  assertStringIncludes(error.hint!, '{"content":"needle xxx');
  assert(error.message.length + error.hint!.length < 1000);
  assertEquals(compileSearchPattern("y".repeat(MAX_SEARCH_CHARS), false).regex, false);
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

Deno.test("requiredLiteral finds a run every match must contain, or gives up", () => {
  const cases: [string, boolean, string | null][] = [
    ["fetchUser\\(", false, "fetchUser("],
    ["foo\\d+barbaz", false, "barbaz"],
    ["colou?r", false, "colo"],
    ["ab+cd", false, "ab"],
    ["(a|b)xyz[0-9]", false, "xyz"],
    ["a|b", false, null],
    ["todo", true, "todo"],
    ["task", true, "ta"], // k and s fold from non-ASCII characters under /iu
    ["\\bclass\\s+Foo", false, "Foo"], // the rarer run
    ["x{2,3}yz", false, "yz"],
    ["[]]abc", false, "abc"], // RE2: a leading ] is a member of the class
    ["[[:alpha:]]xy", false, "xy"],
    ["ab(?i)cd", false, null], // flags anywhere: cd is case-insensitive
    ["\\Qa.b\\E", false, null],
  ];
  for (const [body, ignoreCase, expected] of cases) {
    assertEquals(requiredLiteral(body, ignoreCase), expected, body);
  }
});

Deno.test("a regex prefilter never rules out a line the regex matches", async () => {
  const fc = (await import("fast-check")).default;
  const alphabet = fc.constantFrom("a", "B", "c", "(", ".", "x", "\\", "1", "K", "é");
  const text = fc.array(alphabet, { maxLength: 30 }).map((a: string[]) => a.join(""));
  const bodies = ["aB.c", "(?i)abc", "x\\(a", "(?i)BX", "c+x", "a?Bc", "[ab]cx", "(?i)é"];
  fc.assert(
    fc.property(fc.constantFrom(...bodies), text, (body: string, line: string) => {
      const p = compileSearchPattern(body, true);
      if (p.matchesLine(line)) {
        assert(p.mayMatchBytes(bytes(line)) !== false, `${body} vs ${line}`);
      }
    }),
    { numRuns: 2000 },
  );
});

Deno.test("a non-ASCII literal prefilters both its UTF-8 and its Latin-1 bytes", () => {
  const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9]); // "café" in Latin-1
  assertEquals(compileSearchPattern("café", false).mayMatchBytes(latin1), true);
  assertEquals(compileSearchPattern("caf(é)", true).mayMatchBytes(latin1), true);
  assertEquals(compileSearchPattern("cafè", false).mayMatchBytes(latin1), false);
  // Characters Latin-1 cannot store have only the UTF-8 needle.
  assertEquals(compileSearchPattern("€", false).literal?.latin1, undefined);
});

Deno.test("the regex dialect is RE2: (?i) anywhere, classes, \\pL; no backreferences or lookahead", () => {
  const matches = (source: string, line: string) =>
    compileSearchPattern(source, true).matchesLine(line);
  assert(matches("(?i)todo", "a ToDo"));
  assert(matches("a(?i)bc", "aBC"));
  assert(!matches("a(?i)bc", "ABC"));
  assert(matches("[[:digit:]]+x", "12x"));
  assert(matches("\\pL+\\d", "é5"));
  assert(matches("(?P<word>ab)c", "abc"));
  assert(matches("(?<=foo)bar", "foobar"), "captureless lookbehind works");
  assert(!matches("(?<=foo)bar", "bazbar"));
  assert(matches("\\u0041", "A"), "JavaScript's \\uXXXX is accepted");
  assert(matches("^\\s*import", "\timport x"));
  assert(!matches("^\\s+$", "\u00a0"), "\\s is ASCII whitespace, as in RE2");
  for (
    const [source, construct] of [
      ["(a)\\1", "a backreference (\\1)"],
      ["(?<w>a)\\k<w>", "a backreference (\\k<name>)"],
      ["foo(?=bar)", "a lookahead ((?=…)"],
      ["foo(?!bar)", "a lookahead ((?!…)"],
    ]
  ) {
    const error = assertThrows(() =>
      compileSearchPattern(source!, true, (a) => `view ${JSON.stringify(a)}`)
    ) as AnchorError;
    assertEquals(error.code, "UNSUPPORTED_REGEX", source);
    assertStringIncludes(error.message, `uses ${construct}`);
    assertStringIncludes(error.message, "RE2, linear time");
    assertStringIncludes(error.hint!, "view {");
  }
});

Deno.test("a catastrophic regex answers at once on a long line, on every engine path", () => {
  const line = "a".repeat(50_000) + "b";
  for (const source of ["^(a|aa)+$", "(?i)^(a|aa)+$", "^(a+)+$", "(x+x+)+y", "(?s)^(.*a){20}$"]) {
    const p = compileSearchPattern(source, true);
    assertEquals(p.matchesLine(line), false, source);
    assertEquals(p.mayMatchText(`${line}\n${line}`), false, source);
  }
});

Deno.test("the prefilter keeps \\A, \\z and $ lines that the whole-buffer test cannot see", () => {
  assert(compileSearchPattern("x\\z", true).mayMatchText("x\r\ny\r\n"));
  assert(compileSearchPattern("^end$", true).mayMatchText("start\r\nend\r\n"));
  assert(compileSearchPattern("(?i)^END$", true).mayMatchText("start\r\nend\r\n"));
});
