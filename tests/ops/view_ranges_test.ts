// Ranged views of long files read the bytes without decoding the whole file (issue 26): the
// answer is the same as the decoded whole file gives (every encoding, BOM, CRLF, long lines,
// stale ids), a 100-line view of an 8 MB file allocates far less than the file, and a view frees
// the read buffer its backend handed over once the answer is made.

import { assert, assertEquals, assertRejects, assertStringIncludes } from "../_assert.ts";
import fc from "fast-check";
import { getHeapStatistics } from "node:v8";
import { MemoryBackend } from "../../lib/backends/memory/memory_backend.ts";
import { formatLineId } from "../../lib/core/edit/line_id.ts";
import { handOver } from "../../lib/core/handed_bytes.ts";
import type { AnchorError } from "../../lib/core/errors.ts";
import { Locations } from "../../lib/ops/location.ts";
import { createSession } from "../../lib/ops/session.ts";
import type { ViewArgs } from "../../lib/ops/view.ts";
import { viewText } from "./_view_text.ts";

/** Bytes V8 has allocated on this isolate's heap so far (not in Deno's HeapInfo type). */
const allocatedSoFar = () =>
  (getHeapStatistics() as unknown as { total_allocated_bytes: number }).total_allocated_bytes;

function freshView(bytes: Uint8Array, args: Omit<ViewArgs, "path">): Promise<string> {
  const locations = new Locations(new MemoryBackend({ "/repo/f.txt": bytes }));
  const session = createSession(locations.localAt("/repo"));
  return viewText(locations, session, { path: "f.txt", ...args });
}

const encode = (text: string) => new TextEncoder().encode(text);
const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));

Deno.test("a range over the whole file answers as the whole view does, byte for byte", async () => {
  const pieces = fc.array(
    fc.constantFrom("a", "é", "😀", " x = 1;", "\n", "\r\n", "\r", "\t", "\u00ff", "z".repeat(50)),
    { maxLength: 120 },
  );
  const file = fc.tuple(pieces, fc.constantFrom("plain", "bom", "latin1", "utf16le")).map(
    ([parts, kind]) => {
      const text = parts.join("");
      if (kind === "bom") return new Uint8Array([0xef, 0xbb, 0xbf, ...encode(text)]);
      // Latin-1: an invalid UTF-8 byte (0xff) makes the whole file Latin-1.
      if (kind === "latin1") {
        return latin1(`\u00ff${[...text].map((c) => c.length > 1 ? "?" : c).join("")}`);
      }
      if (kind === "utf16le") {
        const units = Uint16Array.from(text, (c) => c.charCodeAt(0));
        return new Uint8Array([0xff, 0xfe, ...new Uint8Array(units.buffer)]);
      }
      return encode(text);
    },
  );
  await fc.assert(
    fc.asyncProperty(file, async (bytes) => {
      const whole = await freshView(bytes, {}).catch((e: AnchorError) => e.message);
      const range = await freshView(bytes, { start: 1, end: -1 }).catch((e: AnchorError) =>
        e.message
      );
      if (whole.includes("is empty")) return; // an empty file has no line 1 to start at
      assertEquals(range, whole);
    }),
    { numRuns: 400 },
  );
});

/** A long file of UTF-8 lines (some with é, some CRLF, one longer than the cut). */
function longFile(lines: number): { bytes: Uint8Array; line: (n: number) => string } {
  const line = (n: number) =>
    n === 3000 ? "y".repeat(5000) : `line ${n} ${n % 7 === 0 ? "café" : "plain"} text`;
  const parts: string[] = [];
  for (let n = 1; n <= lines; n++) parts.push(line(n) + (n % 5 === 0 ? "\r\n" : "\n"));
  return { bytes: encode(parts.join("")), line };
}

