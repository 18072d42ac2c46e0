// shell_quote.ts (pure): plain paths stay bare, the rest is single-quoted.

import { assertEquals } from "../../_assert.ts";
import { shellQuote } from "../../../lib/core/shell/shell_quote.ts";

Deno.test("shellQuote leaves plain paths bare and single-quotes the rest", () => {
  const cases: [string, string][] = [
    ["src/main.ts", "src/main.ts"],
    ["/var/log/big.log", "/var/log/big.log"],
    ["~/notes.txt", "~/notes.txt"],
    ["a~b", "a~b"],
    ["~bob/x", "'~bob/x'"],
    ["my file", "'my file'"],
    ["it's", `'it'\\''s'`],
    ["$(rm -rf /)", "'$(rm -rf /)'"],
    ["", "''"],
  ];
  for (const [input, quoted] of cases) assertEquals(shellQuote(input), quoted, input);
});
