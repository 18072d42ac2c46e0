// The shell policy for cmd.exe and PowerShell (pure): Windows refusals use bash's headlines and
// hand findstr, dir /s, Get-Content and the like over to view.

import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { judgeCommand } from "../../../lib/core/shell/policy/mod.ts";
import { type PolicyRule, RULE_TEXTS } from "../../../lib/core/shell/policy/policy_messages.ts";
import type { ShellKind } from "../../../lib/core/platform/platform.ts";
import { type PathRules, POSIX_PATHS, WINDOWS_PATHS } from "../../../lib/core/path/path_rules.ts";

type Expected = "allowed" | PolicyRule;

// [shell, command line, expected verdict]: the Windows equivalents as a table.
const CASES: [ShellKind, string, Expected][] = [
  // --- cmd.exe: read_file ---
  ["cmd", "type src\\app.ts", "read_file"],
  ["cmd", 'type "C:\\Program Files\\app\\config.ini"', "read_file"],
  ["cmd", "type a.txt b.txt > both.txt", "allowed"],
  ["cmd", "type nul > empty.txt", "allowed"],
  ["cmd", "TYPE README.md", "read_file"],
  ["cmd", "more notes.txt", "read_file"],
  ["cmd", "more < notes.txt", "read_file"],
  ["cmd", "git log | more", "allowed"],
  ["cmd", "echo hi && type build.log", "read_file"],
  // --- cmd.exe: search_text ---
  ["cmd", "findstr /s /i TODO *.ts", "search_text"],
  ["cmd", "findstr /n parseConfig src\\app.ts", "search_text"],
  ["cmd", 'findstr /c:"hello world" notes.txt', "search_text"],
  ["cmd", "git status | findstr modified", "allowed"],
  ["cmd", "findstr TODO src\\app.ts > todo.txt", "allowed"],
  ["cmd", "findstr x < input.txt", "search_text"],
  // --- cmd.exe: list_files ---
  ["cmd", "dir /s /b", "list_files"],
  ["cmd", "dir /s src\\*.ts", "list_files"],
  ["cmd", "dir", "list_files"],
  ["cmd", "dir /b > files.txt", "allowed"],
  ["cmd", "tree /f", "list_files"],
  // --- cmd.exe: sleep, never ends, allowed ---
  ["cmd", "timeout /t 30", "bare_sleep"],
  ["cmd", "timeout /t 5 && echo later", "bare_sleep"],
  ["cmd", "for /l %i in (1,1,30) do (if exist done.txt exit 0) & timeout /t 2", "allowed"],
  ["cmd", "ping -t example.com", "never_ends"],
  ["cmd", "ping -n 3 example.com", "allowed"],
  ["cmd", "cargo build && cargo test", "allowed"],
  ["cmd", "npm run build 2>&1", "allowed"],
  ["cmd", "echo ^& type x", "allowed"],
  ["cmd", 'echo "a & type x"', "allowed"],
  ["cmd", 'echo "unclosed', "parse_error"],
  // --- PowerShell: read_file ---
  ["powershell", "Get-Content src\\app.ts", "read_file"],
  ["powershell", "gc -Path .\\README.md -TotalCount 20", "read_file"],
  ["pwsh", "Get-Content build.log -Tail 50", "read_file"],
  ["pwsh", "cat notes.txt", "read_file"],
  ["pwsh", "type notes.txt", "read_file"],
  ["pwsh", "Get-Content app.log -Wait", "never_ends"],
  ["pwsh", "Get-Content a.txt | Set-Content b.txt", "allowed"],
  ["pwsh", "Get-Content a.txt > b.txt", "allowed"],
  ["pwsh", "more notes.txt", "read_file"],
  ["pwsh", "git log | more", "allowed"],
  // --- PowerShell: search_text ---
  ["pwsh", "Select-String -Pattern TODO -Path src\\*.ts", "search_text"],
  ["pwsh", "Select-String TODO notes.txt", "search_text"],
  ["pwsh", "sls -SimpleMatch 'a.b' -Path config.ini", "search_text"],
  ["pwsh", "git status | Select-String modified", "allowed"],
  ["pwsh", "Get-ChildItem -Recurse -Filter *.ts | Select-String TODO", "list_files"],
  // --- PowerShell: list_files ---
  ["pwsh", "Get-ChildItem -Recurse", "list_files"],
  ["pwsh", "gci -r -Filter *.cs src", "list_files"],
  ["pwsh", "Get-ChildItem", "list_files"],
  ["pwsh", "ls src", "list_files"],
  ["pwsh", "Get-ChildItem -Recurse | Out-File files.txt", "allowed"],
  // --- PowerShell: sleep and allowed ---
  ["pwsh", "Start-Sleep -Seconds 30", "bare_sleep"],
  ["pwsh", "Start-Sleep 2; Invoke-WebRequest http://localhost:8080", "bare_sleep"],
  ["pwsh", "while (-not (Test-Path done.txt)) { Start-Sleep 2 }", "allowed"],
  ["pwsh", "sleep 5", "bare_sleep"],
  ["pwsh", "dotnet test; if ($LASTEXITCODE) { exit 1 }", "allowed"],
  ["pwsh", "Write-Output 'Get-Content x'", "allowed"],
  ["pwsh", 'Write-Output "a; gc x"', "allowed"],
];

