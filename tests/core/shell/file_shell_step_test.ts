import { assertEquals } from "../../_assert.ts";
import { shellStepForFile } from "../../../lib/core/shell/file_shell_step.ts";

const grep = (file: string) => `grep -n -e TEXT ${file}`;

Deno.test("shellStepForFile quotes a local path as one shell word", () => {
  assertEquals(shellStepForFile("/srv/app/big.log", grep).args, {
    command: "grep -n -e TEXT /srv/app/big.log",
  });
  assertEquals(shellStepForFile("/tmp/state dir's/log", grep).args, {
    command: `grep -n -e TEXT '/tmp/state dir'\\''s/log'`,
  });
  // A path relative to the session's directory stays relative: the shell runs there.
  assertEquals(shellStepForFile("logs/a b.log", grep).args, {
    command: "grep -n -e TEXT 'logs/a b.log'",
  });
});

Deno.test("shellStepForFile runs on the host for an ssh:// file, with the host's own path", () => {
  assertEquals(shellStepForFile("ssh://box/var/log/app 1.log", grep), {
    tool: "shell",
    args: { command: "grep -n -e TEXT '/var/log/app 1.log'", cwd: "ssh://box/var/log" },
  });
  assertEquals(shellStepForFile("ssh://deploy@box:2222/srv/x.log", grep).args, {
    command: "grep -n -e TEXT /srv/x.log",
    cwd: "ssh://deploy@box:2222/srv",
  });
  // sftp:// names the same host; the shell runs over ssh. "~/x" stays the remote home.
  assertEquals(shellStepForFile("sftp://box/~/notes.txt", grep).args, {
    command: "grep -n -e TEXT ~/notes.txt",
    cwd: "ssh://box/~",
  });
  assertEquals(shellStepForFile("ssh://box/big.log", grep).args, {
    command: "grep -n -e TEXT /big.log",
    cwd: "ssh://box/",
  });
});
