// tail_buffer.ts (pure): TailBuffer keeps exactly the last N bytes pushed (property test) and
// refuses a bad capacity.

import fc from "fast-check";
import { assertEquals, assertThrows } from "../../_assert.ts";
import { TailBuffer } from "../../../lib/core/jobs/tail_buffer.ts";

Deno.test("TailBuffer keeps exactly the last N bytes of everything pushed", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 64 }),
      fc.array(fc.uint8Array({ maxLength: 100 }), { maxLength: 30 }),
      (capacity, chunks) => {
        const buffer = new TailBuffer(capacity);
        const all: number[] = [];
        for (const chunk of chunks) {
          buffer.push(chunk);
          all.push(...chunk);
        }
        assertEquals([...buffer.bytes()], all.slice(Math.max(0, all.length - capacity)));
        assertEquals(buffer.totalBytes, all.length);
        assertEquals(buffer.droppedBytes, Math.max(0, all.length - capacity));
      },
    ),
  );
});

Deno.test("TailBuffer refuses a capacity that is not a positive integer", () => {
  assertThrows(() => new TailBuffer(0));
  assertThrows(() => new TailBuffer(1.5));
});
