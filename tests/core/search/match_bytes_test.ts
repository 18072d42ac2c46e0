// matchBytes reads a file chunk by chunk; whatever the chunk sizes, it must find what decoding
// the whole file and testing every line finds (the engine it replaced, kept here as the oracle).

import fc from "fast-check";
import { assert, assertEquals } from "../../_assert.ts";
import {
  compileSearchPattern,
  type SearchPattern,
} from "../../../lib/core/search/search_pattern.ts";
import {
  matchBytes,
  matchData,
  pieceEnd,
  type ReadAt,
} from "../../../lib/core/search/match_bytes.ts";
import {
  type FileMatches,
  type FileScan,
  fingerprint,
  type MatchOptions,
} from "../../../lib/core/search/line_matcher.ts";
import { decodeText } from "../../../lib/core/text/text_file.ts";
import { linePrint } from "../../../lib/core/edit/shown_lines.ts";
import { windowAround } from "../../../lib/core/search/line_window.ts";
import { createFinder, finderModuleBytes } from "../../../lib/core/search/simd_find.ts";
import { literalLines } from "../../../lib/backends/local/scan_worker.ts";
import { excerptWindow } from "../../../lib/core/search/line_window.ts";

const enc = new TextEncoder();

/** The file read `size` bytes at a time (a fresh copy each time, then overwritten: reuse). */
function chunked(data: Uint8Array, size: number): ReadAt {
  let last = new Uint8Array(0);
  return (position) => {
    last.fill(0xaa);
    last = data.slice(position, position + size);
    return last;
  };
}

const finder = createFinder(finderModuleBytes());

/**
 * The file in the SIMD finder's memory, read `size` bytes at a time, with the search's literal
 * (or its set of alternatives) counted on those bytes as a search worker does (scan_worker.ts
 * literalLines).
 */
function inFinder(data: Uint8Array, size: number, search: SearchPattern) {
  const buf = finder.room(data.length);
  buf.set(data);
  const readAt: ReadAt = (position) =>
    buf.subarray(position, Math.min(data.length, position + size));
  const literals = search.literal ? [search.literal] : search.anyOf;
  return { readAt, lines: literals ? literalLines(finder, literals) : undefined };
}

/** What the whole-file engine finds: decodeText, then every line through matchesLine. */
function oracle(data: Uint8Array, search: SearchPattern, o: MatchOptions): FileScan {
  if (data.length === 0) return "miss";
  const decoded = decodeText(data);
  if (decoded.kind === "binary") {
    if (decoded.reason === "contains NUL bytes" || decoded.reason.startsWith("UTF-16")) {
      return "binary";
    }
    // Invalid UTF-8 that is not read as Latin-1: binary when its Latin-1 reading matches.
    const body = decoded.reason.startsWith("UTF-8 byte order mark") ? data.subarray(3) : data;
    const latin1 = String.fromCharCode(...body);
    return latin1.split(/\r?\n/).some((l) => search.matchesLine(l)) ? "binary" : "miss";
  }
  const lines = decoded.doc.lines;
  const matches: number[] = [];
  lines.forEach((l, i) => search.matchesLine(l) && matches.push(i + 1));
  if (matches.length === 0) return "miss";
  const kept = matches.slice(0, o.perFile);
  const numbers = new Set<number>();
  for (const k of kept) {
    for (let n = Math.max(1, k - o.context); n <= Math.min(lines.length, k + o.context); n++) {
      numbers.add(n);
    }
  }
  const all = [...numbers].sort((a, b) => a - b);
  return {
    count: matches.length,
    kept,
    next: matches[o.perFile] ?? 0,
    lineCount: lines.length,
    shown: all.slice(0, o.room).map((n) => ({ n, text: lines[n - 1]! })),
    truncated: all.length > o.room,
  };
}

/** Shown lines with long ones checked against the whole line and put back whole. */
function comparable(
  found: FileScan,
  whole: FileScan,
  search: SearchPattern,
  o: MatchOptions,
): FileScan {
  if (typeof found !== "object" || typeof whole !== "object") return found;
  const full = new Map(whole.shown.map((l) => [l.n, l.text]));
  return {
    ...found,
    shown: found.shown.map((l) => {
      if (!l.long) return l;
      const text = full.get(l.n)!;
      assertEquals(l.long.length, text.length);
      assertEquals(l.long.print, linePrint(text));
      const [from, to] = (found.kept.includes(l.n) ? search.findInLine(text) : null) ?? [0, 0];
      assertEquals([l.long.from, l.long.to], [from, to]);
      assertEquals(
        excerptWindow({ ...l.long, text: l.text }, from, to, o.maxChars),
        windowAround(text, from, to, o.maxChars),
      );
      return { n: l.n, text };
    }),
  };
}

