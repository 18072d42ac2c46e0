// The parallel scanner (real worker threads over LocalBackend on temp trees) gives exactly the
// plain engine's search results: encodings, binary files, fallbacks, big files streamed.

import { batchOfPaths } from "../../lib/core/search/path_batch.ts";
import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { tempDir, writeTree } from "../_harness.ts";
import { LocalBackend } from "../../lib/backends/local/local_backend.ts";
import { ParallelScanner } from "../../lib/backends/local/parallel_scan.ts";
import { Locations } from "../../lib/ops/location.ts";
import { createSession } from "../../lib/ops/session.ts";
import type { ViewArgs } from "../../lib/ops/view.ts";
import { viewText } from "./_view_text.ts";
import { compileSearchPattern } from "../../lib/core/search/search_pattern.ts";
import { matchBytes } from "../../lib/core/search/match_bytes.ts";
import { createFinder, finderModuleBytes } from "../../lib/core/search/simd_find.ts";
import { scanBatch } from "../../lib/backends/local/scan_worker.ts";
import * as nodeFs from "node:fs";
import { SEARCH_MAX_LINES } from "../../lib/ops/tree/search.ts";
import { createReadLimits } from "../../lib/ops/read_limits.ts";

/** One batch through the scanner: which files matched, were binary, or were left unchecked. */
async function scanOnce(
  scanner: ParallelScanner,
  paths: string[],
  source: string,
  regex = false,
  maxBytes = 1 << 30,
): Promise<{ found: number[]; binaries: number[]; unchecked: number[] }> {
  const search = compileSearchPattern(source, regex);
  const run = scanner.open({
    spec: search.spec,
    ...(search.literal ? { literal: search.literal } : {}),
    ...(search.anyOf ? { anyOf: search.anyOf } : {}),
    options: { context: 0, perFile: 40, maxChars: 400, room: SEARCH_MAX_LINES },
  }, maxBytes);
  const result = await run.scan(batchOfPaths(paths));
  return { ...result, found: result.found.map(([i]) => i) };
}

/** The same view in fresh sessions, with the plain engine and with the parallel scanner. */
async function viewBothWays(
  locations: Locations,
  root: string,
  args: ViewArgs,
  scanner: ParallelScanner,
): Promise<{ plain: string; fast: string }> {
  const plain = await viewText(locations, createSession(locations.localAt(root)), args);
  const fast = await viewText(locations, createSession(locations.localAt(root)), args, { scanner });
  assert(!scanner.inline, "the workers answered");
  return { plain, fast };
}

function utf16le(text: string): Uint8Array {
  const out = new Uint8Array(2 + text.length * 2);
  out.set([0xff, 0xfe]);
  for (let i = 0; i < text.length; i++) {
    out[2 + i * 2] = text.charCodeAt(i) & 0xff;
    out[3 + i * 2] = text.charCodeAt(i) >> 8;
  }
  return out;
}

