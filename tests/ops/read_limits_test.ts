// read_limits.ts (ops, memory backend): the process-wide ByteBudget's order and release, byte
// counts with suffixes, bounded head reads.

import { assert, assertEquals, assertThrows } from "../_assert.ts";
import { createReadLimits, parseByteCount, readHead } from "../../lib/ops/read_limits.ts";
import { ByteBudget } from "../../lib/core/byte_budget.ts";
import { MemoryBackend } from "../../lib/backends/memory/memory_backend.ts";
import { AnchorError } from "../../lib/core/errors.ts";

Deno.test("ByteBudget: reads past the capacity wait their turn, first come first served", async () => {
  const budget = new ByteBudget(10);
  const order: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((r) => release = r);
  const first = budget.use(6, async () => {
    order.push("first");
    await held;
  });
  const second = budget.use(6, () => Promise.resolve(order.push("second")));
  const small = budget.use(1, () => Promise.resolve(order.push("small")));
  await Promise.resolve();
  assertEquals(order, ["first"]); // "small" fits but must not overtake "second"
  assertEquals(budget.inUse, 6);
  release();
  await Promise.all([first, second, small]);
  assertEquals(order, ["first", "second", "small"]);
  assertEquals(budget.inUse, 0);
});

Deno.test("ByteBudget: a read above the capacity runs alone, and a failure gives the bytes back", async () => {
  const budget = new ByteBudget(10);
  assertEquals(await budget.use(1000, () => Promise.resolve(budget.inUse)), 10);
  await budget.use(5, () => Promise.reject(new Error("boom"))).catch(() => {});
  assertEquals(budget.inUse, 0);
});

Deno.test("parseByteCount takes bytes and K/M/G suffixes, refuses the rest", () => {
  assertEquals(parseByteCount("--max-file-bytes", "1000"), 1000);
  assertEquals(parseByteCount("--max-file-bytes", "64M"), 64 * 1024 * 1024);
  assertEquals(parseByteCount("--max-file-bytes", "1GiB"), 1024 ** 3);
  for (const bad of ["", "0", "-5", "lots", "1.5M"]) {
    assertThrows(() => parseByteCount("--max-file-bytes", bad), (e) => {
      assert(e instanceof AnchorError && e.code === "INVALID_FLAG");
    });
  }
  assertEquals(createReadLimits({ maxFileBytes: 100 }).maxFileBytes, 100);
});

Deno.test("readHead returns at most the bound and the full size", async () => {
  const disk = new MemoryBackend({ "/big.txt": "x".repeat(5000), "/small.txt": "abc" });
  const big = await readHead(disk, "/big.txt", 100);
  assertEquals([big.data.length, big.size], [100, 5000]);
  const small = await readHead(disk, "/small.txt", 100);
  assertEquals([new TextDecoder().decode(small.data), small.size], ["abc", 3]);
});

Deno.test("ByteBudget asks for a collection after enough bytes were given back", async () => {
  let reclaims = 0;
  const budget = new ByteBudget(100, { reclaim: () => reclaims++, reclaimEveryBytes: 50 });
  for (let i = 0; i < 4; i++) {
    await budget.use(30, () => Promise.resolve());
    await new Promise((r) => setTimeout(r, 1));
  }
  assertEquals(reclaims, 2); // after 60 and 120 bytes
  const release = await budget.take(10);
  release();
  release(); // twice is harmless
  assertEquals(budget.inUse, 0);
});