const piece = fc.constantFrom(
  "a",
  "b",
  "ab",
  "x",
  "é",
  "😀",
  "12",
  "\r",
  "\n",
  "\r\n",
  "\n\n",
  " ",
  "A",
  "aXb",
);
const fileArb = fc.oneof(
  { weight: 6, arbitrary: fc.array(piece, { maxLength: 60 }).map((p) => enc.encode(p.join(""))) },
  // Latin-1 (invalid UTF-8), a UTF-8 BOM, UTF-16 with a BOM, a NUL, a long line.
  {
    weight: 1,
    arbitrary: fc.array(fc.constantFrom(0x61, 0x62, 0x0a, 0xe9, 0x0d, 0x01, 0x00), {
      maxLength: 40,
    }).map((b) => Uint8Array.from(b)),
  },
  {
    weight: 1,
    arbitrary: fc.array(piece, { maxLength: 30 }).map((p) =>
      Uint8Array.from([0xef, 0xbb, 0xbf, ...enc.encode(p.join(""))])
    ),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.array(piece, { maxLength: 30 }), fc.boolean(), fc.boolean()).map(
      ([p, be, odd]) => {
        const text = p.join("");
        const out = [be ? 0xfe : 0xff, be ? 0xff : 0xfe];
        for (let i = 0; i < text.length; i++) {
          const c = text.charCodeAt(i);
          out.push(...(be ? [c >> 8, c & 0xff] : [c & 0xff, c >> 8]));
        }
        if (odd) out.push(0x61);
        return Uint8Array.from(out);
      },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.nat(30), fc.nat(30)).map(([a, b]) =>
      enc.encode(`x\n${"a".repeat(a * 7)}ab${"b".repeat(b * 7)}\n😀${"y".repeat(b * 5)}ab\n`)
    ),
  },
);
const patterns = [
  ["ab", false],
  ["é", false],
  ["a.b", true],
  ["(?i)AB", true],
  ["b$", true],
  ["^a", true],
  ["\\d{2}", true],
  ["a\\z", true],
  ["(?<!a)b", true],
  ["x|é", true],
  // Alternations whose matches each hold one of a set of literals (literal_set.ts).
  ["ab|aXb", true],
  ["(?i)(ab|xa)", true],
  ["(12|😀)x?|a\\.b", true],
  ["(é|x)(a|b)", true],
  ["", true], // replaced below: any line
] as const;

Deno.test("matchBytes finds what decoding the whole file and testing every line finds, for any chunking", () => {
  fc.assert(
    fc.property(
      fileArb,
      fc.constantFrom(...patterns.slice(0, -1)),
      fc.integer({ min: 1, max: 40 }),
      fc.record({
        context: fc.nat(3),
        perFile: fc.integer({ min: 1, max: 4 }),
        maxChars: fc.constantFrom(5, 40, 400),
        room: fc.integer({ min: 1, max: 30 }),
      }),
      (data, [source, regex], size, o) => {
        const search = compileSearchPattern(source, regex);
        const m = search.matchers();
        const expected = oracle(data, search, o);
        const whole = oracle(data, search, { ...o, room: 1 << 30 });
        const found = matchBytes(chunked(data, size), m, o, () => false);
        assertEquals(comparable(found, whole, search, o), expected);
        const sized = matchBytes(chunked(data, size), m, o, () => false, data.length);
        assertEquals(comparable(sized, whole, search, o), expected);
        assertEquals(comparable(matchData(data, m, o), whole, search, o), expected);
        const counted = inFinder(data, size, search);
        const onBytes = matchBytes(counted.readAt, m, o, () => false, data.length, counted.lines);
        assertEquals(comparable(onBytes, whole, search, o), expected);
      },
    ),
    { numRuns: 3000 },
  );
});

