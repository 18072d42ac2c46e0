// Passing over lines without the needle as bytes (quiet_lines.ts) must answer exactly as decoding
// every line did: the same searches run through both paths (LineMatchers.quiet set, and null)
// on generated files with multi-byte UTF-8, CRLF, long lines, Latin-1, binary and many hits.

import fc from "fast-check";
import { assert, assertEquals } from "../../_assert.ts";
import { compileSearchPattern } from "../../../lib/core/search/search_pattern.ts";
import { matchBytes, matchData, type ReadAt } from "../../../lib/core/search/match_bytes.ts";
import type { LineMatchers, MatchOptions } from "../../../lib/core/search/line_matcher.ts";

const enc = new TextEncoder();

function chunked(data: Uint8Array, size: number): ReadAt {
  return (position) => data.slice(position, position + size);
}

const LINES = [
  "const value = compute(input);",
  "  return needle + other;",
  "// a comment with é and ü in it",
  "emoji 😀 needle after it",
  "中文字符串 without it",
  "NEEDLE in capitals, NeEdLe mixed",
  "",
  "\t\tindented() // needl e split",
  "ends with needle",
  "needleneedleneedle",
];

/** One generated file's bytes: lines from LINES, some long, CRLF or LF, maybe Latin-1 or NUL. */
const fileArb = fc.record({
  lines: fc.array(
    fc.tuple(fc.nat(LINES.length - 1), fc.constantFrom(1, 1, 1, 1, 2, 300, 5000), fc.boolean()),
    { minLength: 1, maxLength: 200 },
  ),
  repeat: fc.constantFrom(1, 1, 4, 40),
  tail: fc.constantFrom("", "\n", "needle", "\r\n", "é"),
  extra: fc.constantFrom("none", "none", "latin1", "nul-early", "nul-late", "bom"),
}).map(({ lines, repeat, tail, extra }) => {
  let text = "";
  for (const [k, times, crlf] of lines) {
    text += LINES[k]!.repeat(times) + (crlf ? "\r\n" : "\n");
  }
  text = text.repeat(repeat) + tail;
  let bytes = enc.encode(text);
  const at = Math.floor(bytes.length / 2);
  if (extra === "latin1") {
    bytes = Uint8Array.from([...bytes.subarray(0, at), 0xe9, ...bytes.subarray(at)]);
  }
  if (extra === "nul-early") bytes = Uint8Array.from([0x61, 0, ...bytes]);
  if (extra === "nul-late" && bytes.length > 9000) bytes[9000] = 0;
  if (extra === "bom") bytes = Uint8Array.from([0xef, 0xbb, 0xbf, ...bytes]);
  return bytes;
});

const PATTERNS: [string, boolean][] = [
  ["needle", false],
  ["Needle", false],
  ["(?i)NEEDLE", true],
  ["need(le|xx)", true],
  ["é", false],
  ["😀 needle", false],
  ["needle$", true],
  ["中文", false],
  ["e", false],
];

const optionsArb = fc.record({
  context: fc.nat(3),
  perFile: fc.constantFrom(1, 3, 50, 10_000),
  maxChars: fc.constantFrom(20, 400),
  room: fc.constantFrom(5, 200, 1 << 30),
});

Deno.test("passing over lines as bytes answers as decoding every line, for generated files", () => {
  fc.assert(
    fc.property(
      fileArb,
      fc.constantFrom(...PATTERNS),
      optionsArb,
      fc.constantFrom(1024 * 1024, 65536, 4096, 777),
      (data, [source, regex], o: MatchOptions, size) => {
        const m = compileSearchPattern(source, regex).matchers();
        const old: LineMatchers = { ...m, quiet: null };
        const expected = matchData(data, old, o);
        assertEquals(matchData(data, m, o), expected);
        assertEquals(matchBytes(chunked(data, size), m, o, () => false), expected);
        assertEquals(matchBytes(chunked(data, size), m, o, () => false, data.length), expected);
      },
    ),
    { numRuns: 150 },
  );
});

Deno.test("a file that holds the needle once is decoded around that line, not whole", () => {
  const filler = "const value = compute(input); // some ordinary line of code\r\n".repeat(40_000);
  const data = enc.encode(filler + "here is the needle\n" + filler);
  const m = compileSearchPattern("needle", false).matchers();
  let decoded = 0;
  const counting = {
    decode(bytes: Uint8Array) {
      decoded += bytes.length;
      return m.utf8.decode(bytes);
    },
  } as TextDecoder;
  const o = { context: 2, perFile: 10, maxChars: 400, room: 100 };
  const found = matchData(data, { ...m, utf8: counting }, o);
  assert(typeof found === "object");
  assertEquals(found.kept, [40_001]);
  assertEquals(found.shown.map((l) => l.n), [39_999, 40_000, 40_001, 40_002, 40_003]);
  assertEquals(found.lineCount, 80_001);
  // The whole file is 4.8 MB: the hit's line, its context, and the few lines kept as context
  // at each stretch passed over (every 128 KiB) are decoded (it was every byte).
  assert(decoded < data.length / 200, `decoded ${decoded} of ${data.length} bytes`);
});
