// The swap at the end of a local write, with another program's write landing at each moment
// around it (after the final check, between the swap and the late look, into the new file while
// it is the target). Real files and the real renameat2 on Linux; elsewhere the swap must say it
// cannot and change nothing.

import * as fs from "node:fs";
import {
  type FileIdentity,
  swapChecked,
  type SwapNames,
  writeModeLine,
} from "../../../lib/backends/local/checked_swap.ts";
import {
  exchange,
  exchangeSupport,
  exchangeUnavailable,
} from "../../../lib/backends/local/rename_exchange.ts";
import { AnchorError } from "../../../lib/core/errors.ts";
import { changedAtReplace } from "../../../lib/ops/file_backend.ts";
import { assert, assertEquals, assertStringIncludes, assertThrows } from "../../_assert.ts";
import { tempDir } from "../../_harness.ts";

const enc = new TextEncoder();
const linux = Deno.build.os === "linux";
const test = (name: string, fn: () => Promise<void>) =>
  Deno.test({ name: linux ? name : `${name} [skipped: renameat2 is Linux's]`, ignore: !linux, fn });

function names(dir: string): SwapNames {
  const path = `${dir}/f.txt`;
  let n = 0;
  return {
    temp: `${dir}/.f.txt.anchorfs-1-1.tmp`,
    path,
    tempOpen: `${dir}/.f.txt.anchorfs-1-1.tmp`,
    shown: path,
    statPath: () => {
      const info = fs.lstatSync(path, { throwIfNoEntry: false });
      return info ? { dev: info.dev, ino: info.ino } : null;
    },
    keptName: () => ({ open: `${dir}/f.txt.kept-${++n}`, shown: `${dir}/f.txt.kept-${n}` }),
  };
}

/** The target "old\n" (checked: its identity is returned) and the temp holding "new\n". */
async function setUp(dir: string): Promise<{ n: SwapNames; base: FileIdentity }> {
  const n = names(dir);
  await Deno.writeTextFile(n.path, "old\n");
  await Deno.writeTextFile(n.temp, "new\n");
  const info = fs.statSync(n.path);
  return { n, base: { dev: info.dev, ino: info.ino } };
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

test("nothing else wrote: the new file is the target and the old one is gone", async () => {
  await using dir = await tempDir();
  const { n, base } = await setUp(dir.path);
  const swapped = swapChecked(n, enc.encode("new\n"), enc.encode("old\n"), base);
  assert(swapped !== null);
  swapped.settle();
  assertEquals(await Deno.readTextFile(n.path), "new\n");
  assertEquals(listing(dir.path), ["f.txt"]);
});

test("a rename-save after the final check: swapped back, FILE_CHANGED, that program's file stays", async () => {
  await using dir = await tempDir();
  const { n, base } = await setUp(dir.path);
  await Deno.writeTextFile(`${dir.path}/saved`, "theirs\n");
  await Deno.rename(`${dir.path}/saved`, n.path); // as sed -i or an editor saves
  const theirs = fs.statSync(n.path).ino;
  expectChanged(() => swapChecked(n, enc.encode("new\n"), enc.encode("old\n"), base));
  assertEquals(await Deno.readTextFile(n.path), "theirs\n");
  assertEquals(fs.statSync(n.path).ino, theirs);
  assertEquals(listing(dir.path), ["f.txt"]);
});

test("a write in place after the final check (same inode): swapped back, FILE_CHANGED", async () => {
  await using dir = await tempDir();
  const { n, base } = await setUp(dir.path);
  await Deno.writeTextFile(n.path, "appended\n", { append: true });
  const e = expectChanged(() => swapChecked(n, enc.encode("new\n"), enc.encode("old\n"), base));
  assertStringIncludes(e.message, "changed on disk at the moment this edit replaced it");
  assertEquals(await Deno.readTextFile(n.path), "old\nappended\n");
  assertEquals(listing(dir.path), ["f.txt"]);
});

test("the target removed after the final check: FILE_CHANGED, nothing put back or left", async () => {
  await using dir = await tempDir();
  const { n, base } = await setUp(dir.path);
  await Deno.remove(n.path);
  expectChanged(() => swapChecked(n, enc.encode("new\n"), enc.encode("old\n"), base));
  assertEquals(listing(dir.path), [".f.txt.anchorfs-1-1.tmp"]); // the caller removes its temp
});

test("a write into the old file through a descriptor opened before the swap: the late look swaps back", async () => {
  await using dir = await tempDir();
  const { n, base } = await setUp(dir.path);
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
  assertEquals(fs.statSync(n.path).ino, base.ino);
  assertEquals(listing(dir.path), ["f.txt"]);
});

test("late write into the old file after another program replaced ours: the old file is kept", async () => {
  await using dir = await tempDir();
  const { n, base } = await setUp(dir.path);
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
  assertEquals(await Deno.readTextFile(`${dir.path}/f.txt.kept-1`), "old\nlate\n");
});

test("exchange: two names swap their files; a missing name is NotFound and nothing moves", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/a`, "A");
  await Deno.writeTextFile(`${dir.path}/b`, "B");
  assertEquals(exchange(`${dir.path}/a`, `${dir.path}/b`), { done: true });
  assertEquals(await Deno.readTextFile(`${dir.path}/a`), "B");
  const e = assertThrows(() => exchange(`${dir.path}/a`, `${dir.path}/missing`));
  assert(e instanceof Deno.errors.NotFound, String(e));
  assertEquals(await Deno.readTextFile(`${dir.path}/a`), "B");
  assertEquals(exchangeSupport(), { done: true });
});

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
    const { n, base } = await setUp(dir.path);
    assertEquals(swapChecked(n, enc.encode("new\n"), enc.encode("old\n"), base), null);
    assertEquals(await Deno.readTextFile(n.path), "old\n");
  },
});
