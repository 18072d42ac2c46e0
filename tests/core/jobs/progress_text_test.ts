// progress_text.ts (pure): progress lines stay under 200 characters, show elapsed time and the last
// output line; durations and cuts by code point; property tests.

import fc from "fast-check";
import { assert, assertEquals } from "../../_assert.ts";
import {
  formatDuration,
  formatProgress,
  lastOutputLine,
  PROGRESS_MAX_CHARS,
  truncateText,
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

Deno.test("truncateText cuts at max code points however long the text (surrogates too)", () => {
  const piece = fc.constantFrom("a", "é", "\ud83d\ude00", "\ud800", "\udc00", "\n");
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 80 }), fc.integer({ min: 0, max: 20 }), (p, max) => {
      const text = p.join("");
      const chars = Array.from(text);
      const expected = chars.length <= max
        ? text
        : `${chars.slice(0, Math.max(0, max - 1)).join("")}…`;
      assertEquals(truncateText(text, max), expected, JSON.stringify([text, max]));
    }),
    { numRuns: 3000 },
  );
});