// A search worker counts the lines before its literal's next occurrence on the bytes (ASCII, or
// checked valid UTF-8), never decoding them: over many pieces of short lines, non-ASCII ones,
// Latin-1, CRLF, long lines and every context, the answers stay the oracle's.
Deno.test("lines counted on the bytes: every answer is the oracle's, over many pieces", () => {
  const line = fc.oneof(
    { weight: 20, arbitrary: fc.constantFrom("", "x", "hay hay", "x12", "zz\r", "-- b --") },
    { weight: 2, arbitrary: fc.constantFrom("ab", "aXb", "é ab", "b", "xab\r") },
    { weight: 1, arbitrary: fc.constantFrom("é", "😀 x", "naïve") },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.integer({ min: 30_000, max: 70_000 }), fc.boolean()).map((
        [n, hit],
      ) => "y".repeat(n) + (hit ? "ab" : "")),
    },
  );
  const file = fc.tuple(
    fc.array(line, { minLength: 1, maxLength: 9000, size: "max" }),
    fc.constantFrom("\n", "\r\n"),
    fc.boolean(),
    fc.integer({ min: 0, max: 5 }),
  ).map(([lines, eol, ending, kind]) => {
    const text = lines.join(eol) + (ending ? eol : "");
    // One file in six is Latin-1 (invalid UTF-8: read as Latin-1), one has a UTF-8 BOM.
    if (kind === 0) {
      return Uint8Array.from([...text.replace(/😀/g, "e")].map((c) => c.charCodeAt(0) & 0xff));
    }
    return kind === 1 ? Uint8Array.from([0xef, 0xbb, 0xbf, ...enc.encode(text)]) : enc.encode(text);
  });
  // Literals, and regexes with a literal every match holds (the workers count lines for both).
  const sources = [
    ["ab", false],
    ["é ab", false],
    ["ab.?b", true],
    ["aXb$", true],
    // Sets of literals: the lines before the first of any of them are counted.
    ["ab|x12", true],
    ["(é ab|naïve)", true],
    ["(?i)(AB|HAY H)", true],
  ] as const;
  let ascii = 0;
  let nonAscii = 0;
  fc.assert(
    fc.property(
      file,
      fc.constantFrom(...sources),
      fc.constantFrom(4096, 65536, 1 << 20),
      fc.record({
        context: fc.nat(3),
        perFile: fc.integer({ min: 1, max: 50 }),
        maxChars: fc.constantFrom(40, 400),
        room: fc.integer({ min: 1, max: 400 }),
      }),
      (data, [source, regex], size, o) => {
        const search = compileSearchPattern(source, regex);
        const expected = oracle(data, search, o);
        const whole = oracle(data, search, { ...o, room: 1 << 30 });
        const counted = inFinder(data, size, search);
        const m = search.matchers();
        const lines = counted.lines;
        const tallied = lines && {
          indexIn: lines.indexIn,
          lines: (b: Uint8Array, from: number, to: number) => {
            const n = lines.lines(b, from, to);
            if (n !== null) n < 0 ? nonAscii++ : ascii++;
            return n;
          },
        };
        const found = matchBytes(counted.readAt, m, o, () => false, data.length, tallied);
        assertEquals(comparable(found, whole, search, o), expected);
      },
    ),
    { numRuns: 60 },
  );
  // The runs did count lines on the bytes, ASCII and not.
  assert(ascii > 300 && nonAscii > 100, `${ascii} ASCII and ${nonAscii} other ranges counted`);
});

Deno.test("a literal search with the literal's finder decodes only the lines near its matches", () => {
  // 2 MB of short ASCII lines, a few holding the needle, one non-ASCII line among them.
  const lines = Array.from(
    { length: 100_000 },
    (_, i) =>
      i % 25_000 === 7 ? `call XMLHttpRequest ${i}` : i === 60_000 ? "naïve" : `line ${i} of hay`,
  );
  const data = enc.encode(lines.join("\n") + "\n");
  const search = compileSearchPattern("XMLHttpRequest", false);
  const m = search.matchers();
  let decoded = 0;
  const utf8 = m.utf8;
  m.utf8 = { decode: (b: Uint8Array) => (decoded += b.length, utf8.decode(b)) } as TextDecoder;
  const o = { context: 2, perFile: 40, maxChars: 400, room: 400 };
  const counted = inFinder(data, 1 << 20, search);
  const found = matchBytes(counted.readAt, m, o, () => false, data.length, counted.lines);
  assertEquals(found, oracle(data, search, o));
  // Each match's piece is decoded from its line's start on; the rest is counted on the bytes.
  assert(decoded < data.length / 10, `decoded ${decoded} of ${data.length} bytes`);
});

