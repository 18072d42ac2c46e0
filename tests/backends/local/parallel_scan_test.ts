// The search worker pool (parallel_scan.ts) with real worker threads on real files: concurrent,
// stopped, cancelled and restarted searches give the results each gives alone; a stuck worker is
// ended after the grace.

import { batchOfPaths } from "../../../lib/core/search/path_batch.ts";
import { assert, assertEquals } from "../../_assert.ts";
import { REPO_ROOT, tempDir, writeTree } from "../../_harness.ts";
import { LocalBackend } from "../../../lib/backends/local/local_backend.ts";
import { ParallelScanner } from "../../../lib/backends/local/parallel_scan.ts";
import { collectionCount } from "../../../lib/backends/local/heap.ts";
import { WORKER_SOURCE } from "../../../lib/backends/local/scan_worker.ts";
import { compileSearchPattern } from "../../../lib/core/search/search_pattern.ts";
import { Budget } from "../../../lib/ops/budget.ts";
import { Locations } from "../../../lib/ops/location.ts";
import { createReadLimits } from "../../../lib/ops/read_limits.ts";
import { SEARCH_MAX_LINES } from "../../../lib/ops/tree/search.ts";
import { createSession } from "../../../lib/ops/session.ts";
import type { ViewArgs } from "../../../lib/ops/view.ts";
import { viewText } from "../../ops/_view_text.ts";
import { longLine, SLOW_REGEX } from "../../_long_line.ts";

/** A tree where every 37th file holds the needle, spread over a few directories. */
async function haystack(files: number): Promise<{ path: string } & AsyncDisposable> {
  const dir = await tempDir();
  const tree: Record<string, string> = {};
  for (let i = 0; i < files; i++) {
    tree[`d${i % 5}/f${i}.txt`] = i % 37 === 0 ? `line\nneedle ${i}\n` : `hay ${i}\n`;
  }
  await writeTree(dir.path, tree);
  return dir;
}

/** The paths of the files `haystack(files)` wrote under `root`. */
function haystackPaths(root: string, files: number): string[] {
  return [...Array(files).keys()].map((i) => `${root}/d${i % 5}/f${i}.txt`);
}

/** A search for the literal "needle" on `scanner`, as ops/tree/search.ts opens one. */
function openNeedleSearch(scanner: ParallelScanner) {
  const search = compileSearchPattern("needle", false);
  return scanner.open({
    spec: search.spec,
    ...(search.literal ? { literal: search.literal } : {}),
    options: { context: 0, perFile: 40, maxChars: 400, room: SEARCH_MAX_LINES },
  }, 1 << 20);
}

function viewer(root: string, scanner: ParallelScanner) {
  const locations = new Locations(new LocalBackend());
  const reads = createReadLimits();
  return (args: ViewArgs, budget?: Budget) =>
    viewText(locations, createSession(locations.localAt(root)), args, {
      scanner,
      reads,
      ...(budget ? { budget } : {}),
    });
}

Deno.test("searches run at once on one pool give the same results as one after another", async () => {
  await using dir = await haystack(2000);
  const scanner = new ParallelScanner(2);
  try {
    const view = viewer(dir.path, scanner);
    const calls: ViewArgs[] = [
      { path: ".", content: "needle" },
      { path: ".", content: "needle \\d+5\\b", regex: true },
      { path: ".", content: "hay 1999" },
      { path: ".", content: "no such text" },
    ];
    const sequential: string[] = [];
    for (const args of calls) sequential.push(await view(args));
    const concurrent = await Promise.all([...calls, ...calls].map((args) => view(args)));
    assertEquals(concurrent, [...sequential, ...sequential]);
    assertEquals(scanner.queued, 0);
    assertEquals(scanner.busy, 0);
  } finally {
    await scanner.close();
  }
});