Deno.test("ranges of a long file: lines, ids, cut line, CRLF notice and stale ids as before", async () => {
  const { bytes, line } = longFile(20_000);
  const r = await freshView(bytes, { start: 2990, end: 3010 });
  const shown = r.split("\n");
  assertEquals(shown[0], `${formatLineId(2990, line(2990))}|${line(2990)}`);
  assertStringIncludes(shown[10]!, `${formatLineId(3000, line(3000))}|${"y".repeat(4000)} … `);
  assertEquals(shown[20], `${formatLineId(3010, line(3010))}|${line(3010)}`);
  assertStringIncludes(r, "Showing lines 2990-3010 of 20,000 lines.");
  assertStringIncludes(r, "File is UTF-8 with CRLF line endings");
  const last = await freshView(bytes, { start: -2 });
  assert(last.startsWith(`${formatLineId(19999, line(19999))}|${line(19999)}\n`));
  // A start id whose content is not on its line (line 101's content, said to be on 100).
  const stale = formatLineId(100, line(101));
  assert(stale !== formatLineId(100, line(100)));
  const error = await assertRejects(() => freshView(bytes, { start: stale })) as AnchorError;
  assertEquals(error.code, "STALE_LINE_ID");
});

Deno.test("a 100-line view of an 8 MB file allocates far less than the file", async () => {
  const { bytes } = longFile(200_000); // ~5 MB of lines
  const big = new Uint8Array(8 * 1024 * 1024);
  for (let at = 0; at + bytes.length <= big.length; at += bytes.length) big.set(bytes, at);
  big.fill(0x0a, Math.floor(big.length / bytes.length) * bytes.length);
  const locations = new Locations(new MemoryBackend({ "/repo/f.txt": big }));
  const session = createSession(locations.localAt("/repo"));
  const view = () => viewText(locations, session, { path: "f.txt", start: 150_000, end: 150_099 });
  // Warm-up: the scans' loops compiled (compiled code is allocated on the heap too).
  for (let i = 0; i < 20; i++) await view();
  const before = allocatedSoFar();
  for (let i = 0; i < 5; i++) await view();
  const perView = (allocatedSoFar() - before) / 5;
  // Decoding the file made an 8 MB string each time (8.4-9.2 MB allocated per view); the shown
  // lines take a few KB, but the counter also counts code compiled meanwhile and other work of
  // this process (3.1 MB once in the full suite): the bound is half the file.
  assert(perView < 4 * 1024 * 1024, `${(perView / 1024).toFixed(0)} KB allocated per view`);
});

/** A memory backend whose reads hand their copy over, as the local backend's do; it keeps them. */
class HandingBackend extends MemoryBackend {
  readonly handed: Uint8Array[] = [];
  override async readFile(path: string, options?: { maxBytes?: number }): Promise<Uint8Array> {
    const bytes = handOver(await super.readFile(path, options));
    this.handed.push(bytes);
    return bytes;
  }
  /** The head read before a long file's read: not handed over (the local backend's is not). */
  override async readRange(path: string, offset: number, length: number): Promise<Uint8Array> {
    return (await super.readFile(path)).slice(offset, offset + length);
  }
}

Deno.test("a view frees the read buffer handed over, after its answer is made, whole or ranged", async () => {
  const { bytes } = longFile(3000);
  const backend = new HandingBackend({ "/repo/f.txt": bytes, "/repo/small.txt": "a\r\nb\n" });
  const locations = new Locations(backend);
  const session = createSession(locations.localAt("/repo"));
  const view = (args: ViewArgs) => viewText(locations, session, args);
  const expected = await freshView(bytes, { start: 2000, end: 2100 });
  assertEquals(await view({ path: "f.txt", start: 2000, end: 2100 }), expected);
  assertEquals(await view({ path: "small.txt" }), await freshView(encode("a\r\nb\n"), {}));
  // A re-view compares with what was remembered: the lines, not the freed bytes.
  assertStringIncludes(await view({ path: "small.txt" }), "unchanged since you last viewed it");
  assertEquals(backend.handed.length, 3);
  for (const read of backend.handed) assertEquals(read.length, 0);
});