Deno.test("a regex's set of alternatives gates the lines counted on bytes: only lines near one are decoded", () => {
  const lines = Array.from(
    { length: 100_000 },
    (_, i) => i % 50_000 === 7 ? `// FIXME: ${i}` : i % 50_000 === 9 ? `x TODO: ${i}` : `TODO ${i}`,
  );
  const data = enc.encode(lines.join("\n") + "\n");
  const search = compileSearchPattern("(TODO|FIXME|XXX):", true);
  const m = search.matchers();
  let decoded = 0;
  const utf8 = m.utf8;
  m.utf8 = { decode: (b: Uint8Array) => (decoded += b.length, utf8.decode(b)) } as TextDecoder;
  const o = { context: 1, perFile: 40, maxChars: 400, room: 400 };
  const counted = inFinder(data, 1 << 20, search);
  const found = matchBytes(counted.readAt, m, o, () => false, data.length, counted.lines);
  assertEquals(found, oracle(data, search, o));
  assertEquals(typeof found === "object" && found.count, 4);
  // Each match's piece is decoded from its line on (lead-26 decoded every byte).
  assert(decoded < data.length / 4, `decoded ${decoded} of ${data.length} bytes`);
});

Deno.test("lines counted on the bytes are checked UTF-8 first: a Latin-1 file is still read as Latin-1", () => {
  // `é` as the one byte E9 in lines counted before the match: the file is not UTF-8, so the
  // needle "é ab" (C3 A9 in UTF-8) is matched in its Latin-1 reading, as the oracle does.
  const text = Array.from({ length: 20_000 }, (_, i) => i === 19_990 ? "x é ab" : `é ${i}`);
  const data = Uint8Array.from([...text.join("\n") + "\n"].map((c) => c.charCodeAt(0)));
  const search = compileSearchPattern("é ab", false);
  const o = { context: 0, perFile: 40, maxChars: 400, room: 400 };
  const counted = inFinder(data, 1 << 20, search);
  const found = matchBytes(
    counted.readAt,
    search.matchers(),
    o,
    () => false,
    data.length,
    counted.lines,
  );
  assertEquals(found, oracle(data, search, o));
  assertEquals(typeof found === "object" && found.kept, [19_991]);
});

Deno.test("fingerprint() is linePrint: FNV-1a over UTF-8, lone surrogates as U+FFFD", () => {
  fc.assert(
    fc.property(fc.string({ unit: "binary", maxLength: 40 }), (text) => {
      assertEquals(fingerprint(text), linePrint(text));
    }),
  );
  for (const text of ["", "a", "é", "😀", "\ud800", "x\udc00y", "\ud83d"]) {
    assertEquals(fingerprint(text), linePrint(text), JSON.stringify(text));
  }
});

Deno.test("matchBytes stops between chunks when told to, and reads a 20 MB file's last-line match a chunk at a time", () => {
  const size = 20_000_000;
  const data = new Uint8Array(size).fill(0x61);
  for (let i = 99; i < size; i += 100) data[i] = 10;
  data.set(enc.encode("needle"), size - 50);
  const search = compileSearchPattern("needle", false);
  const o = { context: 1, perFile: 40, maxChars: 400, room: 400 };
  let biggest = 0;
  let reads = 0;
  const readAt: ReadAt = (position) => {
    reads++;
    const chunk = data.subarray(position, position + 65536);
    biggest = Math.max(biggest, chunk.length);
    return chunk;
  };
  const found = matchBytes(readAt, search.matchers(), o, () => false) as FileMatches;
  assertEquals(found.kept, [size / 100]);
  assertEquals(found.lineCount, size / 100);
  assertEquals(found.shown.map((l) => l.n), [size / 100 - 1, size / 100]);
  assertEquals(biggest, 65536);
  assert(reads > 300, `${reads} reads`);
  let calls = 0;
  assertEquals(matchBytes(readAt, search.matchers(), o, () => ++calls > 3), "stopped");
});

Deno.test("matchBytes on files of many 64 Ki windows: the regex probe's windows miss no line", () => {
  const line = fc.oneof(
    {
      weight: 20,
      arbitrary: fc.string({ unit: fc.constantFrom("a", "b", " ", "x"), maxLength: 120 }),
    },
    { weight: 1, arbitrary: fc.constantFrom("12", "a1b", "ab\r", "b") },
    { weight: 1, arbitrary: fc.nat(90_000).map((n) => "x".repeat(n) + "b") },
  );
  fc.assert(
    fc.property(
      fc.array(line, { minLength: 500, maxLength: 2500 }),
      fc.constantFrom("\\d{2}", "^a\\d", "b$", "(?i)B\\z", "x{3}b$"),
      fc.constantFrom(1000, 65536, 1 << 20),
      (lines, source, size) => {
        const data = enc.encode(lines.join("\n"));
        const search = compileSearchPattern(source, true);
        const o = { context: 2, perFile: 40, maxChars: 400, room: 400 };
        const expected = oracle(data, search, o);
        const whole = oracle(data, search, { ...o, room: 1 << 30 });
        const found = matchBytes(chunked(data, size), search.matchers(), o, () => false);
        assertEquals(comparable(found, whole, search, o), expected);
      },
    ),
    { numRuns: 10 },
  );
});

