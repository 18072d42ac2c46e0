// How many reads a text read makes (ops/text_io.ts readChecked): a file within the size limit is
// read once, its head judged from those bytes, with the refusal a separate sniff gave; one over
// the limit is still named binary from its first bytes, without reading the rest.

import { assertEquals, assertRejects, assertStringIncludes } from "../_assert.ts";
import { tempDir } from "../_harness.ts";
import { LocalBackend } from "../../lib/backends/local/local_backend.ts";
import type { ReadFileOptions } from "../../lib/ops/ports/file_backend.ts";
import { Locations } from "../../lib/ops/location.ts";
import { createReadLimits } from "../../lib/ops/read_limits.ts";
import { readTextSniffed } from "../../lib/ops/text_io.ts";

/** Local disk, each read of a file's bytes noted. */
class CountedBackend extends LocalBackend {
  readonly reads: string[] = [];
  override readFile(path: string, options?: ReadFileOptions) {
    this.reads.push("readFile");
    return super.readFile(path, options);
  }
  override readRange(path: string, offset: number, length: number) {
    this.reads.push(`readRange ${offset}+${length}`);
    return super.readRange(path, offset, length);
  }
}

Deno.test("a text file over 8 KiB within the limit is read once, with no separate head read", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/big.ts`;
  await Deno.writeTextFile(path, "export const x = 1;\n".repeat(2_000)); // 40 KB
  const backend = new CountedBackend();
  const locations = new Locations(backend);
  const read = await readTextSniffed(locations, locations.localAt(path));
  assertEquals(read.bytes.length, 40_000);
  assertEquals(backend.reads, ["readFile"]);
});

Deno.test("a binary file within the limit is refused from the bytes read, as the sniff refused it", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/blob.bin`;
  const bytes = new Uint8Array(40_000).fill(65);
  bytes[100] = 0;
  await Deno.writeFile(path, bytes);
  const backend = new CountedBackend();
  const locations = new Locations(backend);
  const e = await assertRejects(() => readTextSniffed(locations, locations.localAt(path)));
  assertStringIncludes(
    (e as Error).message,
    "is a binary file (contains NUL bytes, 39.1 KB); it is not shown or edited as text",
  );
  assertEquals(backend.reads, ["readFile"]);
});

Deno.test("a binary file over the limit is named binary from its head, the rest unread", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/disk.img`;
  const bytes = new Uint8Array(40_000);
  await Deno.writeFile(path, bytes);
  const backend = new CountedBackend();
  const locations = new Locations(backend);
  const limits = createReadLimits({ maxFileBytes: 20_000 });
  const e = await assertRejects(() => readTextSniffed(locations, locations.localAt(path), limits));
  assertStringIncludes((e as Error).message, "is a binary file (contains NUL bytes");
  assertEquals(backend.reads, ["readRange 0+8192"]);
});
