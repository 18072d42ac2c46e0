// The scanner the services hold (lazy_scanner.ts): the worker pool is built by ready(), which a
// listing or search of view awaits; before that a scan is refused, and once built its searches
// and listings read as the pool's own and as those without a scanner.

import { assertEquals, assertStringIncludes, assertThrows } from "../../_assert.ts";
import { tempDir, writeTree } from "../../_harness.ts";
import { LocalBackend } from "../../../lib/backends/local/local_backend.ts";
import { LazyScanner } from "../../../lib/backends/local/lazy_scanner.ts";
import { ParallelScanner } from "../../../lib/backends/local/parallel_scan.ts";
import { Locations } from "../../../lib/ops/location.ts";
import type { ContentScanner } from "../../../lib/ops/ports/worker_pool.ts";
import { createReadLimits } from "../../../lib/ops/read_limits.ts";
import { createSession } from "../../../lib/ops/session.ts";
import type { ViewArgs } from "../../../lib/ops/view.ts";
import { viewText } from "../../ops/_view_text.ts";

function viewer(root: string, scanner: ContentScanner | undefined) {
  const locations = new Locations(new LocalBackend());
  const reads = createReadLimits();
  return (args: ViewArgs) =>
    viewText(locations, createSession(locations.localAt(root)), args, {
      ...(scanner && { scanner }),
      reads,
    });
}

Deno.test("a lazy scanner refuses a scan before ready(); view's searches and listings load it", async () => {
  await using dir = await tempDir();
  const tree: Record<string, string> = {};
  for (let i = 0; i < 300; i++) {
    tree[`d${i % 3}/f${i}.txt`] = i % 7 === 0 ? `needle ${i}\n` : "hay\n";
  }
  await writeTree(dir.path, tree);
  const lazy = new LazyScanner();
  const pool = new ParallelScanner(2);
  try {
    const refused = assertThrows(() => lazy.openSummaries(4096));
    assertStringIncludes(String(refused), "await ready()");
    const calls: ViewArgs[] = [
      { path: "." },
      { path: ".", content: "needle" },
      { path: ".", content: "needle \\d+1\\b", regex: true },
      { path: "d1", pattern: "*.txt" },
    ];
    for (const args of calls) {
      const viaLazy = await viewer(dir.path, lazy)(args);
      assertEquals(viaLazy, await viewer(dir.path, pool)(args));
      assertEquals(viaLazy, await viewer(dir.path, undefined)(args));
    }
  } finally {
    await lazy.close();
    await pool.close();
  }
});

Deno.test("a lazy scanner closed before it loaded closes at once and stays closed", async () => {
  const lazy = new LazyScanner();
  await lazy.close();
  await lazy.ready();
  // Built after close: a listing finds no workers to help it (none are started for it).
  assertEquals(lazy.openSummaries(4096), null);
  await lazy.close();
});