for (const [shell, command, expected] of CASES) {
  Deno.test(`judgeCommand(${shell}): ${JSON.stringify(command)} is ${expected}`, () => {
    const verdict = judgeCommand(command, shell);
    assertEquals(
      verdict.allowed ? "allowed" : verdict.rule,
      expected,
      verdict.allowed ? "" : verdict.message,
    );
  });
}

Deno.test("Windows refusals use the same headline, replacement call and allowed list as bash's", () => {
  const verdict = judgeCommand("type src\\app.ts", "cmd");
  assert(!verdict.allowed);
  assert(verdict.message.startsWith(RULE_TEXTS.read_file.headline), verdict.message);
  assertStringIncludes(verdict.message, "Refused command: `type src\\app.ts`");
  assertStringIncludes(verdict.message, 'view {"path": "src\\\\app.ts"}');
  assert(verdict.message.endsWith(RULE_TEXTS.read_file.allowed), verdict.message);
});

Deno.test("findstr and Select-String hand over view with content, regex and a glob pattern", () => {
  const cmd = judgeCommand("findstr /s /i TODO *.ts", "cmd");
  assert(!cmd.allowed);
  assertStringIncludes(
    cmd.message,
    'view {"path": ".", "content": "(?i)TODO", "regex": true, "pattern": "**/*.ts"}',
  );
  const ps = judgeCommand("sls -SimpleMatch 'a.b' -Path config.ini", "pwsh");
  assert(!ps.allowed);
  assertStringIncludes(ps.message, 'view {"path": "config.ini", "content": "a.b", "regex": false}');
});

Deno.test("dir /s and Get-ChildItem -Recurse hand over view with a ** pattern", () => {
  const dir = judgeCommand("dir /s src\\*.ts", "cmd");
  assert(!dir.allowed);
  assertStringIncludes(dir.message, 'view {"path": "src", "pattern": "**/*.ts"}');
  const gci = judgeCommand("gci -r -Filter *.cs src", "pwsh");
  assert(!gci.allowed);
  assertStringIncludes(gci.message, 'view {"path": "src", "pattern": "**/*.cs"}');
});

Deno.test("Get-Content -Tail and -TotalCount become view start/end", () => {
  const tail = judgeCommand("Get-Content build.log -Tail 50", "pwsh");
  assert(!tail.allowed);
  assertStringIncludes(tail.message, 'view {"path": "build.log", "start": -50}');
  const head = judgeCommand("gc -Path .\\README.md -TotalCount 20", "powershell");
  assert(!head.allowed);
  assertStringIncludes(head.message, 'view {"path": "README.md", "start": 1, "end": 20}');
});

Deno.test("bash lines are still judged by the bash rules when the shell is bash or sh", () => {
  assertEquals(judgeCommand("cat src/app.ts", "sh").allowed, false);
  assertEquals(judgeCommand("type src/app.ts", "bash").allowed, true);
});

/** The view calls a refusal offers, parsed back from its message. */
function offeredPaths(command: string, shell: ShellKind, paths?: PathRules): string[] {
  const verdict = judgeCommand(command, shell, paths ? { paths } : {});
  assert(!verdict.allowed, command);
  // The search refusal's ssh example (view works on ssh:// hosts too) is no offered path.
  return [...verdict.message.matchAll(/view (\{.*\})/g)].map((m) => JSON.parse(m[1]!).path)
    .filter((p) => !p.startsWith("ssh://devbox/"));
}

Deno.test("a Windows refusal names the literal files it reads, joined with a cd; none for globs or variables", () => {
  const files = (command: string, shell: ShellKind = "cmd") => {
    const v = judgeCommand(command, shell);
    return v.allowed ? "allowed" : v.files;
  };
  assertEquals(files("type a.txt b.txt"), ["a.txt", "b.txt"]);
  assertEquals(files("cd /d C:\\src && type a.txt"), ["C:\\src\\a.txt"]);
  assertEquals(files("cd logs && more app.log"), ["logs\\app.log"]);
  assertEquals(files("more < in.log"), ["in.log"]);
  assertEquals(files('findstr /n /l /c:"TEXT" "big.log"'), ["big.log"]);
  assertEquals(files('dir "big.log"'), ["big.log"]);
  assertEquals(files("type *.txt"), undefined);
  assertEquals(files("type %LOG%"), undefined);
  assertEquals(files("findstr /s x big.log"), undefined); // /s: every big.log below, not one file
  assertEquals(files("Get-Content .\\a.txt -TotalCount 5", "pwsh"), ["a.txt"]);
  assertEquals(files("Set-Location C:\\src; gc a.txt", "powershell"), ["C:\\src\\a.txt"]);
  assertEquals(files("Select-String TODO notes.txt", "pwsh"), ["notes.txt"]);
  assertEquals(files("gc $f", "pwsh"), undefined);
});

