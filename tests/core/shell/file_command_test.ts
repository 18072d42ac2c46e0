// Every hint intent written for every shell dialect, and each dialect's quoting of the awkward
// characters (spaces, both quotes, %, &). The POSIX lines are also run by bash here; the cmd and
// PowerShell lines are decided, not run (no Windows shell on this machine).

import { assertEquals } from "../../_assert.ts";
import {
  cmdQuote,
  fileCommand,
  type FileIntent,
  powerShellQuote,
  shellDialect,
} from "../../../lib/core/shell/file_command.ts";
import { tempDir } from "../../_harness.ts";
import { needing } from "../../_requires.ts";

const describe: FileIntent = { kind: "describe" };
const head: FileIntent = { kind: "head", lines: 200 };
const word: FileIntent = { kind: "search", text: "TEXT", max: 100, match: "word" };
const literal = (text: string): FileIntent => ({
  kind: "search",
  text,
  max: 100,
  match: "literal",
});
const regex = (text: string): FileIntent => ({ kind: "search", text, max: 100, match: "regex" });

Deno.test("shellDialect: bash and sh are POSIX, cmd is cmd, powershell and pwsh are PowerShell", () => {
  assertEquals(shellDialect("bash"), "posix");
  assertEquals(shellDialect("sh"), "posix");
  assertEquals(shellDialect("cmd"), "cmd");
  assertEquals(shellDialect("powershell"), "powershell");
  assertEquals(shellDialect("pwsh"), "powershell");
});

// [intent, file, POSIX, cmd, PowerShell]
const CASES: [FileIntent, string, string, string, string][] = [
  [
    { kind: "remove" },
    "C:\\x\\it's 100% big.log",
    "rm -- 'C:\\x\\it'\\''s 100% big.log'",
    'del "C:\\x\\it\'s 100% big.log"',
    "Remove-Item -LiteralPath 'C:\\x\\it''s 100% big.log'",
  ],
  [
    describe,
    "C:\\x\\big.log",
    "ls -l 'C:\\x\\big.log'",
    'dir "C:\\x\\big.log"',
    "Get-Item -LiteralPath 'C:\\x\\big.log'",
  ],
  [
    head,
    "big.log",
    "sed -n '1,200p' big.log",
    `powershell -NoProfile -Command "Get-Content -LiteralPath 'big.log' -TotalCount 200"`,
    "Get-Content -LiteralPath 'big.log' -TotalCount 200",
  ],
  [
    word,
    "logs\\a b.log",
    "grep -n -m 100 -e TEXT 'logs\\a b.log'",
    'findstr /n /l /c:"TEXT" "logs\\a b.log"',
    "Select-String -LiteralPath 'logs\\a b.log' -Pattern 'TEXT' -SimpleMatch -CaseSensitive | Select-Object -First 100",
  ],
  [
    literal("a & b"),
    "R&D\\x.log",
    "grep -nF -m 100 -e 'a & b' 'R&D\\x.log'",
    'findstr /n /l /c:"a & b" "R&D\\x.log"',
    "Select-String -LiteralPath 'R&D\\x.log' -Pattern 'a & b' -SimpleMatch -CaseSensitive | Select-Object -First 100",
  ],
  // A single quote: bash closes and escapes it, PowerShell doubles it, cmd needs nothing.
  [
    literal("it's"),
    "Bob's\\x.log",
    `grep -nF -m 100 -e 'it'\\''s' 'Bob'\\''s\\x.log'`,
    `findstr /n /l /c:"it's" "Bob's\\x.log"`,
    "Select-String -LiteralPath 'Bob''s\\x.log' -Pattern 'it''s' -SimpleMatch -CaseSensitive | Select-Object -First 100",
  ],
  // A double quote or a backslash: findstr reads both as escapes, find takes "" for a quote.
  [
    literal('say "hi"'),
    "x.log",
    `grep -nF -m 100 -e 'say "hi"' x.log`,
    'find /n "say ""hi""" "x.log"',
    `Select-String -LiteralPath 'x.log' -Pattern 'say "hi"' -SimpleMatch -CaseSensitive | Select-Object -First 100`,
  ],
  [
    literal("C:\\tmp"),
    "x.log",
    "grep -nF -m 100 -e 'C:\\tmp' x.log",
    'find /n "C:\\tmp" "x.log"',
    "Select-String -LiteralPath 'x.log' -Pattern 'C:\\tmp' -SimpleMatch -CaseSensitive | Select-Object -First 100",
  ],
  // One % expands nothing on a cmd line; a pair could (%PATH%): each % goes outside the quotes.
  [
    literal("100%"),
    "x.log",
    "grep -nF -m 100 -e 100% x.log",
    'findstr /n /l /c:"100%" "x.log"',
    "Select-String -LiteralPath 'x.log' -Pattern '100%' -SimpleMatch -CaseSensitive | Select-Object -First 100",
  ],
  [
    literal("%PATH%"),
    "50%\\%x%.log",
    "grep -nF -m 100 -e %PATH% '50%\\%x%.log'",
    'findstr /n /l /c:""%"PATH"%"" "50"%"\\"%"x"%".log"',
    "Select-String -LiteralPath '50%\\%x%.log' -Pattern '%PATH%' -SimpleMatch -CaseSensitive | Select-Object -First 100",
  ],
  // A regex: grep -P; cmd hands it to PowerShell (findstr's syntax lacks + | groups \d).
  [
    regex("need+le|x\\d"),
    "a b.log",
    "grep -nP -m 100 -e 'need+le|x\\d' 'a b.log'",
    `powershell -NoProfile -Command "Select-String -LiteralPath 'a b.log' -Pattern 'need+le|x\\d' -CaseSensitive | Select-Object -First 100"`,
    "Select-String -LiteralPath 'a b.log' -Pattern 'need+le|x\\d' -CaseSensitive | Select-Object -First 100",
  ],
  [
    regex('"(\\w+)"'),
    "x.log",
    `grep -nP -m 100 -e '"(\\w+)"' x.log`,
    `powershell -NoProfile -Command "Select-String -LiteralPath 'x.log' -Pattern '\\x22(\\w+)\\x22' -CaseSensitive | Select-Object -First 100"`,
    `Select-String -LiteralPath 'x.log' -Pattern '"(\\w+)"' -CaseSensitive | Select-Object -First 100`,
  ],
];

