// return_memory.ts: a trim hands freed malloc pages back to the system (RSS falls), the trims
// after start-up run at their delays on timers that never keep a process alive, and a fixed mmap
// threshold keeps big blocks out of the arenas after glibc would have moved it.

import { assert, assertEquals } from "../../_assert.ts";
import { needing } from "../../_requires.ts";
import {
  MMAP_THRESHOLD_BYTES,
  returnFreedMemory,
  START_TRIMS_MS,
  trimAfterStart,
  trimCount,
} from "../../../lib/backends/platform/return_memory.ts";

const linuxTest = needing("proc", "linux-ffi");

function rssKb(): number {
  const status = Deno.readTextFileSync("/proc/self/status");
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]);
}

Deno.test(linuxTest("a trim gives back pages malloc freed and kept", () => {
  const libc = Deno.dlopen("libc.so.6", {
    malloc: { parameters: ["usize"], result: "pointer" },
    free: { parameters: ["pointer"], result: "void" },
    memset: { parameters: ["pointer", "i32", "usize"], result: "pointer" },
  }).symbols;
  // 64 MiB in 100 KiB blocks (under glibc's mmap threshold: they live in the arena, and free()
  // keeps them), each touched; the last one stays allocated so the arena's top cannot shrink.
  const blocks = Array.from({ length: 640 }, () => libc.malloc(100n * 1024n));
  for (const block of blocks) libc.memset(block, 1, 100n * 1024n);
  for (const block of blocks.slice(0, -1)) libc.free(block);
  const kept = rssKb();
  const before = trimCount();
  assertEquals(returnFreedMemory(), true);
  const trimmed = rssKb();
  libc.free(blocks.at(-1)!);
  assertEquals(trimCount(), before + 1);
  assert(kept - trimmed > 32 * 1024, `RSS ${kept} kB → ${trimmed} kB after the trim`);
}));

/**
 * In a fresh process (glibc's threshold as it starts), optionally fixed first: a 4 MiB block
 * allocated and freed, then a 1 MiB one. Answers whether that one got pages of its own (mmap):
 * mallinfo2's count of mmapped blocks (hblks, its fourth field) while it is allocated.
 */
async function secondBlockMapped(fix: boolean): Promise<boolean> {
  const module = new URL("../../../lib/backends/platform/return_memory.ts", import.meta.url).href;
  const code = `import { fixMmapThreshold } from ${JSON.stringify(module)};
const libc = Deno.dlopen("libc.so.6", {
  malloc: { parameters: ["usize"], result: "pointer" },
  free: { parameters: ["pointer"], result: "void" },
  mallinfo2: { parameters: [], result: { struct: Array(10).fill("usize") } },
}).symbols;
if (${fix} && !fixMmapThreshold()) throw new Error("mallopt refused");
const mapped = () => new BigUint64Array(libc.mallinfo2().buffer)[3];
libc.free(libc.malloc(4n << 20n));
const before = mapped();
const block = libc.malloc(1n << 20n);
console.log(mapped() > before ? "mapped" : "arena");
libc.free(block);`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-config", code],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const said = new TextDecoder().decode(out.stdout).trim();
  assertEquals(out.success, true, new TextDecoder().decode(out.stderr));
  return said === "mapped";
}

Deno.test(linuxTest("a fixed mmap threshold keeps big blocks out of the arenas", async () => {
  // glibc moved its threshold to 4 MiB when that block was freed: the 1 MiB one is the arena's.
  assertEquals(await secondBlockMapped(false), false);
  assertEquals(await secondBlockMapped(true), true);
  assertEquals(MMAP_THRESHOLD_BYTES, 128 * 1024);
}));

Deno.test("the start-up trims run at each delay", async () => {
  const at: number[] = [];
  const start = performance.now();
  trimAfterStart([20, 60], () => at.push(performance.now() - start));
  await new Promise((r) => setTimeout(r, 150));
  assertEquals(at.length, 2);
  assert(at[0]! >= 19 && at[1]! >= 59, `trims at ${at.join(", ")} ms`);
  assert(START_TRIMS_MS.every((ms) => ms > 0), "every start-up trim waits");
});

Deno.test("the start-up trims keep no process alive", async () => {
  const module = new URL("../../../lib/backends/platform/return_memory.ts", import.meta.url).href;
  const code = `import { trimAfterStart } from ${JSON.stringify(module)};
trimAfterStart([600_000]);
console.log("scheduled");`;
  const watchdog = new AbortController();
  const timer = setTimeout(() => watchdog.abort(), 60_000);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-config", code],
    stdout: "piped",
    stderr: "piped",
    signal: watchdog.signal,
  }).output();
  clearTimeout(timer);
  assertEquals(new TextDecoder().decode(out.stdout), "scheduled\n");
  assertEquals(out.success, true, new TextDecoder().decode(out.stderr));
});