Deno.test("pieceEnd cuts UTF-8 before a character: the pieces decode to the whole, valid or not alike", () => {
  const strict = new TextDecoder("utf-8", { fatal: true });
  const valid = (b: Uint8Array) => {
    try {
      strict.decode(b);
      return true;
    } catch {
      return false;
    }
  };
  const unit = fc.constantFrom(
    [0x61],
    [0x0a],
    [0xc3, 0xa9], // é
    [0xe2, 0x82, 0xac], // €
    [0xf0, 0x9f, 0x98, 0x80], // 😀
    [0x80], // a stray continuation byte
    [0xe2, 0x82], // a character cut short
    [0xff],
  );
  fc.assert(
    fc.property(
      fc.array(unit, { maxLength: 60 }),
      fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1 }),
      (units, sizes) => {
        const bytes = Uint8Array.from(units.flat());
        const pieces: Uint8Array[] = [];
        for (let at = 0, i = 0; at < bytes.length; i++) {
          let to = pieceEnd(bytes, at, at + sizes[i % sizes.length]!, "utf-8");
          if (to === at) to = bytes.length; // as scanDecoded: read on (here: to the end)
          pieces.push(bytes.subarray(at, to));
          at = to;
        }
        assertEquals(pieces.every(valid), valid(bytes));
        if (valid(bytes)) {
          assertEquals(pieces.map((p) => strict.decode(p)).join(""), strict.decode(bytes));
        }
      },
    ),
    { numRuns: 2000 },
  );
});

Deno.test("a line longer than the probe's window is probed in overlapping windows: a match at any seam is found", () => {
  const o = { context: 0, perFile: 40, maxChars: 40, room: 40 };
  for (const [source, needle] of [["\\d{2}", "12"], ["\\b[qz]{3}\\b", " qzq "]] as const) {
    const search = compileSearchPattern(source, true);
    assert(search.spec.probeWidth !== undefined, source);
    const step = 65536 - (search.spec.probeWidth! + 2);
    for (const seam of [65536, step + 65536, 2 * step + 65536, step, 2 * step]) {
      for (let at = seam - needle.length - 2; at <= seam + 2; at++) {
        const line = "x".repeat(at) + needle + "x".repeat(200_000 - at);
        const found = matchData(enc.encode(`a\n${line}\nb\n`), search.matchers(), o);
        assertEquals(typeof found === "object" ? found.kept : found, [2], `${source} at ${at}`);
      }
    }
    const none = matchData(enc.encode(`a\n${"x".repeat(300_000)}\n`), search.matchers(), o);
    assertEquals(none, "miss");
  }
});

