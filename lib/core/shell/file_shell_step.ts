// The shell call a hint suggests for reading or searching one file (too big for view): the
// intent (lib/core/shell/file_command.ts) written for the shell that will run it, the file's
// path as one quoted word. A file on an ssh:// host gets a POSIX call that runs on that host
// (cwd: its directory there) with the host's own path, since no shell can open a URL. Pure.

import type { ShellKind } from "../platform/platform.ts";
import { type NextStep, step } from "../next_step.ts";
import { parentPath } from "../path/path_text.ts";
import { formatRemoteUrl, isRemoteUrl, parseRemoteUrl } from "../ssh/remote_url.ts";
import { fileCommand, type FileIntent, type ShellDialect, shellDialect } from "./file_command.ts";

/**
 * `shell {command: …}` doing `intent` on `file` as shown to the caller (a local path, a path
 * relative to the session's directory, or an `ssh://host/path` URL), written for `shell` (the
 * session's; ssh hosts always run bash).
 *
 * @example
 * ```ts
 * shellStepForFile("ssh://box/var/log/app 1.log", { kind: "head", lines: 100 }, "cmd");
 * // shell {command: "sed -n '1,100p' '/var/log/app 1.log'", cwd: "ssh://box/var/log"}
 * shellStepForFile("C:\\logs\\app.log", { kind: "describe" }, "cmd");
 * // shell {command: 'dir "C:\\logs\\app.log"'}
 * ```
 */
export function shellStepForFile(
  file: string,
  intent: FileIntent,
  shell: ShellKind = "bash",
): NextStep {
  if (!isRemoteUrl(file)) {
    return step("shell", { command: fileCommand(intent, file, shellDialect(shell)) });
  }
  let remote;
  try {
    remote = parseRemoteUrl(file);
  } catch {
    return step("shell", { command: fileCommand(intent, file, "posix") });
  }
  return step("shell", {
    command: fileCommand(intent, remote.path, "posix"),
    cwd: formatRemoteUrl(remote.target, parentPath(remote.path)),
  });
}

/** The dialect a call about `file` is written in: POSIX for an ssh:// file, else `shell`'s. */
export function fileShellDialect(file: string, shell: ShellKind = "bash"): ShellDialect {
  return isRemoteUrl(file) ? "posix" : shellDialect(shell);
}
