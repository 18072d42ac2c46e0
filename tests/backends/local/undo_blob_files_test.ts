// undo_blob_files.ts: the undo history's bytes in files of this server's own folder under the
// state dir, readable by the user alone; dropped and closed ones are gone; a folder left by a
// server that is gone is removed by the next server's first write, a live server's is not.

import { assert, assertEquals, assertRejects } from "../../_assert.ts";
import { tempDir } from "../../_harness.ts";
import { needing } from "../../_requires.ts";
import { UndoBlobFiles } from "../../../lib/backends/local/undo_blob_files.ts";

const posixFsTest = needing("posix-fs");

const names = async (dir: string) => {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) out.push(e.name);
  return out.sort();
};

Deno.test("bytes written out read back whole; a dropped handle's file and, at close, the folder go", async () => {
  await using state = await tempDir();
  const blobs = new UndoBlobFiles(state.path);
  const bytes = Uint8Array.from({ length: 100_000 }, (_, i) => (i * 7919) % 251);
  const a = await blobs.put(bytes);
  const b = await blobs.put(new Uint8Array(0));
  assert(a !== null && b !== null && a !== b);
  assertEquals(await blobs.get(a), bytes);
  assertEquals(await blobs.get(b), new Uint8Array(0));
  const [folder] = await names(`${state.path}/undo`);
  assert(folder?.startsWith(`${Deno.pid}-`), folder);
  blobs.drop(a);
  await new Promise((r) => setTimeout(r, 50));
  assertEquals(await names(`${state.path}/undo/${folder}`), [b]);
  await assertRejects(() => blobs.get(a));
  await blobs.close();
  assertEquals(await names(`${state.path}/undo`), []);
  assertEquals(await blobs.put(bytes), null); // closed: the history keeps bytes in memory
});

Deno.test(posixFsTest("the files are the user's alone (0700 folder, 0600 files)", async () => {
  await using state = await tempDir();
  const blobs = new UndoBlobFiles(state.path);
  const handle = (await blobs.put(new Uint8Array([1, 2, 3])))!;
  const [folder] = await names(`${state.path}/undo`);
  assertEquals((await Deno.stat(`${state.path}/undo/${folder}`)).mode! & 0o777, 0o700);
  assertEquals((await Deno.stat(`${state.path}/undo/${folder}/${handle}`)).mode! & 0o777, 0o600);
  await blobs.close();
}));

Deno.test("writes at once from several histories share one folder, and each reads back", async () => {
  await using state = await tempDir();
  const blobs = new UndoBlobFiles(state.path);
  const all = Array.from({ length: 8 }, (_, i) => new Uint8Array(1000).fill(i));
  const handles = await Promise.all(all.map((b) => blobs.put(b)));
  assertEquals((await names(`${state.path}/undo`)).length, 1);
  for (let i = 0; i < all.length; i++) assertEquals(await blobs.get(handles[i]!), all[i]);
  await blobs.close();
});

Deno.test("a gone server's folder is removed at the first write, a live one's is kept", async () => {
  await using state = await tempDir();
  await Deno.mkdir(`${state.path}/undo/2147483600-deadbeef`, { recursive: true });
  await Deno.writeFile(`${state.path}/undo/2147483600-deadbeef/0`, new Uint8Array(10));
  await Deno.mkdir(`${state.path}/undo/${Deno.pid}-0badcafe`);
  await Deno.mkdir(`${state.path}/undo/not-a-server`);
  // A server of another pid (this test process stands in for a live server).
  const blobs = new UndoBlobFiles(state.path, 2147483601);
  assert((await blobs.put(new Uint8Array([1]))) !== null);
  const left = await names(`${state.path}/undo`);
  assertEquals(left.includes("2147483600-deadbeef"), false);
  assert(left.includes(`${Deno.pid}-0badcafe`), JSON.stringify(left));
  assert(left.includes("not-a-server"), JSON.stringify(left));
  assertEquals(left.filter((n) => n.startsWith("2147483601-")).length, 1);
  await blobs.close();
});
