// Search matches files where their bytes are: in the parallel scanner's workers, a mebibyte at a
// time for big files, or on the main thread for other backends. Both must print exactly what
// the other prints, across the workers' chunk boundaries, for long lines, UTF-16, re2js
// patterns, and when the output cap or a cancellation stops the search early.

import { batchOfPaths } from "../../lib/core/search/path_batch.ts";
import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { tempDir, writeTree } from "../_harness.ts";
import { LocalBackend } from "../../lib/backends/local/local_backend.ts";
import { ParallelScanner } from "../../lib/backends/local/parallel_scan.ts";
import { formatLineId } from "../../lib/core/edit/line_id.ts";
import { compileSearchPattern } from "../../lib/core/search/search_pattern.ts";
import { Budget } from "../../lib/ops/budget.ts";
import { Locations } from "../../lib/ops/location.ts";
import { createReadLimits } from "../../lib/ops/read_limits.ts";
import type { ContentScanner } from "../../lib/ops/ports/worker_pool.ts";
import { SEARCH_MAX_LINES } from "../../lib/ops/tree/search.ts";
import { createSession } from "../../lib/ops/session.ts";
import type { ViewArgs } from "../../lib/ops/view.ts";
import { viewText } from "./_view_text.ts";

const MiB = 1024 * 1024;
const enc = new TextEncoder();

/** `size` bytes of 99-character lines of `a`, with `text` written at each offset given. */
function bigFile(size: number, at: Record<number, string>): Uint8Array {
  const bytes = new Uint8Array(size).fill(97);
  for (let i = 99; i < size; i += 100) bytes[i] = 10;
  for (const [offset, text] of Object.entries(at)) bytes.set(enc.encode(text), Number(offset));
  return bytes;
}

/** The same view with the plain engine and through the workers; they must print the same. */
async function bothWays(root: string, args: ViewArgs, maxFileBytes = 64 * MiB) {
  const locations = new Locations(new LocalBackend());
  const reads = createReadLimits({ maxFileBytes });
  const scanner = new ParallelScanner(2);
  try {
    const plain = await viewText(locations, createSession(locations.localAt(root)), args, {
      reads,
    });
    const fast = await viewText(locations, createSession(locations.localAt(root)), args, {
      scanner,
      reads,
    });
    assert(!scanner.inline, "the workers answered");
    assertEquals(fast, plain, JSON.stringify(args));
    return fast;
  } finally {
    await scanner.close();
  }
}

/** One batch on the scanner: the files found (by index), binary and left unchecked. */
async function scanBatch(paths: string[], source: string, regex: boolean, room = 400) {
  const scanner = new ParallelScanner(2);
  try {
    const search = compileSearchPattern(source, regex);
    const run = scanner.open({
      spec: search.spec,
      ...(search.literal ? { literal: search.literal } : {}),
      ...(search.anyOf ? { anyOf: search.anyOf } : {}),
      options: { context: 1, perFile: 40, maxChars: 400, room },
    }, 64 * MiB);
    const result = await run.scan(batchOfPaths(paths));
    assert(!scanner.inline, "the workers answered");
    return { ...result, found: result.found.map(([i, m]) => [i, m.kept] as const) };
  } finally {
    await scanner.close();
  }
}

