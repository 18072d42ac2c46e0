// byte_size.ts (pure): the one size formatter that refusals, listings and search notices share;
// the table pins each unit's boundary so a change to how sizes read shows here first.

import { assertEquals } from "../_assert.ts";
import { formatSize } from "../../lib/core/byte_size.ts";

Deno.test("formatSize: exact bytes below 1 KB, then KB, MB and GB with one decimal", () => {
  const cases: [number, string][] = [
    [0, "0 bytes"],
    [1, "1 byte"],
    [1023, "1,023 bytes"],
    [1024, "1.0 KB"],
    [1536, "1.5 KB"],
    [1024 ** 2 - 1, "1024.0 KB"],
    [1024 ** 2, "1.0 MB"],
    [16 * 1024 ** 2, "16.0 MB"],
    [1024 ** 3 - 1, "1024.0 MB"],
    [1024 ** 3, "1.0 GB"],
    [5.25 * 1024 ** 3, "5.3 GB"],
  ];
  for (const [n, want] of cases) assertEquals(formatSize(n), want, `formatSize(${n})`);
});
