import { assertEquals, assertNotEquals } from "../../_assert.ts";
import { commandKey, normalizeCommand } from "../../../lib/core/jobs/command_key.ts";

Deno.test("normalizeCommand collapses whitespace outside quotes only", () => {
  const cases: [string, string][] = [
    ["  make   test  ", "make test"],
    ["make\ttest\n", "make test"],
    ["echo 'a   b'   c", "echo 'a   b' c"],
    ['echo "x  \\"  y"   z', 'echo "x  \\"  y" z'],
    ["a\\  b", "a\\  b"],
    ["", ""],
  ];
  for (const [input, expected] of cases) assertEquals(normalizeCommand(input), expected, input);
});

Deno.test("commandKey differs by directory and by command, not by spacing", () => {
  assertEquals(commandKey("make  test", "/a"), commandKey(" make test", "/a"));
  assertNotEquals(commandKey("make test", "/a"), commandKey("make test", "/b"));
  assertNotEquals(commandKey("make test", "/a"), commandKey("make tests", "/a"));
});

Deno.test("commandKey folds the directory's case only where paths ignore case", () => {
  assertNotEquals(commandKey("make", "/Src/App"), commandKey("make", "/src/app"));
  assertEquals(commandKey("make", "/Src/App", true), commandKey("make", "/src/app", true));
  // The command keeps its case either way: `make Test` is another target.
  assertNotEquals(commandKey("make Test", "/a", true), commandKey("make test", "/a", true));
});