Deno.test("cmd: type, more, findstr and dir on files anchorfs cannot read are the shell's", () => {
  const outside = new Set(["big.log", "logs\\app.log", "C:\\data\\dump.bin", "pipe"]);
  const judge = (command: string) => judgeCommand(command, "cmd", { outside });
  for (
    const command of [
      "type big.log",
      "more big.log",
      "more < big.log",
      'findstr /n /l /c:"TEXT" "big.log"',
      "findstr /n FAIL big.log",
      'dir "pipe"',
      "cd logs && type app.log",
      "cd /d C:\\data && findstr /n x dump.bin",
      'type "C:\\data\\dump.bin" | findstr x',
    ]
  ) assertEquals(judge(command).allowed, true, command);
  for (
    const command of [
      "type big.log small.txt", // one file view can read
      "type app.log", // not the file found: logs\app.log was
      "type big.log && type small.txt", // the next command is judged on its own
      "findstr /s /n x big.log", // a recursive search names no single file
      "dir",
      "type *.log",
    ]
  ) assertEquals(judge(command).allowed, false, command);
});

Deno.test("PowerShell: Get-Content, gc, cat, type, Select-String, sls on files anchorfs cannot read are the shell's", () => {
  const outside = new Set(["big.log", "C:\\logs\\app.log"]);
  const judge = (command: string) => judgeCommand(command, "powershell", { outside });
  for (
    const command of [
      "Get-Content -LiteralPath 'big.log' -TotalCount 200",
      "gc big.log -Tail 20",
      "cat big.log",
      "type .\\big.log",
      "Select-String -LiteralPath 'big.log' -Pattern 'TEXT' -SimpleMatch -CaseSensitive | " +
      "Select-Object -First 100",
      "sls FAIL big.log",
      "more big.log",
      "Get-ChildItem big.log",
      "cd C:\\logs; Get-Content app.log",
      "Set-Location -Path C:\\logs; sls x app.log",
    ]
  ) assertEquals(judge(command).allowed, true, command);
  for (
    const command of [
      "Get-Content small.txt",
      "Get-Content app.log", // C:\logs\app.log was found, not this one
      "gc big.log -Wait", // never ends: refused for its own reason
      "Select-String x big.log, small.txt",
      "gc $path",
    ]
  ) assertEquals(judgeCommand(command, "pwsh", { outside }).allowed, false, command);
});

Deno.test("suggested view paths are Windows paths: a cd is followed, .\\ dropped, .. kept", () => {
  assertEquals(offeredPaths("cd C:\\src && type a.txt", "cmd"), ["C:\\src\\a.txt"]);
  assertEquals(offeredPaths("cd /d D:\\work && more notes.txt", "cmd"), ["D:\\work\\notes.txt"]);
  assertEquals(offeredPaths("type ..\\x\\a.txt", "cmd"), ["..\\x\\a.txt"]);
  assertEquals(offeredPaths("Get-Content .\\a.txt", "pwsh"), ["a.txt"]);
  assertEquals(offeredPaths("cd C:\\src && cd ..\\other && type a.txt", "cmd"), [
    "C:\\other\\a.txt",
  ]);
  assertEquals(offeredPaths("cd sub && type a.txt b.txt", "cmd"), ["sub\\a.txt", "sub\\b.txt"]);
  assertEquals(offeredPaths("cd C:\\src && type D:\\x.txt", "cmd"), ["D:\\x.txt"]);
  assertEquals(offeredPaths("pushd \\\\srv\\share && type a.txt", "cmd"), [
    "\\\\srv\\share\\a.txt",
  ]);
  assertEquals(offeredPaths("cd C:\\src && findstr /n foo lib\\*.ts", "cmd"), ["C:\\src\\lib"]);
  assertEquals(offeredPaths("cd C:\\src && dir", "cmd"), ["C:\\src"]);
  assertEquals(offeredPaths("Set-Location C:\\src; Select-String TODO lib\\*.ps1", "pwsh"), [
    "C:\\src\\lib",
  ]);
  assertEquals(offeredPaths("sl -Path C:\\src; gci -Recurse", "powershell"), ["C:\\src"]);
  // A cd whose target is only known at run time is not followed.
  assertEquals(offeredPaths("cd %TEMP% && type a.txt", "cmd"), ["a.txt"]);
});

Deno.test("bash on a Windows machine (Git Bash) joins a cd by the Windows rules it is given", () => {
  assertEquals(offeredPaths("cd C:/src && cat a.txt", "bash", WINDOWS_PATHS), ["C:\\src\\a.txt"]);
  assertEquals(offeredPaths("cd sub && cat C:/x/a.txt", "bash", WINDOWS_PATHS), ["C:\\x\\a.txt"]);
  assertEquals(offeredPaths("cd C:/src && head -5 *.md", "bash", WINDOWS_PATHS), ["C:\\src"]);
  // POSIX rules (an ssh host, Linux, macOS): as before.
  assertEquals(offeredPaths("cd /srv && cat ./a.txt", "bash", POSIX_PATHS), ["/srv/a.txt"]);
  assertEquals(offeredPaths("cd sub && cat a.txt", "bash"), ["sub/a.txt"]);
});
