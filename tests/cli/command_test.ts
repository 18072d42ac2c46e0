// The CLI's argument parser (lib/cli/command.ts): option values that look like negative numbers,
// one-line parse errors, and `anchorfs view --start -3` run through the real CLI entry.

import { assertEquals, assertThrows } from "../_assert.ts";
import { parseCommandArgs, UsageError } from "../../lib/cli/command.ts";
import { runCliProcess, tempDir, writeTree } from "../_harness.ts";

const options = {
  start: { type: "string" },
  end: { type: "string" },
  regex: { type: "boolean" },
} as const;

function usage(args: string[]): string {
  const e = assertThrows(() => parseCommandArgs(args, options));
  assertEquals(e instanceof UsageError, true);
  return (e as Error).message;
}

Deno.test("a negative number after an option that takes a value is its value", () => {
  const { values, positionals } = parseCommandArgs(
    ["f.txt", "--start", "-5", "--end", "-1"],
    options,
  );
  assertEquals(values.start, "-5");
  assertEquals(values.end, "-1");
  assertEquals(positionals, ["f.txt"]);
  // After "--" everything is positional, as written.
  assertEquals(parseCommandArgs(["--", "--start", "-5"], options).positionals, ["--start", "-5"]);
});

Deno.test("parse errors are one line that says what to change", () => {
  assertEquals(
    usage(["-x"]),
    'unknown option "-x" (an argument that starts with "-" goes after "--")',
  );
  assertEquals(
    usage(["--bogus"]),
    'unknown option "--bogus" (an argument that starts with "-" goes after "--")',
  );
  assertEquals(
    usage(["--start", "-foo"]),
    'option "--start" got a value starting with "-"; write it as --start=VALUE',
  );
  assertEquals(usage(["--start"]), 'option "--start" needs a value');
});

Deno.test("anchorfs view --start -3 reads the last lines", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "f.txt": "1\n2\n3\n4\n5\n" });
  const r = await runCliProcess(["view", "f.txt", "--start", "-2"], { cwd: dir.path });
  assertEquals(r.code, 0, r.stderr);
  assertEquals(r.stdout.split("\n").filter((l) => /^\d+:/.test(l)).map((l) => l.slice(-1)), [
    "4",
    "5",
  ]);
});
