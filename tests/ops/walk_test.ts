// The walker (ops/tree/walk.ts) over the memory backend: patterns keep what the full filter keeps,
// counts of what was passed over, max_depth, big directories counted as read.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { MemoryBackend } from "../../lib/backends/memory/memory_backend.ts";
import { compileGlobs } from "../../lib/core/search/glob.ts";
import { Locations } from "../../lib/ops/location.ts";
import { createSession } from "../../lib/ops/session.ts";
import { viewText } from "./_view_text.ts";
import {
  walkBatches,
  type WalkControl,
  walkFiles,
  type WalkItem,
  type WalkOptions,
} from "../../lib/ops/tree/walk.ts";
import { newWalkStats } from "../../lib/ops/tree/notices.ts";
import { Budget } from "../../lib/ops/budget.ts";

const tree: Record<string, string> = {
  "/repo/.gitignore": "*.log\nbuild/\n",
  "/repo/package.json": "{}\n",
  "/repo/app.log": "x\n",
  "/repo/build/package.json": "{}\n",
  "/repo/.hidden/package.json": "{}\n",
  "/repo/src/a.ts": "a\n",
  "/repo/src/package.json": "{}\n",
  "/repo/src/deep/.gitignore": "!keep.log\npackage.json\n",
  "/repo/src/deep/keep.log": "k\n",
  "/repo/src/deep/package.json": "{}\n",
  "/repo/src/deep/b.ts": "b\n",
  "/repo/docs/x.md": "x\n",
  "/repo/docs/sub/package.json": "{}\n",
  "/repo/docs/sub/y.md": "y\n",
  "/repo/only/dirs/z.txt": "z\n",
};

async function walk(backend: MemoryBackend, options: WalkOptions) {
  const stats = newWalkStats();
  const rels: string[] = [];
  for await (const item of walkFiles(backend, "/repo", options, stats)) rels.push(item.rel);
  return { rels, stats };
}

Deno.test("a walk with a pattern keeps exactly the files a full walk's filter keeps", async () => {
  const backend = new MemoryBackend(tree);
  const all = await walk(backend, { includeHidden: false });
  for (
    const pattern of [
      "**/package.json",
      "package.json",
      "*.ts",
      "*.md|!docs/sub/*",
      "src/**",
      "/src/*.ts",
      "docs/**/*.md",
      "*.log",
      "src/deep/",
      "*.{ts,md}",
    ]
  ) {
    const filter = compileGlobs(pattern);
    const got = await walk(backend, { includeHidden: false, filter });
    assertEquals(got.rels, all.rels.filter((rel) => filter.keepsFile(rel)), pattern);
    // Where the walk went everywhere, it names the same skipped entries (the empty-result text).
    if (got.stats.dirsPassedOver > 0) continue;
    assertEquals(got.stats.ignoredSamples, all.stats.ignoredSamples, pattern);
    assertEquals(got.stats.hiddenSamples, all.stats.hiddenSamples, pattern);
  }
});

Deno.test("a name pattern still counts every file it passed over, and a path pattern skips what it cannot reach", async () => {
  const backend = new MemoryBackend(tree);
  const all = await walk(backend, { includeHidden: false });
  const names = await walk(backend, { includeHidden: false, filter: compileGlobs("*.md") });
  assertEquals(names.stats.filesSeen, all.stats.filesSeen);
  assertEquals(names.stats.filesFiltered, all.stats.filesSeen - 2);
  assertEquals(names.stats.ignored, all.stats.ignored);
  assertEquals(names.stats.hidden, all.stats.hidden);
  const docs = await walk(backend, { includeHidden: false, filter: compileGlobs("docs/*.md") });
  assertEquals(docs.rels, ["docs/x.md"]);
  // Neither docs/sub, only nor src is entered: "docs/*.md" ends one level down, under docs.
  assertEquals(docs.stats.dirsPassedOver, 3);
  assertEquals(docs.stats.filesSeen, 2); // package.json and docs/x.md
});

Deno.test("a listing names directories cut by max_depth even where the pattern cannot reach", async () => {
  const locations = new Locations(new MemoryBackend(tree));
  const session = createSession(locations.localAt("/repo"));
  const cut = await viewText(locations, session, { path: ".", pattern: "docs/*.md", max_depth: 1 });
  assertStringIncludes(cut, "docs/\tdirectory, not entered (max_depth 1)");
  assertStringIncludes(cut, "src/\tdirectory, not entered (max_depth 1)");
  // Nothing matches and every directory was passed over: a broader pattern is still offered.
  const none = await viewText(locations, session, { path: "only", pattern: "x/*.rs" });
  assertStringIncludes(none, "scanned 0 files");
  assertStringIncludes(none, 'Try a broader pattern or none: view {"path":"only"}.');
});

Deno.test("a walk told its consumer's rows hands out those files and counts the rest of a big directory as it reads it", async () => {
  const files: Record<string, string> = { "/r/.gitignore": "*.log\n" };
  for (let i = 0; i < 3000; i++) files[`/r/f${String(i).padStart(4, "0")}.txt`] = "x\n";
  for (let i = 0; i < 5; i++) {
    files[`/r/a/${i}.txt`] = "x\n";
    files[`/r/z/${i}.txt`] = "x\n";
    files[`/r/.h${i}`] = "x\n"; // hidden: skipped, never counted
    files[`/r/i${i}.log`] = "x\n"; // ignored: skipped, never counted
  }
  const backend = new MemoryBackend(files);
  const full: string[] = [];
  const fullStats = newWalkStats();
  for await (const item of walkFiles(backend, "/r", { includeHidden: false }, fullStats)) {
    full.push(item.rel);
  }
  assertEquals(full.length, 3010);
  const control: WalkControl = { countOnly: false, counted: 0, rows: 10 };
  const stats = newWalkStats();
  const items: WalkItem[] = [];
  for await (const batch of walkBatches(backend, "/r", { includeHidden: false }, stats, control)) {
    items.push(...batch);
  }
  // The rows come first, in walk order; files past them were counted, not held or handed out.
  assertEquals(items.slice(0, 10).map((i) => i.rel), full.slice(0, 10));
  assert(items.length <= 20, `${items.length} items handed out`);
  assertEquals(items.length + control.counted, 3010);
  // Skipped entries are told as a full walk tells them (.gitignore counts as hidden).
  assertEquals([stats.filesSeen, stats.hidden, stats.ignored], [3010, 6, 5]);
  assertEquals(stats, fullStats);
});

