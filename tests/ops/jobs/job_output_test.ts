// The plain-output fast path cuts a tail from the raw text with no object per line; it must show
// exactly what the cleaner would, for any output it accepts.

import fc from "fast-check";
import { assert, assertEquals } from "../../_assert.ts";
import { cleanedTail, plainTail } from "../../../lib/ops/jobs/job_output.ts";

// Letters, digits, a space, a tab, NUL (shown as a control picture) and non-ASCII text.
const lineArb = fc.array(fc.constantFrom("a", "b", "c", "0", "9", " ", "\t", "\0", "é", "€"), {
  maxLength: 12,
}).map((chars) => chars.join(""));

Deno.test("plainTail() shows what cleanedTail() shows, for plain output of any shape and budget", () => {
  fc.assert(
    fc.property(
      fc.array(lineArb, { minLength: 1, maxLength: 40 }),
      fc.boolean(),
      fc.integer({ min: 1, max: 400 }),
      fc.option(fc.integer({ min: 1, max: 12 }), { nil: Infinity }),
      (lines, finalNewline, budget, maxLines) => {
        const raw = lines.join("\n") + (finalNewline ? "\n" : "");
        const fast = plainTail(raw, budget, maxLines);
        if (fast === null) return;
        const slow = cleanedTail(raw, budget, maxLines);
        assert(fast.text.split("\n").length <= maxLines, fast.text);
        // The cleaner splits the raw bytes of a short run of identical lines evenly between them
        // (an approximation); the fast path counts each line exactly. Totals always agree.
        const pairs = lines.some((l, i) => i > 0 && lines[i - 1] === l);
        if (pairs) {
          assertEquals(
            { ...fast, omittedInWindow: 0, shownRawBytes: 0 },
            { ...slow, omittedInWindow: 0, shownRawBytes: 0 },
          );
          assertEquals(
            fast.omittedInWindow + fast.shownRawBytes,
            slow.omittedInWindow + slow.shownRawBytes,
          );
        } else {
          assertEquals(fast, slow);
        }
      },
    ),
    { numRuns: 3000 },
  );
});

Deno.test("plainTail() leaves ANSI, \\r redraws and repeated runs to the cleaner", () => {
  assertEquals(plainTail("a\n\x1b[31mred\x1b[0m\n", 1000), null);
  assertEquals(plainTail("10%\r50%\r100%\n", 1000), null);
  assertEquals(plainTail("x\nsame\nsame\nsame\n", 1000), null);
  // Two identical lines stay as they are (below the collapse threshold): still plain.
  assertEquals(plainTail("same\nsame\nend\n", 1000)?.text, "same\nsame\nend");
});

Deno.test("plainTail() cuts a 200,000-line log to the budget with whole lines", () => {
  let raw = "";
  for (let i = 1; i <= 200_000; i++) raw += `${i}\n`;
  const t = plainTail(raw, 1024)!;
  assertEquals(t.text.endsWith("200000"), true);
  assertEquals(t.text.split("\n")[0]!.length > 0, true);
  assertEquals(t.omittedInWindow + t.shownRawBytes, raw.length);
  assertEquals(t, cleanedTail(raw, 1024));
});

Deno.test("a passing run's tail: at most maxLines lines, the rest counted as omitted", () => {
  let raw = "";
  for (let i = 1; i <= 500; i++) raw += `ok ${i}\n`;
  raw += "# pass 500\n";
  for (const t of [plainTail(raw, 4096, 3)!, cleanedTail(raw, 4096, 3)]) {
    assertEquals(t.text, "ok 499\nok 500\n# pass 500");
    assertEquals(t.omittedInWindow + t.shownRawBytes, raw.length);
  }
  // A collapsed run of repeats counts as one line.
  const repeats = "a\n" + "same\n".repeat(20) + "end\n";
  assertEquals(
    cleanedTail(repeats, 4096, 2).text,
    "same\n[previous line repeated 19 more times]\nend",
  );
  // The byte budget still applies.
  assertEquals(plainTail(raw, 12, 10)!.text, "# pass 500");
});
