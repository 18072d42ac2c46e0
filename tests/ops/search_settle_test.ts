// A search on a scanner settles each batch as soon as it is answered and at the head of the line,
// instead of letting answered batches pile up behind the walk until 32 wait: their paths and
// answers then outlived V8's young generation, and a search of 931,000 files held ~12 MB a second
// of dead paths on the main thread between collections (docs/benchmarks.md, issue 26).

import { assert, assertEquals } from "../_assert.ts";
import { MemoryBackend } from "../../lib/backends/memory/memory_backend.ts";
import { Locations } from "../../lib/ops/location.ts";
import type { ContentScanner, ScanResult } from "../../lib/ops/ports/worker_pool.ts";
import { createSession } from "../../lib/ops/session.ts";
import { viewText } from "./_view_text.ts";

/** The scanner's answer for a file holding "needle" on its one line. */
const NEEDLE_MATCH = {
  count: 1,
  kept: [1],
  next: 0,
  lineCount: 1,
  shown: [{ n: 1, text: "needle" }],
  truncated: false,
};

/** 40 scanner batches of 256 files; every 1,000th file holds the needle. */
function tree(): MemoryBackend {
  const files: Record<string, string> = {};
  for (let i = 0; i < 40 * 256; i++) {
    files[`/repo/d${Math.floor(i / 500)}/f${String(i).padStart(5, "0")}.txt`] = i % 1000 === 0
      ? "needle\n"
      : "hay\n";
  }
  return new MemoryBackend(files);
}

/**
 * A scanner of the memory backend that answers each batch on the next turn (misses but for the
 * needle's files), logging "sent" when a batch reaches it and "settled" when the search reads
 * the answer. `hold(k)` keeps batch k's answer back until `release()`.
 */
function loggingScanner(backend: MemoryBackend, hold?: (k: number) => boolean) {
  const log: string[] = [];
  const held: (() => void)[] = [];
  let sent = 0;
  const scanner: ContentScanner = {
    backendId: backend.id,
    open: () => ({
      scan: async (files) => {
        const k = sent++;
        log.push(`sent ${k}`);
        if (hold?.(k)) await new Promise<void>((r) => held.push(r));
        else await Promise.resolve();
        const found: ScanResult["found"] = [];
        files.names.forEach((p, i) => {
          if (Number(/f(\d+)\.txt$/.exec(p)![1]) % 1000 === 0) {
            found.push([i, NEEDLE_MATCH]);
          }
        });
        return {
          get found() {
            log.push(`settled ${k}`);
            return found;
          },
          binaries: [],
          unchecked: [],
        } as ScanResult;
      },
      match: () => Promise.resolve("unchecked" as const),
      stop: () => {},
    }),
    close: () => Promise.resolve(),
  };
  return { scanner, log, release: () => held.splice(0).forEach((r) => r()) };
}

/** The most batches sent and not yet settled at any point of the log. */
function mostUnsettled(log: readonly string[]): number {
  let open = 0;
  let most = 0;
  for (const e of log) {
    open += e.startsWith("sent") ? 1 : -1;
    most = Math.max(most, open);
  }
  return most;
}

Deno.test("a scanner search settles each answered batch at once, not after 32 more are sent", async () => {
  const backend = tree();
  const locations = new Locations(backend);
  const { scanner, log } = loggingScanner(backend);
  const text = await viewText(
    locations,
    createSession(locations.localAt("/repo")),
    { path: ".", content: "needle" },
    { scanner },
  );
  assert(text.includes("11 matching lines in 11 files"), text.slice(0, 300));
  assertEquals(log.filter((e) => e.startsWith("sent")).length, 40);
  assertEquals(log.filter((e) => e.startsWith("settled")).length, 40);
  // Answered on the next turn: settled before the walk sends more than a couple past it.
  assert(mostUnsettled(log) <= 3, `at most 3 batches unsettled, got ${mostUnsettled(log)}`);
});

Deno.test("a slow batch at the head does not stop the walk: up to 32 answered ones wait behind it", async () => {
  const backend = tree();
  const locations = new Locations(backend);
  const scanning = loggingScanner(backend, (k) => k === 0);
  const viewing = viewText(
    locations,
    createSession(locations.localAt("/repo")),
    { path: ".", content: "needle" },
    { scanner: scanning.scanner },
  );
  // The walk goes on past the held head until 33 batches are in flight, then waits for it.
  for (let i = 0; i < 200 && scanning.log.length < 33; i++) {
    await new Promise((r) => setTimeout(r, 5));
  }
  await new Promise((r) => setTimeout(r, 20));
  assertEquals(scanning.log.filter((e) => e.startsWith("sent")).length, 33);
  assertEquals(scanning.log.filter((e) => e.startsWith("settled")).length, 0);
  scanning.release();
  const text = await viewing;
  assert(text.includes("11 matching lines in 11 files"), text.slice(0, 300));
  // In order: batch 0 first, each batch once.
  const settled = scanning.log.filter((e) => e.startsWith("settled"));
  assertEquals(settled, Array.from({ length: 40 }, (_, k) => `settled ${k}`));
});
