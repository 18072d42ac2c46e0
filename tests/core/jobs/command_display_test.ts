// command_display.ts (pure): commands are displayed on one bounded line that keeps quoted
// whitespace apart; property tests, and an 8 MB command in a child with a 48 MB heap.

import { assertEquals, assertNotEquals } from "../../_assert.ts";
import fc from "fast-check";
import { displayCommand } from "../../../lib/core/jobs/command_display.ts";

Deno.test("commands whose quoted whitespace differs are displayed distinguishably", () => {
  const pairs: [string, string][] = [
    ['echo "a  b"', 'echo "a b"'],
    ["grep 'x\ty' f", "grep 'x y' f"],
    ["printf 'a\nb'", "printf 'a b'"],
    ['echo "a\\\nb"', 'echo "a b"'],
    ["make\ntest", "make test"],
  ];
  for (const [a, b] of pairs) assertNotEquals(displayCommand(a), displayCommand(b), `${a} vs ${b}`);
});

Deno.test("whitespace outside quotes collapses; the display is one line and bounded", () => {
  assertEquals(displayCommand("  npm   test  --  -x "), "npm test -- -x");
  assertEquals(displayCommand("cd app &&\n  npm test"), "cd app && ⏎ npm test");
  assertEquals(displayCommand("grep 'x\ty' f"), "grep 'x\\ty' f");
  assertEquals(displayCommand('echo "a  b"'), 'echo "a  b"');
  assertEquals(displayCommand(`echo ${"x".repeat(100)}`).length, 80);
  assertEquals(displayCommand("a\n\n\nb").includes("\n"), false);
});

Deno.test("displayCommand of any command is the head of its whole display (surrogates too)", () => {
  const piece = fc.constantFrom(
    "a",
    " ",
    "\n",
    "\t",
    "'",
    '"',
    "\\",
    "é",
    "\ud83d\ude00",
    "\ud800",
  );
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 60 }), fc.integer({ min: 1, max: 12 }), (p, max) => {
      const command = p.join("");
      const whole = Array.from(displayCommand(command, 1_000_000));
      const expected = whole.length <= max
        ? whole.join("")
        : `${whole.slice(0, max - 1).join("")}…`;
      assertEquals(displayCommand(command, max), expected, JSON.stringify([command, max]));
    }),
    { numRuns: 2000 },
  );
});

Deno.test("displayCommand of an 8 MB command line fits in a 48 MB heap", async () => {
  // It built the whole display before cutting it to 80 characters: one rope node per character.
  const module = new URL("../../../lib/core/jobs/command_display.ts", import.meta.url).href;
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      "--v8-flags=--max-old-space-size=48",
      `import { displayCommand } from ${JSON.stringify(module)};
       console.log(displayCommand("true " + "x".repeat(8_000_000)).length);`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  assertEquals(code, 0, dec.decode(stderr).slice(0, 500));
  assertEquals(dec.decode(stdout).trim(), "80");
});