Deno.test("the parallel scanner gives exactly the plain engine's search results", async () => {
  await using dir = await tempDir();
  const files: Record<string, string | Uint8Array> = {
    ".gitignore": "ignored/\n",
    "ignored/x.txt": "needle\n",
    "utf16.txt": utf16le("a\r\nneedle in utf16\r\n"),
    "bin.dat": new Uint8Array([110, 101, 101, 100, 108, 101, 0, 1]),
    "crlf.txt": "one\r\nneedle two\r\n",
  };
  // Enough files for several scanner batches, with matches spread over them.
  for (let i = 0; i < 900; i++) {
    files[`d${i % 7}/f${String(i).padStart(4, "0")}.txt`] = i % 97 === 0
      ? `line a\nthe needle ${i}\nline c\n`
      : `nothing ${i}\nneedl e\n`;
  }
  await writeTree(dir.path, files);
  const locations = new Locations(new LocalBackend());
  const scanner = new ParallelScanner(2);
  try {
    const cases: ViewArgs[] = [
      { path: ".", content: "needle", context: 1 },
      { path: ".", content: "needle", pattern: "d3/**" },
      { path: ".", content: "no-such-needle" },
      { path: ".", content: "nothing" }, // hits the output cap
      { path: "d1|crlf.txt", content: "needle" },
      { path: ".", content: "(?i)NEEDLE \\d+", regex: true },
      { path: ".", content: "ne+dle", regex: true, context: 2 },
      { path: ".", content: "(needle|nothing) \\d+$", regex: true },
      { path: ".", content: "two$", regex: true }, // CRLF: RE2's $ and the \r
      { path: ".", content: "\\Aneedle", regex: true },
      { path: ".", content: "(?i)(NEEDL E|line) [a-c]", regex: true },
      // Sets of literals, one of which every match holds: the other files are misses on bytes.
      { path: ".", content: "needle|utf16|two", regex: true, context: 1 },
      { path: ".", content: "(?i)(the NEEDLE|line c)", regex: true },
    ];
    for (const args of cases) {
      const plainSession = createSession(locations.localAt(dir.path));
      const fastSession = createSession(locations.localAt(dir.path));
      const plain = await viewText(locations, plainSession, args);
      const fast = await viewText(locations, fastSession, args, { scanner });
      assertEquals(fast, plain, JSON.stringify(args));
    }
    const all = await viewText(locations, createSession(locations.localAt(dir.path)), {
      path: ".",
      content: "needle",
    }, { scanner });
    assertStringIncludes(all, "utf16.txt (line 2)");
    assertStringIncludes(all, "1 binary file skipped");
    assert(!all.includes("ignored/"));
  } finally {
    await scanner.close();
  }
});

Deno.test("a non-ASCII search finds its text in a Latin-1 file, with and without the scanner", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, {
    // Invalid UTF-8, so read as Latin-1: "café" is the bytes 63 61 66 E9.
    "latin1.txt": new Uint8Array([...new TextEncoder().encode("x\ncaf"), 0xe9, 0x0a]),
    "utf8.txt": "un café\n",
    "plain.txt": "cafe\n",
  });
  const locations = new Locations(new LocalBackend());
  const scanner = new ParallelScanner(2);
  try {
    for (
      const args of [
        { path: ".", content: "café" },
        { path: ".", content: "é" },
        { path: ".", content: "caf[é]", regex: true },
        { path: ".", content: "é$", regex: true },
        { path: ".", content: "(café|naïve)", regex: true },
      ] as ViewArgs[]
    ) {
      const { plain, fast } = await viewBothWays(locations, dir.path, args, scanner);
      assertEquals(fast, plain, JSON.stringify(args));
      assertStringIncludes(plain, "latin1.txt (line 2)\n2:", JSON.stringify(args));
      assertStringIncludes(plain, "|café", JSON.stringify(args));
      assertStringIncludes(plain, "utf8.txt (line 1)", JSON.stringify(args));
      assert(!plain.includes("plain.txt"), JSON.stringify(args));
    }
  } finally {
    await scanner.close();
  }
});

Deno.test("the scanner falls back to this thread when workers cannot start or fail", async () => {
  await using dir = await tempDir();
  const files: Record<string, string> = {};
  for (let i = 0; i < 20; i++) files[`f${i}.txt`] = i % 3 === 0 ? "a needle\n" : "hay\n";
  await writeTree(dir.path, files);
  const paths = Object.keys(files).map((f) => `${dir.path}/${f}`);
  const expected = {
    found: paths.map((_, i) => i).filter((i) => i % 3 === 0),
    binaries: [],
    unchecked: [],
  };
  const real = globalThis.Worker;
  for (const mode of ["throws", "errors"]) {
    class BrokenWorker {
      onmessage: unknown = null;
      onerror: ((e: { preventDefault(): void }) => void) | null = null;
      constructor() {
        if (mode === "throws") throw new Error("workers are not available");
        // Starts, then fails before answering (e.g. its code does not load).
        queueMicrotask(() => this.onerror?.({ preventDefault() {} }));
      }
      postMessage() {}
      terminate() {}
    }
    // deno-lint-ignore no-explicit-any
    (globalThis as any).Worker = BrokenWorker;
    const scanner = new ParallelScanner(2);
    try {
      assertEquals(await scanOnce(scanner, paths, "needle"), expected, mode);
      assertEquals(await scanOnce(scanner, paths, "needle"), expected, `${mode}, again`);
      assert(scanner.inline);
    } finally {
      globalThis.Worker = real;
      await scanner.close();
    }
  }
});

