// file_shell_step.ts (pure): the shell step that runs a file, quoted for the session's shell, local
// or on an ssh:// host.

import { assertEquals } from "../../_assert.ts";
import { fileShellDialect, shellStepForFile } from "../../../lib/core/shell/file_shell_step.ts";
import type { FileIntent } from "../../../lib/core/shell/file_command.ts";

const grep: FileIntent = { kind: "search", text: "TEXT", max: 100, match: "word" };

Deno.test("shellStepForFile quotes a local path as one shell word", () => {
  assertEquals(shellStepForFile("/srv/app/big.log", grep).args, {
    command: "grep -n -m 100 -e TEXT /srv/app/big.log",
  });
  assertEquals(shellStepForFile("/tmp/state dir's/log", grep).args, {
    command: `grep -n -m 100 -e TEXT '/tmp/state dir'\\''s/log'`,
  });
  // A path relative to the session's directory stays relative: the shell runs there.
  assertEquals(shellStepForFile("logs/a b.log", grep).args, {
    command: "grep -n -m 100 -e TEXT 'logs/a b.log'",
  });
});

Deno.test("shellStepForFile writes a local file's call for the session's shell", () => {
  assertEquals(shellStepForFile("C:\\logs\\a b.log", grep, "cmd").args, {
    command: 'findstr /n /l /c:"TEXT" "C:\\logs\\a b.log"',
  });
  assertEquals(shellStepForFile("logs\\it's.log", grep, "powershell").args, {
    command: "Select-String -LiteralPath 'logs\\it''s.log' -Pattern 'TEXT' -SimpleMatch " +
      "-CaseSensitive | Select-Object -First 100",
  });
  assertEquals(shellStepForFile("a.log", { kind: "describe" }, "pwsh").args, {
    command: "Get-Item -LiteralPath 'a.log'",
  });
  assertEquals(shellStepForFile("a.log", { kind: "describe" }, "sh").args, {
    command: "ls -l a.log",
  });
  assertEquals(fileShellDialect("C:\\a.log", "cmd"), "cmd");
  assertEquals(fileShellDialect("ssh://box/a.log", "cmd"), "posix");
  assertEquals(fileShellDialect("a.log"), "posix");
});

Deno.test("shellStepForFile runs on the host for an ssh:// file, with the host's own path", () => {
  assertEquals(shellStepForFile("ssh://box/var/log/app 1.log", grep), {
    tool: "shell",
    args: { command: "grep -n -m 100 -e TEXT '/var/log/app 1.log'", cwd: "ssh://box/var/log" },
  });
  // Whatever the local shell: the host runs bash.
  for (const shell of ["cmd", "powershell", "pwsh"] as const) {
    assertEquals(shellStepForFile("ssh://deploy@box:2222/srv/x.log", grep, shell).args, {
      command: "grep -n -m 100 -e TEXT /srv/x.log",
      cwd: "ssh://deploy@box:2222/srv",
    });
  }
  // sftp:// names the same host; the shell runs over ssh. "~/x" stays the remote home.
  assertEquals(shellStepForFile("sftp://box/~/notes.txt", { kind: "head", lines: 200 }).args, {
    command: "sed -n '1,200p' ~/notes.txt",
    cwd: "ssh://box/~",
  });
  assertEquals(shellStepForFile("ssh://box/big.log", { kind: "describe" }, "cmd").args, {
    command: "ls -l /big.log",
    cwd: "ssh://box/",
  });
});
