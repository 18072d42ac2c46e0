// command_key.ts (pure): the duplicate-job key normalizes whitespace outside quotes and folds the
// directory's case only where paths ignore case; property tests, and an 8 MB line in a small heap.

import { assertEquals, assertNotEquals } from "../../_assert.ts";
import fc from "fast-check";
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

/** The character-by-character definition normalizeCommand had first: the reference. */
function normalizeOneByOne(command: string): string {
  let out = "";
  let quote: "'" | '"' | undefined;
  let pendingSpace = false;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!;
    if (quote) {
      out += ch;
      if (ch === "\\" && quote === '"' && i + 1 < command.length) out += command[++i];
      else if (ch === quote) quote = undefined;
      continue;
    }
    if (/\s/.test(ch)) {
      pendingSpace = out.length > 0;
      continue;
    }
    if (pendingSpace) out += " ";
    pendingSpace = false;
    out += ch;
    if (ch === "\\" && i + 1 < command.length) out += command[++i];
    else if (ch === "'" || ch === '"') quote = ch;
  }
  return out;
}

Deno.test("normalizeCommand agrees with the one-character-at-a-time definition", () => {
  const alphabet = fc.constantFrom(
    "a",
    "z",
    " ",
    "  ",
    "\t",
    "\n",
    "\u00a0",
    "\u3000",
    "'",
    '"',
    "\\",
    "é",
    "\ud83d\ude00",
    "\ud800",
  );
  fc.assert(
    fc.property(fc.array(alphabet, { maxLength: 40 }), (parts) => {
      const command = parts.join("");
      assertEquals(normalizeCommand(command), normalizeOneByOne(command), JSON.stringify(command));
    }),
    { numRuns: 2000 },
  );
});

Deno.test("normalizeCommand of an 8 MB command line fits in a 48 MB heap", async () => {
  // Appending one character at a time kept a rope node per character alive (~65 bytes each):
  // a 2 MB command cost the server 130 MB per shell call, and this run died out of memory.
  const module = new URL("../../../lib/core/jobs/command_key.ts", import.meta.url).href;
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      "--v8-flags=--max-old-space-size=48",
      `import { normalizeCommand } from ${JSON.stringify(module)};
       const words = normalizeCommand("true " + "x".repeat(8_000_000) + "  y 'a  b'");
       console.log(words.length);`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  assertEquals(code, 0, dec.decode(stderr).slice(0, 500));
  assertEquals(dec.decode(stdout).trim(), String(5 + 8_000_000 + 9));
});