Deno.test("matchBytes calls a file with a NUL in its first 8 KiB binary before reading on or decoding", () => {
  const search = compileSearchPattern("needle", false);
  const o = { context: 0, perFile: 40, maxChars: 400, room: 400 };
  const enc = new TextEncoder();
  const read = (data: Uint8Array) => {
    let furthest = 0;
    const scan = matchBytes(
      (position) => {
        const chunk = data.subarray(position, position + 4096);
        furthest = Math.max(furthest, position + chunk.length);
        return chunk;
      },
      search.matchers(),
      o,
      () => false,
    );
    return { scan, furthest };
  };
  const binary = new Uint8Array([...enc.encode("needle"), 0, ...new Uint8Array(100_000)]);
  assertEquals(read(binary), { scan: "binary", furthest: 12288 });
  assertEquals(read(new Uint8Array([0, 1, 2])).scan, "binary"); // no needle: still binary
  // A NUL past the first 8 KiB does not make a file binary, and UTF-16 (byte order mark) is text.
  const lateNul = new Uint8Array([...enc.encode("needle\n"), ...new Uint8Array(9000).fill(97), 0]);
  assertEquals((read(lateNul).scan as { kept: number[] }).kept, [1]);
  assertEquals((read(utf16le("a needle\n")).scan as { kept: number[] }).kept, [1]);
});

Deno.test("both engines skip every binary file, matching or not, and still search UTF-16 and late-NUL files", async () => {
  await using dir = await tempDir();
  const enc = new TextEncoder();
  const late = new Uint8Array(10_000).fill(97);
  late.set(enc.encode("needle"), 9000);
  await writeTree(dir.path, {
    "bin_match.dat": new Uint8Array([0, ...late]), // NUL first, needle after 8 KiB
    "bin_hay.dat": new Uint8Array([104, 97, 121, 0, 1, 2]),
    "late_nul.txt": new Uint8Array([
      ...enc.encode("a needle\n"),
      ...new Uint8Array(9000).fill(98),
      0,
    ]),
    "utf16.txt": utf16le("x\r\nneedle in utf16\r\n"),
    "plain.txt": "no match here\n",
  });
  const locations = new Locations(new LocalBackend());
  const scanner = new ParallelScanner(2);
  try {
    for (const args of [{ path: ".", content: "needle" }, { path: ".", content: "absent" }]) {
      const { plain, fast } = await viewBothWays(locations, dir.path, args, scanner);
      assertEquals(fast, plain, JSON.stringify(args));
      assertStringIncludes(plain, "2 binary files skipped");
    }
    const found = await viewText(locations, createSession(locations.localAt(dir.path)), {
      path: ".",
      content: "needle",
    }, { scanner });
    assertStringIncludes(found, "late_nul.txt (line 1)");
    assertStringIncludes(found, "utf16.txt (line 2)");
    const paths = ["bin_match.dat", "bin_hay.dat", "late_nul.txt", "utf16.txt", "plain.txt"]
      .map((f) => `${dir.path}/${f}`);
    assertEquals(await scanOnce(scanner, paths, "needle"), {
      found: [2, 3],
      binaries: [0, 1],
      unchecked: [],
    });
  } finally {
    await scanner.close();
  }
});

