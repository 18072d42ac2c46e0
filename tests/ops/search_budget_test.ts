// Searches and listings over the memory backend with deadlines and cancels: partial results say
// so first, name the deadline and how to narrow.

import { assertEquals, assertRejects, assertStringIncludes } from "../_assert.ts";
import { AnchorError } from "../../lib/core/errors.ts";
import { createReadLimits } from "../../lib/ops/read_limits.ts";
import { ByteBudget } from "../../lib/core/byte_budget.ts";
import { MemoryBackend } from "../../lib/backends/memory/memory_backend.ts";
import { Budget } from "../../lib/ops/budget.ts";
import { Locations } from "../../lib/ops/location.ts";
import { createSession } from "../../lib/ops/session.ts";
import type { ViewArgs } from "../../lib/ops/view.ts";
import { viewText } from "./_view_text.ts";

function setup(budget: Budget) {
  const files: Record<string, string> = {};
  for (let i = 0; i < 50; i++) files[`/repo/f${i}.txt`] = `needle ${i}\n`;
  const locations = new Locations(new MemoryBackend(files));
  const session = createSession(locations.localAt("/repo"));
  return (args: ViewArgs) => viewText(locations, session, args, { budget });
}

Deno.test("a cancelled search returns what it found with a sentence saying it was cancelled", async () => {
  const controller = new AbortController();
  controller.abort();
  const text = await setup(new Budget(controller.signal))({ path: ".", content: "needle" });
  assertStringIncludes(text, "At least 1 matching line in 1 file");
  assertStringIncludes(text, "searched 1 file before it stopped");
  assertStringIncludes(text, "[The call was cancelled: the search stopped after 1 file, so the");
});

Deno.test("a search past its deadline says it is partial first, which deadline and how to narrow", async () => {
  const view = setup(new Budget(undefined, 0));
  const text = await view({ path: ".", content: "nowhere", regex: true });
  assertStringIncludes(
    text,
    "Partial: the search reached the server's 0 s deadline after 1 file, and none of them " +
      'matches regex /nowhere/ in "."',
  );
  assertStringIncludes(text, "[The call reached the server's 0 s deadline: the search stopped");
  assertStringIncludes(text, 'Narrow it: a deeper path, a pattern such as view {"path":"."');
});

Deno.test("a listing past its deadline says it is partial", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 600; i++) files[`/repo/d${i}/f.txt`] = "x\n";
  const locations = new Locations(new MemoryBackend(files));
  const session = createSession(locations.localAt("/repo"));
  const text = await viewText(locations, session, { path: "." }, {
    budget: new Budget(undefined, 0),
  });
  assertStringIncludes(
    text,
    "The call reached the server's 0 s deadline: the listing stopped early",
  );
});

Deno.test("a cancelled listing stops between file reads, not only in the walk", async () => {
  // 50 files: the walk alone (which checks every 256 entries) would list them all.
  const controller = new AbortController();
  controller.abort();
  const text = await setup(new Budget(controller.signal))({ path: "." });
  assertStringIncludes(text, ".: 1 file (");
  assertStringIncludes(text, "The call was cancelled: the listing stopped early and is partial.");
});

Deno.test("a search takes its file bytes from the process-wide read budget: it waits while others hold it all", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 5; i++) files[`/repo/f${i}.txt`] = `needle ${i}\n`;
  const locations = new Locations(new MemoryBackend(files));
  const session = createSession(locations.localAt("/repo"));
  const reads = createReadLimits({ budgetBytes: 1024 });
  const releaseAll = await reads.budget.take(1024); // a big view or edit holds every byte
  let settled = false;
  const search = viewText(locations, session, { path: ".", content: "needle" }, { reads })
    .finally(() => settled = true);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assertEquals(settled, false);
  releaseAll();
  assertStringIncludes(await search, "5 matching lines in 5 files");
  assertEquals(reads.budget.inUse, 0);
});

Deno.test("a file view cancelled before its read reads nothing and says so", async () => {
  const controller = new AbortController();
  controller.abort();
  const e = await assertRejects(() => setup(new Budget(controller.signal))({ path: "f1.txt" }));
  assertEquals((e as AnchorError).code, "CANCELLED");
  assertStringIncludes(
    (e as AnchorError).message,
    'The call was cancelled before "/repo/f1.txt" was read',
  );
});

Deno.test("a read budget waiter that is cancelled leaves the queue; the next waiter gets the bytes", async () => {
  const budget = new ByteBudget(100);
  const holder = await budget.take(100);
  const controller = new AbortController();
  const cancelled = budget.take(80, controller.signal);
  const next = budget.take(10);
  controller.abort();
  await assertRejects(() => cancelled);
  holder();
  const release = await next;
  assertEquals(budget.inUse, 10);
  release();
  assertEquals(budget.inUse, 0);
});

Deno.test("a search waiting for read budget stops when cancelled and says it is partial", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 5; i++) files[`/repo/f${i}.txt`] = `needle ${i}\n`;
  const locations = new Locations(new MemoryBackend(files));
  const session = createSession(locations.localAt("/repo"));
  const reads = createReadLimits({ budgetBytes: 1024 });
  const releaseAll = await reads.budget.take(1024);
  const controller = new AbortController();
  const search = viewText(locations, session, { path: ".", content: "needle" }, {
    reads,
    budget: new Budget(controller.signal),
  });
  await new Promise((resolve) => setTimeout(resolve, 20));
  controller.abort();
  const text = await search;
  assertStringIncludes(text, "The call was cancelled: the search stopped after");
  releaseAll();
  assertEquals(reads.budget.inUse, 0);
});

Deno.test("a literal search with | and no match says | looks like alternation, which needs regex", async () => {
  const view = setup(new Budget());
  const text = await view({ path: ".", content: "needle 7|needle 4.5" });
  assertStringIncludes(text, "its | looks like alternation (this or that), which needs");
  assertStringIncludes(text, 'view {"path":".","content":"needle 7|needle 4\\\\.5","regex":true}');
  const found = await view({ path: ".", content: "needle 7|needle 4\\.5", regex: true });
  assertStringIncludes(found, "1 matching line in 1 file");
});
