// platform.ts (pure): what each OS gets — separators, case, default shell, the shell command line
// (bash, cmd.exe, PowerShell) and the kill plan.

import { assertEquals } from "../../_assert.ts";
import {
  defaultStateDir,
  describePlatform,
  killPlan,
  maxInlineCommandBytes,
  shellInvocation,
  sshLocations,
  WINDOWS_SSH_AGENT_PIPE,
} from "../../../lib/core/platform/platform.ts";

const linux = describePlatform("linux");
const mac = describePlatform("darwin");
const windows = describePlatform("windows");
const envOf = (vars: Record<string, string>) => (key: string) => vars[key];

Deno.test("describePlatform: separators, case, default shell and process proof per OS", () => {
  assertEquals(
    [linux, mac, windows].map((p) => [p.os, p.pathSep, p.caseInsensitive, p.defaultShell]),
    [["linux", "/", false, "bash"], ["darwin", "/", true, "bash"], [
      "windows",
      "\\",
      true,
      "cmd",
    ]],
  );
  assertEquals([linux, mac, windows].map((p) => p.processProof), [
    "proc-start-ticks",
    "ps-lstart",
    "creation-time",
  ]);
  assertEquals(describePlatform("freebsd").processTable, "ps");
});

Deno.test("shellInvocation: bash -c in its own group on Linux and macOS", () => {
  for (const p of [linux, mac]) {
    assertEquals(shellInvocation(p, { kind: "bash", program: "/bin/bash" }, "make test"), {
      program: "/bin/bash",
      args: ["-c", "make test"],
      verbatimArguments: false,
      detached: true,
    });
  }
  assertEquals(
    shellInvocation(linux, { kind: "bash" }, "x", "/state/jobs/1-1/command.sh").args,
    ["/state/jobs/1-1/command.sh"],
  );
});

Deno.test("shellInvocation: cmd.exe /d /s /c with the line quoted once, passed verbatim", () => {
  assertEquals(shellInvocation(windows, { kind: "cmd" }, 'dir "C:\\Program Files" && echo ok'), {
    program: "cmd.exe",
    args: ["/d", "/s", "/c", '"dir "C:\\Program Files" && echo ok"'],
    verbatimArguments: true,
    detached: false,
  });
  assertEquals(
    shellInvocation(windows, { kind: "cmd" }, "x", "C:\\st\\jobs\\1-1\\command.cmd").args,
    ["/d", "/s", "/c", '""C:\\st\\jobs\\1-1\\command.cmd""'],
  );
});

Deno.test("shellInvocation: --shell powershell/pwsh/bash on Windows", () => {
  const ps = shellInvocation(windows, { kind: "powershell" }, "Get-Date");
  assertEquals(ps.program, "powershell.exe");
  assertEquals(ps.args.slice(-2), ["-Command", "Get-Date"]);
  assertEquals(ps.args.includes("-NoProfile") && ps.args.includes("-NonInteractive"), true);
  assertEquals(shellInvocation(windows, { kind: "pwsh" }, "x", "C:\\s.ps1").args.slice(-2), [
    "-File",
    "C:\\s.ps1",
  ]);
  assertEquals(shellInvocation(windows, { kind: "bash" }, "ls").program, "bash");
  assertEquals(shellInvocation(windows, { kind: "bash" }, "ls").detached, false);
  assertEquals(maxInlineCommandBytes("cmd") < 8191, true);
});

Deno.test("killPlan: signals from /proc on Linux, from ps on macOS, taskkill /T /F on Windows", () => {
  assertEquals(killPlan(linux, 42), { method: "signals", table: "proc" });
  assertEquals(killPlan(mac, 42), { method: "signals", table: "ps" });
  assertEquals(killPlan(windows, 42), {
    method: "command",
    program: "taskkill",
    args: ["/T", "/F", "/PID", "42"],
  });
});

Deno.test("defaultStateDir: XDG on Linux, Application Support on macOS, LOCALAPPDATA on Windows", () => {
  const cases: [typeof linux, Record<string, string>, string][] = [
    [linux, { HOME: "/home/me" }, "/home/me/.local/state/anchorfs"],
    [linux, { HOME: "/home/me", XDG_STATE_HOME: "/x/state/" }, "/x/state/anchorfs"],
    [linux, { HOME: "/home/me", ANCHORFS_STATE_DIR: "/s" }, "/s"],
    [
      mac,
      { HOME: "/Users/me", XDG_STATE_HOME: "/ignored" },
      "/Users/me/Library/Application Support/anchorfs",
    ],
    [
      windows,
      { LOCALAPPDATA: "C:\\Users\\me\\AppData\\Local" },
      "C:\\Users\\me\\AppData\\Local\\anchorfs",
    ],
    [windows, { USERPROFILE: "C:\\Users\\me" }, "C:\\Users\\me\\AppData\\Local\\anchorfs"],
    [windows, { ANCHORFS_STATE_DIR: "D:\\state" }, "D:\\state"],
  ];
  for (const [platform, env, expected] of cases) {
    assertEquals(
      defaultStateDir(platform, envOf(env)),
      expected,
      `${platform.os} ${JSON.stringify(env)}`,
    );
  }
});

Deno.test("sshLocations: ~\\.ssh\\config and the OpenSSH agent pipe on Windows, SSH_AUTH_SOCK elsewhere", () => {
  assertEquals(sshLocations(windows, envOf({ USERPROFILE: "C:\\Users\\me" })), {
    home: "C:\\Users\\me",
    sshDir: "C:\\Users\\me\\.ssh",
    config: "C:\\Users\\me\\.ssh\\config",
    agent: WINDOWS_SSH_AGENT_PIPE,
  });
  assertEquals(WINDOWS_SSH_AGENT_PIPE, "\\\\.\\pipe\\openssh-ssh-agent");
  assertEquals(
    sshLocations(windows, envOf({ USERPROFILE: "C:\\u", SSH_AUTH_SOCK: "" })).agent,
    undefined,
  );
  assertEquals(
    sshLocations(windows, envOf({ HOMEDRIVE: "C:", HOMEPATH: "\\Users\\me" })).config,
    "C:\\Users\\me\\.ssh\\config",
  );
  assertEquals(sshLocations(mac, envOf({ HOME: "/Users/me", SSH_AUTH_SOCK: "/tmp/agent" })), {
    home: "/Users/me",
    sshDir: "/Users/me/.ssh",
    config: "/Users/me/.ssh/config",
    agent: "/tmp/agent",
  });
  assertEquals(sshLocations(linux, envOf({ HOME: "/home/me" })).agent, undefined);
});
