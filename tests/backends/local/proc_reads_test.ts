// Local reads of files whose stat size is not their length: /proc/self/maps states 0 bytes and
// holds kilobytes. Every read path stops at its bound whatever the stat said. (The never-ending
// and blocking /proc files are read through the real server, under a watchdog:
// tests/mcp/proc_reads_test.ts.)

import { AnchorError } from "../../../lib/core/errors.ts";
import { LocalBackend } from "../../../lib/backends/local/local_backend.ts";
import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { needing } from "../../_requires.ts";

const needs = needing("proc");
const MAPS = "/proc/self/maps";

Deno.test(
  needs("/proc/self/maps states 0 bytes but holds more (the premise of these tests)", async () => {
    assertEquals((await Deno.stat(MAPS)).size, 0);
    assert((await Deno.readFile(MAPS)).length > 1000);
  }),
);

Deno.test(
  needs("readFile with maxBytes stops one byte past it whatever the stat said", async () => {
    const b = new LocalBackend();
    assertEquals((await b.readFile(MAPS, { maxBytes: 100 })).length, 101);
    // Within the bound, a file stating 0 bytes is read to its end.
    const whole = await b.readFile(MAPS, { maxBytes: 10_000_000 });
    assert(whole.length > 1000 && whole.length <= 10_000_000, `${whole.length} bytes`);
  }),
);

Deno.test(
  needs(
    "readFiles with skipLargerThan refuses a file that turns out larger than its stat",
    async () => {
      const items = [];
      for await (const item of new LocalBackend().readFiles([MAPS], { skipLargerThan: 100 })) {
        items.push(item);
      }
      assertEquals(items.length, 1);
      const { data, error } = items[0]!;
      assertEquals(data, undefined);
      assert(error instanceof AnchorError && error.code === "FILE_TOO_LARGE", String(error));
      assertStringIncludes(error.message, "holds more than 100 bytes");
      assertStringIncludes(error.message, "size on disk says 0 bytes");
    },
  ),
);

Deno.test(
  needs("readFiles with headBytes reads only the head of a file stating 0 bytes", async () => {
    for await (const item of new LocalBackend().readFiles([MAPS], { headBytes: 64 })) {
      assertEquals(item.data?.length, 64);
    }
  }),
);

Deno.test(
  needs(
    "summarizeFiles and readRange stay within their bounds on a file stating 0 bytes",
    async () => {
      const b = new LocalBackend();
      const [one] = [...b.summarizeFiles([MAPS], 256)];
      assertEquals(one?.error, undefined);
      assertEquals(one?.summary?.size, 256);
      assertEquals((await b.readRange(MAPS, 0, 50)).length, 50);
      assertEquals((await b.readRange(MAPS, 10, 50)).length, 50);
    },
  ),
);

Deno.test(
  needs(
    "/proc/self/status reads whole through every path (non-blocking opens read as usual)",
    async () => {
      const b = new LocalBackend();
      const text = new TextDecoder().decode(await b.readFile("/proc/self/status"));
      assertStringIncludes(text, "VmRSS:");
      for await (const item of b.readFiles(["/proc/self/status"], { skipLargerThan: 1_000_000 })) {
        assertStringIncludes(new TextDecoder().decode(item.data), "VmRSS:");
      }
      const [one] = [...b.summarizeFiles(["/proc/self/status"], 256 * 1024)];
      assert((one?.summary?.lines ?? 0) > 10, JSON.stringify(one));
    },
  ),
);
