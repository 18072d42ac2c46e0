import { assertEquals, assertNotEquals } from "../../_assert.ts";
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