Deno.test("a match on a line across the workers' 1 MiB chunk boundaries, with context across them", async () => {
  await using dir = await tempDir();
  // Lines start every 100 bytes; a worker decodes a big file a mebibyte at a time. The needle
  // sits on the lines that straddle the first and second boundary, the second one cut in two.
  const first = MiB - 20; // line 10486 runs from 1,048,500 to 1,048,599
  const second = 2 * MiB - 3; // "needle" from 2,097,149: across 2,097,152
  await writeTree(dir.path, {
    "big.txt": bigFile(3 * MiB, { [first]: "needle one", [second]: "needle" }),
  });
  const text = await bothWays(dir.path, { path: ".", content: "needle", context: 2 });
  const one = Math.floor(first / 100) + 1;
  const two = Math.floor(second / 100) + 1;
  assertStringIncludes(text, `2 matching lines in 1 file`);
  assertStringIncludes(text, `big.txt (lines ${one}, ${two})`);
  for (const n of [one - 2, one - 1, one, one + 1, one + 2, two - 2, two + 2]) {
    assertStringIncludes(text, `\n${n}:`);
  }
  // The same for a regex without a literal (the probe's windows) and one on re2js.
  await bothWays(dir.path, { path: ".", content: "ne{2}dle", regex: true, context: 3 });
  await bothWays(dir.path, { path: ".", content: "(?i)NEE+DLE", regex: true, context: 1 });
});

Deno.test("a 20 MB file with one match at the end is matched in a worker, a mebibyte at a time", async () => {
  await using dir = await tempDir();
  const size = 20_000_000;
  await writeTree(dir.path, { "huge.txt": bigFile(size, { [size - 50]: "needle" }) });
  const text = await bothWays(dir.path, { path: ".", content: "needle", context: 1 });
  assertStringIncludes(text, `huge.txt (line ${size / 100})\n${size / 100 - 1}:`);
  const batch = await scanBatch([`${dir.path}/huge.txt`], "needle", false);
  assertEquals(batch, { found: [[0, [size / 100]]], binaries: [], unchecked: [] });
  const regex = await scanBatch([`${dir.path}/huge.txt`], "ne{2}dle", true);
  assertEquals(regex.found, [[0, [size / 100]]]);
});

Deno.test("a re2js pattern is matched in the workers, not left to the main thread", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, {
    "a.txt": "x\nthe NEEEDLE here\ny\n",
    "b.txt": "nothing\n",
    "c.txt": "needle\n",
  });
  const search = compileSearchPattern("(?i)ne+dle", true);
  assertEquals(search.engine, "re2"); // tests run without V8's linear-engine flags
  const paths = ["a.txt", "b.txt", "c.txt"].map((f) => `${dir.path}/${f}`);
  const batch = await scanBatch(paths, "(?i)ne+dle", true);
  assertEquals(batch, { found: [[0, [2]], [2, [1]]], binaries: [], unchecked: [] });
  const text = await bothWays(dir.path, { path: ".", content: "(?i)ne+dle", regex: true });
  assertStringIncludes(text, "a.txt (line 2)\n2:");
});

Deno.test("UTF-16 files are matched in the workers too, a big one across chunks; an odd byte count is binary", async () => {
  await using dir = await tempDir();
  const utf16 = (text: string, le = true, extra: number[] = []) => {
    const out = new Uint8Array(2 + text.length * 2 + extra.length);
    out.set(le ? [0xff, 0xfe] : [0xfe, 0xff]);
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      out.set(le ? [c & 0xff, c >> 8] : [c >> 8, c & 0xff], 2 + i * 2);
    }
    out.set(extra, 2 + text.length * 2);
    return out;
  };
  const lines = Array.from({ length: 12_000 }, (_, i) => `line ${i + 1} ${"é".repeat(40)}`);
  lines[5_300] = "the needle in UTF-16 😀";
  lines[11_999] = "needle at the end";
  await writeTree(dir.path, {
    "big16.txt": utf16(lines.join("\r\n") + "\r\n"), // ~1.1 MB: more than one chunk
    "be.txt": utf16("a\nneedle BE\n", false),
    "odd.txt": utf16("needle\n", true, [0x61]),
  });
  const text = await bothWays(dir.path, { path: ".", content: "needle", context: 1 });
  assertStringIncludes(text, "big16.txt (lines 5301, 12000)\n5300:");
  assertStringIncludes(text, "|the needle in UTF-16 😀\n5302:");
  assertStringIncludes(text, "be.txt (line 2)");
  assertStringIncludes(text, "1 binary file skipped");
  await bothWays(dir.path, { path: ".", content: "ne+dle", regex: true });
});

