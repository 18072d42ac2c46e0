// bounded_read.ts: a read stops one byte past its bound whatever the file's stat size says (files
// that state 0 bytes, never end, or grow while read), with the reads counted.

import { assert, assertEquals } from "../../_assert.ts";
import {
  BoundedRead,
  END_CHECK_BYTES,
  PROBE_BYTES,
} from "../../../lib/backends/local/bounded_read.ts";

/**
 * Drives a BoundedRead against a simulated file of `length` bytes (Infinity: one that never
 * ends, as a kernel's page map reads), returning the bytes and every read's length.
 */
function run(statSize: number, length: number, max: number) {
  const read = new BoundedRead(statSize, max);
  const asked: number[] = [];
  let at = 0;
  while (!read.done) {
    assert(asked.length < 10_000, "the read never ended");
    const [buf, offset, want] = read.next();
    asked.push(want);
    const n = Math.min(want, length - at);
    for (let i = 0; i < n; i++) buf[offset + i] = (at + i) % 251;
    at += n;
    read.took(n);
  }
  return { bytes: read.bytes(), asked };
}

const pattern = (n: number) => Uint8Array.from({ length: n }, (_, i) => i % 251);

Deno.test("a file that ends at its stat size costs one read and one empty read of 8 bytes", () => {
  const { bytes, asked } = run(1000, 1000, Infinity);
  assertEquals(bytes, pattern(1000));
  // No 64 KiB probe: the buffer's own spare bytes find the end (issue 26's 10,000 views).
  assertEquals(asked, [1000 + END_CHECK_BYTES, END_CHECK_BYTES]);
});

Deno.test("a file stating 0 bytes is read to its end when it has one", () => {
  const { bytes } = run(0, 300_000, Infinity);
  assertEquals(bytes, pattern(300_000));
});

Deno.test("a never-ending file stating 0 bytes stops one byte past the bound", () => {
  const { bytes, asked } = run(0, Infinity, 1_000_000);
  assertEquals(bytes.length, 1_000_001);
  assertEquals(bytes, pattern(1_000_001));
  // Every read asks for whole 8-byte blocks: the kernel's page map refuses others (EINVAL).
  for (const want of asked) assertEquals(want % 8, 0, `a read of ${want} bytes`);
});

Deno.test("a file that grew past its stat size while read stays bounded", () => {
  assertEquals(run(10, 5_000_000, 100_000).bytes.length, 100_001);
  // Within the bound, the growth is read (a log appended to meanwhile).
  assertEquals(run(10, 5000, 100_000).bytes, pattern(5000));
});

Deno.test("a file whose stat size is over the bound is read to the bound and one byte", () => {
  const { bytes, asked } = run(3 * 1024 ** 3, 3 * 1024 ** 3, 4096);
  assertEquals(bytes.length, 4097);
  assertEquals(asked, [4096, PROBE_BYTES]); // never a buffer of the stat's 3 GB
});

Deno.test("a file of exactly the bound is not taken for a bigger one", () => {
  assertEquals(run(4096, 4096, 4096).bytes.length, 4096);
  assertEquals(run(0, 4096, 4096).bytes.length, 4096);
});
