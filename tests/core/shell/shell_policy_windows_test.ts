import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { judgeCommand } from "../../../lib/core/shell/policy/mod.ts";
import { type PolicyRule, RULE_TEXTS } from "../../../lib/core/shell/policy/policy_messages.ts";
import type { ShellKind } from "../../../lib/core/platform/platform.ts";

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