Deno.test("a long line is cut around its match in the worker, with the whole line's id", async () => {
  await using dir = await tempDir();
  const long = "x".repeat(300_000) + "needle" + "y".repeat(300_000);
  await writeTree(dir.path, { "min.js": `a\n${long}\nb\n` });
  const text = await bothWays(dir.path, { path: ".", content: "needle", context: 1 });
  assertStringIncludes(text, `${formatLineId(2, long)}|…${"x".repeat(197)}needle`);
  assertStringIncludes(text, "[line cut: 600,006 characters; shown 299,804-300,203:");
  assert(text.length < 2000, `${text.length} characters`);
});

Deno.test("the output cap stops the workers: a batch with its lines shown leaves the rest unchecked", async () => {
  await using dir = await tempDir();
  const files: Record<string, string> = {};
  for (let i = 0; i < 300; i++) files[`f${String(i).padStart(3, "0")}.txt`] = "needle\n".repeat(5);
  await writeTree(dir.path, files);
  const paths = Object.keys(files).map((f) => `${dir.path}/${f}`);
  // 5 lines per file: the room for 400 lines is full after 80 files; the rest is not read.
  const batch = await scanBatch(paths.slice(0, 256), "needle", false, SEARCH_MAX_LINES);
  assertEquals(batch.found.length, 80);
  assertEquals(batch.unchecked, Array.from({ length: 176 }, (_, i) => 80 + i));
  const text = await bothWays(dir.path, { path: ".", content: "needle" });
  assertStringIncludes(text, "At least 400 matching lines in 80 files");
  assertStringIncludes(text, "searched 80 files before the output cap");
  // A run stopped before its batch: nothing is read.
  const scanner = new ParallelScanner(2);
  try {
    const search = compileSearchPattern("needle", false);
    const run = scanner.open({
      spec: search.spec,
      options: { context: 0, perFile: 40, maxChars: 400, room: 400 },
    }, MiB);
    run.stop();
    const stopped = await run.scan(batchOfPaths(paths.slice(0, 10)));
    assertEquals(stopped, { found: [], binaries: [], unchecked: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] });
  } finally {
    await scanner.close();
  }
});

Deno.test("a search cancelled while the workers scan returns what was found, and stops them", async () => {
  await using dir = await tempDir();
  const files: Record<string, string> = {};
  for (let i = 0; i < 1500; i++) {
    files[`d${i % 9}/f${i}.txt`] = i % 100 === 0 ? "needle\n" : "hay\n";
  }
  await writeTree(dir.path, files);
  const locations = new Locations(new LocalBackend());
  const controller = new AbortController();
  const real = new ParallelScanner(2);
  let batches = 0;
  // Cancels the call as the first batch's answer comes back.
  const scanner: ContentScanner = {
    backendId: real.backendId,
    open: (request, maxBytes) => {
      const run = real.open(request, maxBytes);
      return {
        scan: (files) =>
          run.scan(files).finally(() => {
            if (++batches === 1) controller.abort();
          }),
        match: (data) => run.match(data),
        stop: () => run.stop(),
      };
    },
    close: () => real.close(),
  };
  try {
    const text = await viewText(
      locations,
      createSession(locations.localAt(dir.path)),
      { path: ".", content: "needle" },
      { scanner, budget: new Budget(controller.signal) },
    );
    // Matches found so far ("… before it stopped"), or none yet: then partial first of all.
    assert(
      text.includes("before it stopped") || text.startsWith("Partial: the search was cancelled"),
      text.slice(0, 300),
    );
    assertStringIncludes(text, "[The call was cancelled: the search stopped after ");
    assert(!text.includes("searched 1,500 files"), text.slice(0, 300));
  } finally {
    await scanner.close();
  }
});