// Lines longer than one 32 KiB piece that cannot match are never decoded whole; context shows
// them rebuilt from their bytes. Seams between pieces, CRLF, Latin-1, multi-byte characters,
// context before and after, and long lines at the file's end, against the whole-file oracle.
Deno.test("long lines: what no piece can match is never built, and every answer is the oracle's", () => {
  const filler = fc.constantFrom("x", "xy ", "é", "😀", "\r", "-");
  const longLine = fc.tuple(
    fc.integer({ min: 33_000, max: 140_000 }),
    filler,
    fc.option(fc.constantFrom("ab", "AB", "12", "aXb", "b"), { nil: undefined }),
    fc.double({ min: 0, max: 1, noNaN: true }),
  ).map(([length, unit, inner, where]) => {
    const body = unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
    if (inner === undefined) return body;
    const at = Math.floor(where * body.length);
    return body.slice(0, at) + inner + body.slice(at);
  });
  const shortLine = fc.constantFrom("", "a", "ab", "x12", "b", "zz\r", "aXb", "é");
  const file = fc.tuple(
    fc.array(fc.oneof({ weight: 3, arbitrary: shortLine }, { weight: 1, arbitrary: longLine }), {
      minLength: 1,
      maxLength: 9,
    }),
    fc.constantFrom("\n", "\r\n"),
    fc.boolean(),
    fc.boolean(),
  ).map(([lines, eol, ending, latin1]) => {
    const text = lines.join(eol) + (ending ? eol : "");
    // Latin-1: not valid UTF-8, so read as Latin-1 (é is one byte).
    return latin1
      ? Uint8Array.from([...text.replace(/😀/g, "e")].map((c) => c.charCodeAt(0) & 0xff))
      : enc.encode(text);
  });
  const sources = [
    ["ab", false],
    ["(?i)AB", true],
    ["a.b", true],
    ["\\d{2}", true],
    ["b$", true],
    ["^a", true],
    ["é", false],
  ] as const;
  fc.assert(
    fc.property(
      file,
      fc.constantFrom(...sources),
      fc.constantFrom(1000, 65536, 1 << 20),
      fc.record({
        context: fc.nat(3),
        perFile: fc.integer({ min: 1, max: 4 }),
        maxChars: fc.constantFrom(40, 400),
        room: fc.integer({ min: 1, max: 30 }),
      }),
      (data, [source, regex], size, o) => {
        const search = compileSearchPattern(source, regex);
        const expected = oracle(data, search, o);
        const whole = oracle(data, search, { ...o, room: 1 << 30 });
        const found = matchBytes(chunked(data, size), search.matchers(), o, () => false);
        assertEquals(comparable(found, whole, search, o), expected);
      },
    ),
    { numRuns: 150 },
  );
});

Deno.test("long lines: a megabyte line without the needle reaches the needle search a piece at a time", () => {
  const search = compileSearchPattern("needle", false);
  const m = search.matchers();
  let longest = 0;
  const needle = m.needle!;
  const spied = {
    ...m,
    needle: (text: string, from: number) => {
      longest = Math.max(longest, text.length);
      return needle(text, from);
    },
  };
  const o = { context: 2, perFile: 40, maxChars: 400, room: 400 };
  const line = "x".repeat(1_000_000);
  // A literal search's match in a long line is found and shown from its pieces too.
  const hit = "y".repeat(700_000) + "needle" + "z".repeat(300_000);
  const data = enc.encode(`a\n${line}\nneedle\n${line}\nb\n${hit}\n`);
  const found = matchData(data, spied, o) as FileMatches;
  assertEquals(found.kept, [3, 6]);
  assertEquals(found.lineCount, 6);
  assertEquals(found.shown.map((l) => [l.n, l.long?.length ?? l.text.length]), [
    [1, 1],
    [2, 1_000_000],
    [3, 6],
    [4, 1_000_000],
    [5, 1],
    [6, 1_000_006],
  ]);
  assertEquals(found.shown[1]!.long!.print, linePrint(line));
  const shown = found.shown[5]!.long!;
  assertEquals([shown.from, shown.to, shown.print], [700_000, 700_006, linePrint(hit)]);
  assertEquals(
    excerptWindow({ ...shown, text: found.shown[5]!.text }, 700_000, 700_006, o.maxChars),
    windowAround(hit, 700_000, 700_006, o.maxChars),
  );
  assert(longest < 70_000, `the needle search saw ${longest} characters at once`);
});

Deno.test("long lines: a needle or a probe's match across a seam between two pieces is found", () => {
  const o = { context: 1, perFile: 40, maxChars: 40, room: 40 };
  const cases = [
    ["needle", false, "needle"],
    ["(?i)NEEDLE", true, "nEeDlE"],
    ["\\d{2}", true, "12"],
    ["\\b[qz]{3}\\b", true, " qzq "],
  ] as const;
  for (const [source, regex, inner] of cases) {
    const search = compileSearchPattern(source, regex);
    // The line starts at byte 2; pieces are 32 KiB from the file's start.
    for (const seam of [32768 - 2, 2 * 32768 - 2]) {
      for (let at = seam - inner.length - 2; at <= seam + 2; at++) {
        const line = "x".repeat(at) + inner + "x".repeat(100_000 - at);
        for (const size of [65536, 1 << 20]) {
          const data = enc.encode(`a\n${line}\nb\n`);
          const found = matchBytes(chunked(data, size), search.matchers(), o, () => false);
          assertEquals(typeof found === "object" ? found.kept : found, [2], `${source} at ${at}`);
          const long = (found as FileMatches).shown[1]!.long!;
          const [from, to] = search.findInLine(line)!;
          assertEquals([long.from, long.to, long.length], [from, to, line.length]);
        }
      }
    }
  }
});
