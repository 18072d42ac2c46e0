// The shell call a hint suggests for reading or searching one file (too big for view): the
// file's path as one quoted word, and for a file on an ssh:// host, a call that runs on that
// host (cwd: its directory there) with the host's own path, since grep cannot open a URL. Pure.

import { type NextStep, step } from "../next_step.ts";
import { parentPath } from "../path/path_text.ts";
import { formatRemoteUrl, isRemoteUrl, parseRemoteUrl } from "../ssh/remote_url.ts";
import { shellQuote } from "./shell_quote.ts";

/**
 * `shell {command: command(<quoted path>)}` for `file` as shown to the caller (a local path, a
 * path relative to the session's directory, or an `ssh://host/path` URL).
 *
 * @example
 * ```ts
 * shellStepForFile("ssh://box/var/log/app 1.log", (f) => `tail -n 100 ${f}`);
 * // shell {command: "tail -n 100 '/var/log/app 1.log'", cwd: "ssh://box/var/log"}
 * ```
 */
export function shellStepForFile(file: string, command: (word: string) => string): NextStep {
  if (!isRemoteUrl(file)) return step("shell", { command: command(shellQuote(file)) });
  let remote;
  try {
    remote = parseRemoteUrl(file);
  } catch {
    return step("shell", { command: command(shellQuote(file)) });
  }
  return step("shell", {
    command: command(shellQuote(remote.path)),
    cwd: formatRemoteUrl(remote.target, parentPath(remote.path)),
  });
}