for (const [intent, file, posix, cmd, powershell] of CASES) {
  Deno.test(`fileCommand ${JSON.stringify(intent)} on ${JSON.stringify(file)}`, () => {
    assertEquals(fileCommand(intent, file, "posix"), posix);
    assertEquals(fileCommand(intent, file, "cmd"), cmd);
    assertEquals(fileCommand(intent, file, "powershell"), powershell);
  });
}

Deno.test("cmdQuote: double quotes, a quote doubled, a % pair kept from expanding", () => {
  assertEquals(
    cmdQuote("C:\\Program Files\\a&b^c|d<e>f.txt"),
    '"C:\\Program Files\\a&b^c|d<e>f.txt"',
  );
  assertEquals(cmdQuote('a"b'), '"a""b"');
  assertEquals(cmdQuote("5%"), '"5%"');
  assertEquals(cmdQuote("%USERPROFILE%\\x"), '""%"USERPROFILE"%"\\x"');
});

Deno.test("powerShellQuote: single quotes, every kind of single quote doubled, nothing expands", () => {
  assertEquals(powerShellQuote('$HOME\\`x` "y"'), "'$HOME\\`x` \"y\"'");
  assertEquals(powerShellQuote("it's"), "'it''s'");
  assertEquals(
    powerShellQuote("it\u2019s \u2018q\u2019"),
    "'it\u2019\u2019s \u2018\u2018q\u2019\u2019'",
  );
});

Deno.test(
  needing("bash")("the POSIX lines run in bash and do what the intent says", async () => {
    await using dir = await tempDir();
    const name = "it's 100% a & b.log";
    const lines = ["FAIL first", ...Array.from({ length: 300 }, (_, i) => `line ${i + 2}`)];
    lines.push('say "hi" and it\'s need+le here', "needle");
    await Deno.writeTextFile(`${dir.path}/${name}`, lines.join("\n") + "\n");
    const run = async (intent: FileIntent) => {
      const command = fileCommand(intent, name, "posix");
      const out = await new Deno.Command("bash", { args: ["-c", command], cwd: dir.path }).output();
      assertEquals(out.code, 0, command);
      return new TextDecoder().decode(out.stdout);
    };
    assertEquals((await run(describe)).includes(name), true);
    const first = (await run(head)).split("\n");
    assertEquals([first[0], first[199], first.length], ["FAIL first", "line 200", 201]);
    assertEquals(await run(literal("it's need+le")), '302:say "hi" and it\'s need+le here\n');
    assertEquals(await run(literal('"hi"')), '302:say "hi" and it\'s need+le here\n');
    assertEquals(await run(regex("^need+le$")), "303:needle\n");
    assertEquals(
      await run({ kind: "search", text: "FAIL", max: 50, match: "word" }),
      "1:FAIL first\n",
    );
    await run({ kind: "remove" });
    assertEquals(await Deno.stat(`${dir.path}/${name}`).catch(() => null), null, "removed");
  }),
);