Deno.test("a stopped search leaves the pool's queue at once and the others still finish", async () => {
  const scanner = new ParallelScanner(1);
  await using dir = await haystack(400);
  try {
    const open = () => openNeedleSearch(scanner);
    const paths = haystackPaths(dir.path, 400);
    const batches = [paths.slice(0, 100), paths.slice(100, 200), paths.slice(200, 300)];
    const a = open();
    const b = open();
    // One worker: the first batch runs, the other five wait, queued per search.
    const aResults = batches.map((batch) => a.scan(batchOfPaths(batch)));
    const bResults = batches.map((batch) => b.scan(batchOfPaths(batch)));
    assertEquals(scanner.busy, 1);
    assertEquals(scanner.queued, 5);
    a.stop();
    // Its two waiting batches came back without reaching the worker; b's three still wait.
    assertEquals(scanner.queued, 3);
    for (const result of (await Promise.all(aResults)).slice(1)) {
      assertEquals(result.unchecked.length, 100);
      assertEquals(result.found, []);
    }
    const found = (await Promise.all(bResults)).flatMap((r, k) =>
      r.found.map(([i]) => batches[k]![i]!)
    );
    assertEquals(found, paths.filter((_, i) => i % 37 === 0 && i < 300));
    assertEquals(scanner.queued, 0);
  } finally {
    await scanner.close();
  }
});

Deno.test("a cancelled search among others returns, and theirs are the same as alone", async () => {
  await using dir = await haystack(1500);
  const scanner = new ParallelScanner(2);
  try {
    const view = viewer(dir.path, scanner);
    const alone = await view({ path: ".", content: "needle" });
    const controller = new AbortController();
    const others = [view({ path: ".", content: "needle" }), view({ path: ".", content: "needle" })];
    const cancelled = view({ path: ".", content: "hay" }, new Budget(controller.signal));
    controller.abort();
    await cancelled;
    assertEquals(await Promise.all(others), [alone, alone]);
    assertEquals(scanner.queued, 0);
    assertEquals(scanner.busy, 0);
  } finally {
    await scanner.close();
  }
});

Deno.test("workers stopped and started again between searches give identical results", async () => {
  await using dir = await haystack(800);
  const scanner = new ParallelScanner(2);
  try {
    const view = viewer(dir.path, scanner);
    const first = await view({ path: ".", content: "needle \\d+", regex: true });
    await scanner.close(); // the idle stop: the next search starts fresh workers
    assertEquals(await view({ path: ".", content: "needle \\d+", regex: true }), first);
    assertEquals(scanner.inline, false);
  } finally {
    await scanner.close();
  }
});

Deno.test("a search's end asks for a full collection when it leaves this thread's heap past the mark", async () => {
  await using dir = await haystack(200);
  const scanner = new ParallelScanner(1);
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  try {
    const view = viewer(dir.path, scanner);
    const first = await view({ path: ".", content: "needle" });
    await sleep(600); // a collection this first search asked for, and its pause, are over
    // 40 MB of flat strings (decoded, as a scan's lines are; `repeat` would share one rope), held
    // through the search as its walk and answers are: the heap is past the after-search mark.
    const decoder = new TextDecoder();
    let garbage: string[] | null = Array.from(
      { length: 400 },
      (_, i) => decoder.decode(new Uint8Array(100_000).fill(65 + i % 26)),
    );
    assertEquals(garbage.length, 400);
    const before = collectionCount();
    assertEquals(await view({ path: ".", content: "needle" }), first);
    garbage = null; // dead once the answer is out
    const deadline = Date.now() + 3_000;
    while (collectionCount() === before && Date.now() < deadline) await sleep(10);
    assertEquals(collectionCount(), before + 1, "no collection after the search");
  } finally {
    await scanner.close();
  }
});