Deno.test("a directory of 100,000 entries is sorted and counted with turns of the event loop between steps", async () => {
  const files: Record<string, string> = {};
  // Names in reverse order, so the sort has work to do.
  for (let i = 99_999; i >= 0; i--) files[`/big/f${String(i).padStart(6, "0")}`] = "";
  const backend = new MemoryBackend(files);
  let turns = 0;
  let ticking = true;
  const tick = () => {
    turns++;
    if (ticking) setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  const stats = newWalkStats();
  const control: WalkControl = { countOnly: false, counted: 0, rows: 10 };
  const walk = walkBatches(backend, "/big", { includeHidden: false }, stats, control);
  const first = await walk.next();
  const during = turns;
  ticking = false;
  const rels = (first.value as WalkItem[]).map((item) => item.rel);
  for await (const items of walk) {
    rels.push(...items.map((item) => item.rel));
    if (rels.length >= 3) break;
  }
  await new Promise((resolve) => setTimeout(resolve, 5));
  assertEquals(rels.slice(0, 3), ["f000000", "f000001", "f000002"]);
  assert(during >= 3, `${during} turns of the event loop while the directory was read`);
});

Deno.test("huge directories are read, sorted and settled one walk at a time, each followed by a reclaim ask", async () => {
  // Two directories past TURN_ENTRIES (32,768), so sorting and settling each take turns.
  const files: Record<string, string> = {};
  for (let i = 0; i < 40_000; i++) {
    files[`/a/f${i}`] = "";
    files[`/b/f${i}`] = "";
  }
  files["/small/x"] = "";
  const backend = new MemoryBackend(files);
  const log: string[] = [];
  const reclaims: string[] = [];
  const options = (name: string): WalkOptions => ({
    includeHidden: false,
    // Only `breathe` is used by the walk: each turn inside a directory says whose it was.
    budget: {
      breathe: async () => {
        log.push(name);
        await new Promise((resolve) => setTimeout(resolve, 0));
        return null;
      },
    } as unknown as WalkOptions["budget"],
    reclaim: () => reclaims.push(name),
  });
  const list = async (root: string) => {
    const control: WalkControl = { countOnly: false, counted: 0, rows: 10 };
    const rels: string[] = [];
    const stats = newWalkStats();
    for await (const batch of walkBatches(backend, root, options(root), stats, control)) {
      rels.push(...batch.map((item) => item.rel));
    }
    return { rels, counted: control.counted };
  };
  const [a, b, small] = await Promise.all([list("/a"), list("/b"), list("/small")]);
  // Each is whole and in order.
  assertEquals(a.rels.slice(0, 3), ["f0", "f1", "f10"]);
  assertEquals([a.rels.length + a.counted, b.rels.length + b.counted], [40_000, 40_000]);
  assertEquals(small.rels, ["x"]);
  // /a's turns all came before /b's: the second huge directory waited for the first.
  assert(log.includes("/a") && log.includes("/b"), log.join(" "));
  assertEquals(log.indexOf("/b"), log.lastIndexOf("/a") + 1, log.join(" "));
  // A small directory takes no turn and asks no reclaim; each huge one asks once.
  assertEquals(reclaims.sort(), ["/a", "/b"]);
});

Deno.test("a walk cancelled while its huge directory waits for its turn ends at once, reading nothing more", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 40_000; i++) {
    files[`/a/f${i}`] = "";
    files[`/b/f${i}`] = "";
  }
  const backend = new MemoryBackend(files);
  // /a holds the turn until released: its first breath inside the turn (sorting) waits.
  let release = () => {};
  const held = new Promise<void>((resolve) => release = resolve);
  let holding = false;
  const a = (async () => {
    const stats = newWalkStats();
    const budget = {
      breathe: async () => {
        holding = true;
        await held;
        return null;
      },
      stopped: () => null,
    } as unknown as WalkOptions["budget"];
    let n = 0;
    for await (const batch of walkBatches(backend, "/a", { includeHidden: false, budget }, stats)) {
      n += batch.length;
    }
    return n;
  })();
  while (!holding) await new Promise((resolve) => setTimeout(resolve, 1));
  const controller = new AbortController();
  const stats = newWalkStats();
  const b = (async () => {
    const items: WalkItem[] = [];
    const budget = new Budget(controller.signal);
    for await (const batch of walkBatches(backend, "/b", { includeHidden: false, budget }, stats)) {
      items.push(...batch);
    }
    return items;
  })();
  await new Promise((resolve) => setTimeout(resolve, 20));
  controller.abort();
  // /b ends while /a still holds the turn: it waited for nothing after the abort.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"waited">((resolve) =>
    timer = setTimeout(() => resolve("waited"), 5000)
  );
  const bItems = await Promise.race([b, late]);
  clearTimeout(timer);
  release();
  assertEquals(await a, 40_000);
  assert(bItems !== "waited", "the cancelled walk waited for /a's turn to end");
  assertEquals([bItems.length, stats.stopped, stats.unreadable], [0, "cancelled", []]);
  await b;
});
