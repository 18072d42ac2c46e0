// usage_text.ts (pure): node:util parseArgs errors said one way, lowercase with the option quoted.

import { parseArgs } from "node:util";
import { assertEquals } from "../_assert.ts";
import { type ParseArgsFailure, parseArgsMessage } from "../../lib/core/usage_text.ts";

/** The message for `args` under a small spec, as node:util's parseArgs fails on it. */
function messageFor(args: string[], positionals: boolean): string {
  try {
    parseArgs({
      args,
      options: { path: { type: "string", short: "p" }, roots: { type: "boolean", short: "r" } },
      strict: true,
      allowPositionals: positionals,
    });
  } catch (e) {
    return parseArgsMessage(e as ParseArgsFailure, positionals);
  }
  throw new Error(`parsed: ${args.join(" ")}`);
}

Deno.test("parseArgs errors are said one way: lowercase, the option in double quotes", () => {
  const cases: [string[], boolean, string][] = [
    [["--pth"], false, 'unknown option "--pth"'],
    [["--pth"], true, 'unknown option "--pth" (an argument that starts with "-" goes after "--")'],
    [["-x"], false, 'unknown option "-x"'],
    [["--path"], false, 'option "--path" needs a value'],
    [["-p"], false, 'option "--path" needs a value'],
    [["--roots=yes"], false, 'option "--roots" takes no value'],
    [["/srv/app"], false, 'unexpected argument "/srv/app"'],
    [
      ["--path", "--roots"],
      false,
      'option "--path" got a value starting with "-"; write it as --path=VALUE',
    ],
  ];
  for (const [args, positionals, message] of cases) {
    assertEquals(messageFor(args, positionals), message, args.join(" "));
  }
});

Deno.test("an unforeseen parseArgs error keeps its first line, lowercased", () => {
  assertEquals(parseArgsMessage({ message: "Something new\nmore" }, false), "something new");
});
