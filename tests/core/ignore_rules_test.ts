import { assertEquals } from "../_assert.ts";
import { IgnoreChain } from "../../lib/core/ignore_rules.ts";

Deno.test("deeper ignore files win over shallower ones, negations included", () => {
  const chain = IgnoreChain.EMPTY.with("/r", "*.log\nbuild/\n!keep.log\n").with(
    "/r/sub",
    "!*.log\nsecret\n",
  );
  const cases: [string, boolean, boolean][] = [
    ["/r/a.log", false, true],
    ["/r/keep.log", false, false],
    ["/r/build", true, true],
    ["/r/build", false, false],
    ["/r/sub/a.log", false, false],
    ["/r/sub/secret", false, true],
    ["/r/other/secret", false, false],
  ];
  for (const [path, isDir, ignored] of cases) {
    assertEquals(chain.ignores(path, isDir), ignored, `${path} dir=${isDir}`);
  }
});

Deno.test("an ignore file with only comments adds no level", () => {
  assertEquals(IgnoreChain.EMPTY.with("/r", "# nothing\n\n").size, 0);
});
