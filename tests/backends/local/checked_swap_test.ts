// The swap at the end of a local write, with another program's write landing at each moment
// around it (after the final check, between the swap and the late look, into the new file while
// it is the target). Real files and the real renameat2 on Linux; elsewhere the swap must say it
// cannot and change nothing. Every case runs on both swap sites: names by path text (an
// unconfined write) and names relative to a held folder descriptor (a confined write).

import * as fs from "node:fs";
import {
  type FileIdentity,
  pathSite,
  swapChecked as swapAt,
  type SwapSite,
  writeModeLine,
} from "../../../lib/backends/local/checked_swap.ts";
import { confinedSwapSite } from "../../../lib/backends/local/confined_swap.ts";
import { beneathLibc, cName, LINUX } from "../../../lib/backends/local/beneath.ts";
import { statAt } from "../../../lib/backends/local/confined_fd.ts";
import {
  exchange,
  exchangeSupport,
  exchangeUnavailable,
} from "../../../lib/backends/local/rename_exchange.ts";
import { AnchorError } from "../../../lib/core/errors.ts";
import { changedAtReplace } from "../../../lib/ops/ports/file_backend.ts";
import { assert, assertEquals, assertStringIncludes, assertThrows } from "../../_assert.ts";
import { tempDir } from "../../_harness.ts";

const enc = new TextEncoder();
const linux = Deno.build.os === "linux";
const SITES = ["path", "folder fd"] as const;
type SiteKind = typeof SITES[number];
const testOn = (kind: SiteKind, name: string, fn: () => Promise<void>) =>
  Deno.test({
    name: linux ? `${name} (${kind})` : `${name} (${kind}) [skipped: renameat2 is Linux's]`,
    ignore: !linux,
    fn,
  });
/** Registers one case for each swap site; `site` builds the kind's site for a folder. */
const test = (name: string, fn: (site: (dir: string) => Names) => Promise<void>) => {
  for (const kind of SITES) testOn(kind, name, () => fn((dir) => names(kind, dir)));
};

interface Names {
  site: SwapSite;
  path: string;
  temp: string;
  /** The identity of the file at `path` now, as this site reports it. */
  identity: () => FileIdentity;
  [Symbol.dispose](): void;
}

/** The names of a swap in `dir` (f.txt and its temp) on the `kind` of site. */
function names(kind: SiteKind, dir: string): Names {
  const path = `${dir}/f.txt`;
  const temp = `${dir}/.f.txt.anchorfs-1-1.tmp`;
  let n = 0;
  if (kind === "path") {
    const site = pathSite({
      temp,
      path,
      tempOpen: temp,
      shown: path,
      statPath: () => {
        const info = fs.lstatSync(path, { throwIfNoEntry: false });
        return info ? { dev: info.dev, ino: info.ino } : null;
      },
      keptName: () => ({ open: `${dir}/f.txt.kept-${++n}`, shown: `${dir}/f.txt.kept-${n}` }),
    });
    const identity = () => {
      const info = fs.lstatSync(path);
      return { dev: info.dev, ino: info.ino };
    };
    return { site, path, temp, identity, [Symbol.dispose]() {} };
  }
  const c = beneathLibc()!;
  const fd = c.openat(LINUX.AT_FDCWD, cName(dir), LINUX.O_PATH | LINUX.O_DIRECTORY, 0);
  assert(fd >= 0, `open ${dir}`);
  const site = confinedSwapSite(
    c,
    { fd, shown: dir },
    ".f.txt.anchorfs-1-1.tmp",
    "f.txt",
    path,
    () => ++n,
  );
  const identity = () => {
    const s = statAt(c, fd, "f.txt")!;
    return { dev: s.dev, ino: s.ino };
  };
  return { site, path, temp, identity, [Symbol.dispose]: () => c.close(fd) };
}

const swapChecked = (n: Names, written: Uint8Array, expect: Uint8Array, base: FileIdentity) =>
  swapAt(n.site, written, expect, base);

/** The target "old\n" (checked: its identity is returned) and the temp holding "new\n". */
async function setUp(n: Names): Promise<FileIdentity> {
  await Deno.writeTextFile(n.path, "old\n");
  await Deno.writeTextFile(n.temp, "new\n");
  return n.identity();
}

/** The one file kept beside the target, by the name pattern of either site. */
function keptFile(dir: string): string {
  const kept = listing(dir).filter((name) => name.includes("kept"));
  assertEquals(kept.length, 1, listing(dir).join(", "));
  return `${dir}/${kept[0]}`;
}

function listing(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((e) => e.name).sort();
}

function expectChanged(fn: () => unknown): AnchorError {
  const e = assertThrows(fn);
  assert(e instanceof AnchorError && e.code === "FILE_CHANGED", String(e));
  assert(changedAtReplace(e)?.atReplace === true, "not marked as found at the replace");
  return e;
}

test("nothing else wrote: the new file is the target and the old one is gone", async (site) => {
  await using dir = await tempDir();
  using n = site(dir.path);
  const base = await setUp(n);
  const swapped = swapChecked(n, enc.encode("new\n"), enc.encode("old\n"), base);
  assert(swapped !== null);
  swapped.settle();
  assertEquals(await Deno.readTextFile(n.path), "new\n");
  assertEquals(listing(dir.path), ["f.txt"]);
});

