import fc from "fast-check";
import { assert, assertEquals } from "../../_assert.ts";
import {
  formatDuration,
  formatProgress,
  lastOutputLine,
  PROGRESS_MAX_CHARS,
} from "../../../lib/core/jobs/progress_text.ts";

Deno.test("formatProgress is never longer than 200 characters", () => {
  fc.assert(
    fc.property(fc.nat(), fc.string({ maxLength: 5000 }), (ms, text) => {
      assert(Array.from(formatProgress(ms, text)).length <= PROGRESS_MAX_CHARS);
    }),
  );
  assertEquals(Array.from(formatProgress(1000, "x".repeat(10_000))).length, PROGRESS_MAX_CHARS);
});

Deno.test("formatProgress shows the elapsed time and the last non-empty output line", () => {
  assertEquals(
    formatProgress(12_300, "a\nb\n\x1b[32mPASS 3 tests\x1b[0m\n\n"),
    "running 12.3s · PASS 3 tests",
  );
  assertEquals(formatProgress(500, ""), "running 0.5s");
  assertEquals(lastOutputLine("progress 10%\rprogress 90%\r"), "progress 90%");
});

Deno.test("formatDuration reads naturally across scales", () => {
  assertEquals(formatDuration(4200), "4.2s");
  assertEquals(formatDuration(185_000), "3m05s");
  assertEquals(formatDuration(3_720_000), "1h02m");
});
