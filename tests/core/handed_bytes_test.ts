// handOver / freeHandedOver: only bytes a reader marked as its caller's alone are freed (their
// buffer detached, every view of it then empty); bytes not handed over are never touched.

import { assertEquals } from "../_assert.ts";
import { freeHandedOver, handOver } from "../../lib/core/handed_bytes.ts";

Deno.test("handed-over bytes are freed, with every view of their buffer; twice is harmless", () => {
  const bytes = handOver(new Uint8Array([1, 2, 3, 4]));
  const part = bytes.subarray(1, 3);
  freeHandedOver(part);
  assertEquals([bytes.length, part.length, bytes.buffer.byteLength], [0, 0, 0]);
  freeHandedOver(bytes);
  assertEquals(bytes.length, 0);
});

Deno.test("bytes not handed over (a shared or cached buffer) are left as they are", () => {
  const cached = new Uint8Array([5, 6, 7]);
  freeHandedOver(cached);
  freeHandedOver(cached.subarray(1));
  assertEquals([...cached], [5, 6, 7]);
});