Deno.test("scanner batches and candidate reads take from the process-wide read budget and give it all back", async () => {
  await using dir = await tempDir();
  const tree: Record<string, string> = {};
  for (let i = 0; i < 600; i++) tree[`d${i % 7}/f${i}.txt`] = i % 50 === 0 ? "needle\n" : "hay\n";
  await writeTree(dir.path, tree);
  const locations = new Locations(new LocalBackend());
  const scanner = new ParallelScanner(2);
  try {
    const reads = createReadLimits({ budgetBytes: 4096 });
    const releaseAll = await reads.budget.take(4096);
    let settled = false;
    const search = viewText(
      locations,
      createSession(locations.localAt(dir.path)),
      { path: ".", content: "needle" },
      { scanner, reads },
    ).finally(() => settled = true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assertEquals(settled, false);
    releaseAll();
    assertStringIncludes(await search, "12 matching lines in 12 files");
    assertEquals(reads.budget.inUse, 0);
  } finally {
    await scanner.close();
  }
});

Deno.test("both engines agree on files past the first 64 KiB read, over the size limit, empty or binary", async () => {
  await using dir = await tempDir();
  const enc = new TextEncoder();
  const big = (size: number, at: number, fill = 97) => {
    const bytes = new Uint8Array(size).fill(fill);
    for (let i = 99; i < size; i += 100) bytes[i] = 10;
    if (at >= 0) bytes.set(enc.encode("needle"), at);
    return bytes;
  };
  const binaryBig = big(200_000, 150_000);
  binaryBig[10] = 0;
  await writeTree(dir.path, {
    "a_exact_chunk.txt": big(65_536, 65_530), // the needle ends at the very last byte
    "b_straddles.txt": big(140_000, 65_533), // across the first read's end
    "c_late.txt": big(900_000, 899_000), // several reads and a buffer that grows
    "d_over_limit.txt": big(2_000_000, 100),
    "e_binary_over_limit.dat": (() => {
      const b = big(2_000_000, 50);
      b[0] = 0;
      return b;
    })(),
    "f_binary_big.dat": binaryBig,
    "g_empty.txt": "",
    "h_small.txt": "a needle\n",
    "i_no_match.txt": big(300_000, -1),
  });
  const locations = new Locations(new LocalBackend());
  const scanner = new ParallelScanner(2);
  try {
    const reads = createReadLimits({ maxFileBytes: 1_000_000 });
    for (const content of ["needle", "absent", "aaaaneedleaaaa"]) {
      const args = { path: ".", content };
      const plain = await viewText(locations, createSession(locations.localAt(dir.path)), args, {
        reads,
      });
      const fast = await viewText(locations, createSession(locations.localAt(dir.path)), args, {
        scanner,
        reads,
      });
      assertEquals(fast, plain, content);
      assertStringIncludes(plain, "1 binary file skipped", content);
      assertStringIncludes(plain, "2 files over", content);
    }
    const found = await viewText(locations, createSession(locations.localAt(dir.path)), {
      path: ".",
      content: "needle",
    }, { scanner, reads });
    for (const name of ["a_exact_chunk.txt", "b_straddles.txt", "c_late.txt", "h_small.txt"]) {
      assertStringIncludes(found, `${name} (line`);
    }
  } finally {
    await scanner.close();
  }
});

Deno.test("the scanner's workers run a regex's whole-text prefilter, on V8 and on re2js alike", async () => {
  await using dir = await tempDir();
  const files: Record<string, string> = {};
  for (let i = 0; i < 30; i++) {
    files[`f${i}.txt`] = i % 5 === 0 ? `x\nid-${i}-end\ny\n` : i % 5 === 1 ? `id-${i}\n` : "hay\n";
  }
  await writeTree(dir.path, files);
  const paths = Object.keys(files).map((f) => `${dir.path}/${f}`);
  const expected = paths.map((_, i) => i).filter((i) => i % 5 === 0);
  const scanner = new ParallelScanner(2);
  try {
    // No repetition (V8), repetition (re2js without V8's linear engine), case folding.
    for (const source of ["id-[0-9][0-9]?-end", "id-\\d+-end$", "(?i)ID-\\d+-END"]) {
      const result = await scanOnce(scanner, paths, source, true);
      assertEquals(result, { found: expected, binaries: [], unchecked: [] }, source);
    }
    assert(!scanner.inline);
  } finally {
    await scanner.close();
  }
});

Deno.test("big files stream through the workers' bounded buffer: a needle across any seam is found, a flood of big matches is right", async () => {
  await using dir = await tempDir();
  const enc = new TextEncoder();
  const MiB = 1024 * 1024;
  const W = MiB + 65536;
  const big = (size: number, needles: number[]) => {
    const bytes = new Uint8Array(size).fill(97);
    for (let i = 99; i < size; i += 100) bytes[i] = 10;
    for (const at of needles) bytes.set(enc.encode("needle-42"), at);
    return bytes;
  };
  const files: Record<string, Uint8Array> = {
    // A worker holds at most W bytes of a file, and keeps the needle's length less one byte
    // from each window for the next: needles across the first two seams and at the end.
    "a_first_seam.txt": big(3 * MiB, [W - 4]),
    "b_second_seam.txt": big(3 * MiB, [2 * W - 8 - 3]),
    "c_last_byte.txt": big(3 * MiB + 8, [3 * MiB - 2]), // one byte (an "a") after it
    "d_absent.txt": big(3 * MiB, []),
    "e_start.txt": big(2 * MiB, [0]),
  };
  // A flood: many big files that all match, late, for a regex with a literal and one without.
  for (let i = 0; i < 24; i++) files[`flood/f${i}.txt`] = big(2 * MiB + i * 4099, [2 * MiB - 40]);
  await writeTree(dir.path, files);
  const names = Object.keys(files);
  const paths = names.map((f) => `${dir.path}/${f}`);
  const scanner = new ParallelScanner(2);
  try {
    const hits = await scanOnce(scanner, paths, "needle-42");
    assertEquals(
      hits.found.map((i) => names[i]),
      names.filter((n) => n !== "d_absent.txt"),
    );
    const locations = new Locations(new LocalBackend());
    const reads = createReadLimits({ maxFileBytes: 4 * MiB });
    for (
      const args of [
        { path: ".", content: "needle-42" },
        { path: ".", content: "needle-\\d+a", regex: true },
        { path: ".", content: "[ln]e{2}dle-4[0-9]", regex: true },
        // A set: the longest needle's length less one is kept at each seam.
        { path: ".", content: "needle-42|absent-needle-x", regex: true },
      ] as ViewArgs[]
    ) {
      const plain = await viewText(locations, createSession(locations.localAt(dir.path)), args, {
        reads,
      });
      const fast = await viewText(locations, createSession(locations.localAt(dir.path)), args, {
        scanner,
        reads,
      });
      assertEquals(fast, plain, JSON.stringify(args));
      for (const name of ["a_first_seam", "b_second_seam", "c_last_byte", "e_start", "flood/f0"]) {
        assertStringIncludes(plain, `${name}.txt (line`, JSON.stringify(args));
      }
    }
  } finally {
    await scanner.close();
  }
});

Deno.test("a worker rules out a file holding none of a regex's alternatives on its bytes, never matching it", async () => {
  await using dir = await tempDir();
  const files: Record<string, string> = {};
  for (let i = 0; i < 20; i++) {
    files[`f${i}.txt`] = i % 4 === 0 ? `x\n// FIXME: ${i}\n` : `TODO later ${i}\nFIXME\n`;
  }
  // Over 1 MiB: streamed, the alternative across the first window's seam.
  files["big.txt"] = "a".repeat(1024 * 1024 + 65536 - 3) + "XXX: end\n";
  await writeTree(dir.path, files);
  const names = Object.keys(files);
  const paths = names.map((f) => `${dir.path}/${f}`);
  const search = compileSearchPattern("(TODO|FIXME|XXX):", true);
  const matched: number[] = [];
  const counting: typeof matchBytes = (readAt, ...rest) => {
    matched.push(1);
    return matchBytes(readAt, ...rest);
  };
  const result = scanBatch(
    batchOfPaths(paths),
    {
      spec: search.spec,
      ...(search.anyOf ? { anyOf: search.anyOf } : {}),
      options: { context: 0, perFile: 40, maxChars: 400, room: 400 },
    },
    search.matchers(),
    createFinder(finderModuleBytes()),
    1 << 30,
    nodeFs,
    new Int32Array(1),
    counting,
  );
  const expected = names.filter((n, i) => n === "big.txt" || i % 4 === 0);
  assertEquals(result.found.map(([i]) => names[i]), expected);
  // Only the files holding one of them were decoded and matched.
  assertEquals(matched.length, expected.length);
});