test("a rename-save after the final check: swapped back, FILE_CHANGED, that program's file stays", async (site) => {
  await using dir = await tempDir();
  using n = site(dir.path);
  const base = await setUp(n);
  await Deno.writeTextFile(`${dir.path}/saved`, "theirs\n");
  await Deno.rename(`${dir.path}/saved`, n.path); // as sed -i or an editor saves
  const theirs = fs.statSync(n.path).ino;
  expectChanged(() => swapChecked(n, enc.encode("new\n"), enc.encode("old\n"), base));
  assertEquals(await Deno.readTextFile(n.path), "theirs\n");
  assertEquals(fs.statSync(n.path).ino, theirs);
  assertEquals(listing(dir.path), ["f.txt"]);
});

test("a write in place after the final check (same inode): swapped back, FILE_CHANGED", async (site) => {
  await using dir = await tempDir();
  using n = site(dir.path);
  const base = await setUp(n);
  await Deno.writeTextFile(n.path, "appended\n", { append: true });
  const e = expectChanged(() => swapChecked(n, enc.encode("new\n"), enc.encode("old\n"), base));
  assertStringIncludes(e.message, "changed on disk at the moment this edit replaced it");
  assertEquals(await Deno.readTextFile(n.path), "old\nappended\n");
  assertEquals(listing(dir.path), ["f.txt"]);
});

test("the target removed after the final check: FILE_CHANGED, nothing put back or left", async (site) => {
  await using dir = await tempDir();
  using n = site(dir.path);
  const base = await setUp(n);
  await Deno.remove(n.path);
  expectChanged(() => swapChecked(n, enc.encode("new\n"), enc.encode("old\n"), base));
  assertEquals(listing(dir.path), [".f.txt.anchorfs-1-1.tmp"]); // the caller removes its temp
});

test("a write into the old file through a descriptor opened before the swap: the late look swaps back", async (site) => {
  await using dir = await tempDir();
  using n = site(dir.path);
  const base = await setUp(n);
  const early = fs.openSync(n.path, "a"); // another program opened the file before the swap
  try {
    const swapped = swapChecked(n, enc.encode("new\n"), enc.encode("old\n"), base);
    assert(swapped !== null);
    assertEquals(await Deno.readTextFile(n.path), "new\n");
    fs.writeSync(early, "late\n"); // ...and writes now, into the file that was swapped out
    expectChanged(() => swapped.settle());
  } finally {
    fs.closeSync(early);
  }
  assertEquals(await Deno.readTextFile(n.path), "old\nlate\n");
  assertEquals(n.identity(), base);
  assertEquals(listing(dir.path), ["f.txt"]);
});

test("late write into the old file after another program replaced ours: the old file is kept", async (site) => {
  await using dir = await tempDir();
  using n = site(dir.path);
  const base = await setUp(n);
  const early = fs.openSync(n.path, "a");
  try {
    const swapped = swapChecked(n, enc.encode("new\n"), enc.encode("old\n"), base);
    assert(swapped !== null);
    fs.writeSync(early, "late\n");
    await Deno.writeTextFile(`${dir.path}/saved`, "newest\n");
    await Deno.rename(`${dir.path}/saved`, n.path);
    swapped.settle(); // our write is already replaced: no error, but nothing is removed unseen
  } finally {
    fs.closeSync(early);
  }
  assertEquals(await Deno.readTextFile(n.path), "newest\n");
  assertEquals(await Deno.readTextFile(keptFile(dir.path)), "old\nlate\n");
});

testOn(
  "path",
  "exchange: two names swap their files; a missing name is NotFound and nothing moves",
  async () => {
    await using dir = await tempDir();
    await Deno.writeTextFile(`${dir.path}/a`, "A");
    await Deno.writeTextFile(`${dir.path}/b`, "B");
    assertEquals(exchange(`${dir.path}/a`, `${dir.path}/b`), { done: true });
    assertEquals(await Deno.readTextFile(`${dir.path}/a`), "B");
    const e = assertThrows(() => exchange(`${dir.path}/a`, `${dir.path}/missing`));
    assert(e instanceof Deno.errors.NotFound, String(e));
    assertEquals(await Deno.readTextFile(`${dir.path}/a`), "B");
    assertEquals(exchangeSupport(), { done: true });
  },
);

Deno.test("exchangeUnavailable: macOS, Windows, other CPUs and a denied FFI say why; Linux with FFI can", () => {
  assertEquals(exchangeUnavailable("linux", "x86_64", true), undefined);
  assertEquals(exchangeUnavailable("linux", "aarch64", true), undefined);
  assertStringIncludes(exchangeUnavailable("darwin", "aarch64", true)!, "this is darwin");
  assertStringIncludes(exchangeUnavailable("windows", "x86_64", true)!, "this is windows");
  assertStringIncludes(exchangeUnavailable("linux", "riscv64", true)!, "riscv64");
  assertStringIncludes(exchangeUnavailable("linux", "x86_64", false)!, "--allow-ffi");
});

Deno.test("writeModeLine says which way local writes replace a file, and what the fallback leaves open", () => {
  assertStringIncludes(writeModeLine({ done: true }), "RENAME_EXCHANGE");
  const fallback = writeModeLine({ done: false, reason: "renameat2 is Linux's (this is darwin)" });
  assertStringIncludes(fallback, "rename right after a final content check (renameat2 is Linux's");
  assertStringIncludes(fallback, "can be overwritten");
});

Deno.test({
  name: "where names cannot be exchanged, swapChecked changes nothing and says so (null)",
  ignore: linux,
  async fn() {
    await using dir = await tempDir();
    using n = names("path", dir.path);
    const base = await setUp(n);
    assertEquals(swapChecked(n, enc.encode("new\n"), enc.encode("old\n"), base), null);
    assertEquals(await Deno.readTextFile(n.path), "old\n");
  },
});
