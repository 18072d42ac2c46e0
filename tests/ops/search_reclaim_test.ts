// A search on the parallel scanner asks the process for a forced collection once, when its
// answer is made, not as each batch's budget hold is given back: those holds stand for bytes read
// in the workers' heaps, and a collection due mid-search stopped the walk on this thread.

import { assertEquals } from "../_assert.ts";
import { tempDir, writeTree } from "../_harness.ts";
import { LocalBackend } from "../../lib/backends/local/local_backend.ts";
import { ParallelScanner } from "../../lib/backends/local/parallel_scan.ts";
import { ByteBudget } from "../../lib/core/byte_budget.ts";
import { Locations } from "../../lib/ops/location.ts";
import type { ContentScanner } from "../../lib/ops/ports/worker_pool.ts";
import { createSession } from "../../lib/ops/session.ts";
import { viewText } from "./_view_text.ts";

Deno.test("a scanner search asks for a collection once, after its last batch is answered", async () => {
  await using dir = await tempDir();
  const files: Record<string, string> = {};
  // Three batches of the scanner (256 files each).
  for (let i = 0; i < 700; i++) files[`d${i % 7}/f${i}.txt`] = i % 50 === 0 ? "needle\n" : "hay\n";
  await writeTree(dir.path, files);
  const events: string[] = [];
  const budget = new ByteBudget(32 * 1024 * 1024, {
    reclaim: () => events.push("reclaim"),
    reclaimEveryBytes: 1,
  });
  const real = new ParallelScanner(1);
  const scanner: ContentScanner = {
    backendId: real.backendId,
    open: (request, maxBytes) => {
      const run = real.open(request, maxBytes);
      return {
        scan: (files) => run.scan(files).finally(() => events.push("answered")),
        match: (data) => run.match(data),
        stop: () => run.stop(),
      };
    },
    close: () => real.close(),
  };
  try {
    const locations = new Locations(new LocalBackend());
    const text = await viewText(
      locations,
      createSession(locations.localAt(dir.path)),
      { path: ".", content: "needle" },
      { scanner, reads: { maxFileBytes: 16 * 1024 * 1024, budget } },
    );
    assertEquals(text.includes("14 matching lines in 14 files"), true, text.slice(0, 200));
    assertEquals(events, ["answered", "answered", "answered", "reclaim"]);
    assertEquals(budget.inUse, 0);
  } finally {
    await scanner.close();
  }
});