Deno.test("a running search asks for a full collection between batches when this thread's heap is past the mark", async () => {
  await using dir = await haystack(300);
  const scanner = new ParallelScanner(1);
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  try {
    const search = compileSearchPattern("needle", false);
    const request = {
      spec: search.spec,
      options: { context: 0, perFile: 5, maxChars: 200, room: 100 },
    };
    await sleep(600); // the pauses of collections earlier tests asked for are over
    // 60 MB of flat strings held while the search runs: past the pressure mark (40 MB) and the
    // headroom over what any earlier collection left.
    const decoder = new TextDecoder();
    let garbage: string[] | null = Array.from(
      { length: 600 },
      (_, i) => decoder.decode(new Uint8Array(100_000).fill(65 + i % 26)),
    );
    const run = scanner.open(request, 1024 * 1024);
    const before = collectionCount();
    const paths = haystackPaths(dir.path, 300);
    const answer = await run.scan(batchOfPaths(paths));
    assertEquals(answer.found.length, 9); // every 37th file holds the needle
    // The search has not stopped (no after-search collection): the batch's answer asked.
    const deadline = Date.now() + 3_000;
    while (collectionCount() === before && Date.now() < deadline) await sleep(10);
    assertEquals(collectionCount(), before + 1, "no collection while the search ran");
    assertEquals(garbage.length, 600);
    garbage = null;
    run.stop();
  } finally {
    await scanner.close();
  }
});

Deno.test("a stopped search's worker stuck in one regex run is ended after the grace, and the pool goes on", async () => {
  await using dir = await tempDir();
  await Deno.writeFile(`${dir.path}/long.txt`, longLine(16 * 1024 * 1024 - 1, 7));
  await writeTree(dir.path, { "small.txt": "needle\n" });
  const scanner = new ParallelScanner(1);
  try {
    const search = compileSearchPattern(SLOW_REGEX, true);
    const request = {
      spec: search.spec,
      options: { context: 0, perFile: 5, maxChars: 200, room: 100 },
    };
    const run = scanner.open(request, 32 * 1024 * 1024);
    const answer = run.scan(batchOfPaths([`${dir.path}/long.txt`, `${dir.path}/small.txt`]));
    // Stopped once the worker is inside the file (it has started: the batch left the queue).
    while (scanner.queued > 0 || scanner.busy === 0) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    run.stop();
    const result = await answer;
    assertEquals(result.interrupted, 0);
    assertEquals(result.unchecked, [1]);
    assertEquals(scanner.busy, 0);
    // The worker that took its place answers the next search, bytes handed over included.
    const next = scanner.open(
      { ...request, spec: compileSearchPattern("needle", false).spec },
      1024,
    );
    const found = await next.scan(batchOfPaths([`${dir.path}/small.txt`]));
    assertEquals(found.found.map(([i]) => i), [0]);
    const held = await next.match(new TextEncoder().encode("a\nneedle b\n"));
    assertEquals(typeof held === "object" ? held.kept : held, [2]);
    next.stop();
  } finally {
    await scanner.close();
  }
});

Deno.test("a search of one batch of files starts one worker; batches waiting start more", async () => {
  await using small = await haystack(40);
  const one = new ParallelScanner(1);
  const scanner = new ParallelScanner(3);
  try {
    const alone = await viewer(small.path, one)({ path: ".", content: "needle" });
    assertEquals(await viewer(small.path, scanner)({ path: ".", content: "needle" }), alone);
    // 40 files are one batch: more workers could not share it, and each holds its own heap.
    assertEquals(scanner.workerCount, 1);
    // Three batches at once, each finding the workers busy: one worker each.
    const search = compileSearchPattern("needle", false);
    const run = scanner.open({
      spec: search.spec,
      ...(search.literal ? { literal: search.literal } : {}),
      options: { context: 0, perFile: 40, maxChars: 400, room: SEARCH_MAX_LINES },
    }, 1 << 20);
    const paths = [...Array(40).keys()].map((i) => `${small.path}/d${i % 5}/f${i}.txt`);
    const results = [paths.slice(0, 10), paths.slice(10, 20), paths.slice(20)].map((batch) =>
      run.scan(batchOfPaths(batch))
    );
    assertEquals(scanner.workerCount, 3);
    const found = (await Promise.all(results)).flatMap((r, k) =>
      r.found.map(([i]) => [paths.slice(0, 10), paths.slice(10, 20), paths.slice(20)][k]![i]!)
    );
    assertEquals(found, paths.filter((_, i) => i % 37 === 0));
  } finally {
    await one.close();
    await scanner.close();
  }
});

Deno.test("the workers import node:fs only where libc cannot be opened, and answer the same", async () => {
  // Statically imported, node:fs would load Node's compatibility layer into every worker
  // (~3-6 MB each, measured) that the libc reads never use.
  assertEquals(/^\s*import\b[^;]*["']node:fs["']/m.test(WORKER_SOURCE), false);
  await using dir = await haystack(300);
  const scanner = new ParallelScanner(1);
  const here = await viewer(dir.path, scanner)({ path: ".", content: "needle" });
  await scanner.close();
  // Without --allow-ffi the workers fall back to node:fs.
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-env",
      new URL("./_scan_no_ffi.ts", import.meta.url).pathname,
      dir.path,
      "needle",
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
  const there = JSON.parse(new TextDecoder().decode(out.stdout));
  assertEquals(there, { text: here, inline: false });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(10);
  }
}

Deno.test("workers whose heap grew past the mark are replaced after a search, and fresh ones answer the same", async () => {
  await using dir = await haystack(1200);
  // A mark of 0 bytes: every worker that answered a batch has grown past it.
  const scanner = new ParallelScanner(2, () => null, 0);
  const kept = new ParallelScanner(2, () => null, Infinity);
  try {
    const view = viewer(dir.path, scanner);
    const first = await view({ path: ".", content: "needle \\d+", regex: true });
    assertEquals(scanner.workerCount, 2);
    await until(() => scanner.recycled === 2, "both workers were replaced");
    assertEquals(scanner.workerCount, 2);
    assertEquals(await view({ path: ".", content: "needle \\d+", regex: true }), first);
    assertEquals(
      await view({ path: ".", content: "needle" }),
      await viewer(dir.path, kept)({
        path: ".",
        content: "needle",
      }),
    );
    await until(() => scanner.recycled === 6, "the next two searches' workers were replaced");
    // Under the mark, a worker stays for the next search.
    await viewer(dir.path, kept)({ path: ".", content: "needle \\d+", regex: true });
    await sleep(200);
    assertEquals(kept.recycled, 0);
    assertEquals(scanner.inline, false);
  } finally {
    await scanner.close();
    await kept.close();
  }
});

/** Runs `code` in a Deno with gc exposed (the launchers' --expose-gc); what it printed, as JSON. */
async function evalWithGc(code: string): Promise<unknown> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--v8-flags=--expose-gc", code],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(out.success, true, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

Deno.test("with gc exposed (the launchers' --expose-gc), grown workers collect in place and answer the same", async () => {
  await using dir = await haystack(600);
  const module = new URL("../../../lib/backends/local/parallel_scan.ts", import.meta.url).href;
  const pattern = new URL("../../../lib/core/search/search_pattern.ts", import.meta.url).href;
  const batches = new URL("../../../lib/core/search/path_batch.ts", import.meta.url).href;
  // Three searches on a pool with a mark of 0 bytes (every worker that answered has grown past
  // it), each waiting for its workers to be collected before the next.
  const code = `import { ParallelScanner } from ${JSON.stringify(module)};
import { compileSearchPattern } from ${JSON.stringify(pattern)};
import { batchOfPaths } from ${JSON.stringify(batches)};
const scanner = new ParallelScanner(1, () => null, 0);
const search = compileSearchPattern("needle", false);
const request = { spec: search.spec, options: { context: 0, perFile: 5, maxChars: 200, room: 100 } };
const paths = Array.from({ length: 600 }, (_, i) => ${
    JSON.stringify(dir.path)
  } + "/d" + (i % 5) + "/f" + i + ".txt");
const answers = [];
for (let i = 1; i <= 3; i++) {
  const run = scanner.open(request, 1 << 20);
  answers.push(JSON.stringify(await run.scan(batchOfPaths(paths))));
  run.stop();
  const deadline = Date.now() + 5000;
  while (scanner.collectedInPlace < i && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}
console.log(JSON.stringify({
  gc: typeof globalThis.gc, same: new Set(answers).size, found: JSON.parse(answers[0]).found.length,
  inPlace: scanner.collectedInPlace, replaced: scanner.recycled, inline: scanner.inline,
}));
await scanner.close();`;
  assertEquals(await evalWithGc(code), {
    gc: "function",
    same: 1,
    found: 17, // every 37th of 600 files
    inPlace: 3,
    replaced: 0,
    inline: false,
  });
});

Deno.test("with gc exposed, a worker collects after big files that a regex decoded, so their line texts do not pile up", async () => {
  // Twenty files of one 2 MiB line each, not ASCII (UTF-16 strings of 4 MiB in V8), each holding
  // a match at its end: the regex tests each whole line. Without the collection after big files
  // (scan_worker.ts matchThenTidy), the promoted texts stayed until V8's own full collection:
  // the worker's heap after the batch was 45-46 MB here; with it, 15-16 MB.
  await using dir = await tempDir();
  const line = "é".repeat(1024 * 1024 - 8) + " TODO: x\n";
  const paths: string[] = [];
  for (let i = 0; i < 20; i++) {
    paths.push(`${dir.path}/m${i}.map`);
    await Deno.writeTextFile(paths[i]!, line);
  }
  const module = new URL("../../../lib/backends/local/parallel_scan.ts", import.meta.url).href;
  const pattern = new URL("../../../lib/core/search/search_pattern.ts", import.meta.url).href;
  const batches = new URL("../../../lib/core/search/path_batch.ts", import.meta.url).href;
  const code = `import { ParallelScanner } from ${JSON.stringify(module)};
import { compileSearchPattern } from ${JSON.stringify(pattern)};
import { batchOfPaths } from ${JSON.stringify(batches)};
const scanner = new ParallelScanner(1, () => null, Infinity);
const search = compileSearchPattern("(TODO|FIXME):", true);
const request = { spec: search.spec, literal: search.literal, anyOf: search.anyOf,
  options: { context: 0, perFile: 5, maxChars: 200, room: 100 } };
const run = scanner.open(request, 64 << 20);
const answer = await run.scan(batchOfPaths(${JSON.stringify(paths)}));
run.stop();
console.log(JSON.stringify({ found: answer.found.length, heap: scanner.workerHeaps[0] }));
await scanner.close();`;
  const { found, heap } = await evalWithGc(code) as { found: number; heap: number };
  assertEquals(found, 20);
  // Between the two, with room either way: the mark is 16 MiB.
  assert(heap < 30 * 1024 * 1024, `the worker's heap after the batch: ${heap} bytes`);
});

Deno.test("a worker busy with the next search when one stops is replaced once it answers, its batch whole", async () => {
  await using dir = await haystack(2000);
  const scanner = new ParallelScanner(1, () => null, 0);
  try {
    const open = () => openNeedleSearch(scanner);
    const paths = haystackPaths(dir.path, 2000);
    const a = open();
    await a.scan(batchOfPaths(paths.slice(0, 10))); // the worker has answered: its heap is past the mark
    const b = open();
    const answer = b.scan(batchOfPaths(paths));
    a.stop();
    assertEquals(scanner.busy, 1); // b's batch holds the worker: it is not ended under it
    const found = (await answer).found.map(([i]) => paths[i]!);
    assertEquals(found, paths.filter((_, i) => i % 37 === 0));
    await until(() => scanner.recycled === 1, "the worker was replaced after its batch");
    const again = await b.scan(batchOfPaths(paths.slice(0, 40)));
    assertEquals(again.found.map(([i]) => i), [0, 37]);
    b.stop();
  } finally {
    await scanner.close();
  }
});
