// What an ssh command line runs on the remote host: its target (user@host:port, as ssh:// paths
// name it) and the scripts the remote shell gets. Parses only; the script walker judges them.

import { type SimpleCommand, splitWords, type Word } from "../parse/mod.ts";
import { baseName } from "./invocation.ts";
import { heredocBody } from "./redirects.ts";
import { scanArgs } from "./scan_args.ts";

// ssh's options that take a value (ssh(1) synopsis); all others are flags.
const SSH_VALUE_OPTIONS = "BbcDEeFIiJLlmOopQRSWw";

/** The scripts, in the order they run, that `ssh <args>` hands to the remote shell on `host`. */
interface RemoteRun {
  host: string;
  scripts: string[];
}

/** undefined when nothing runs remotely (`ssh -V`, `ssh -s host sftp`). */
export function sshRemoteRun(args: Word[], cmd: SimpleCommand): RemoteRun | undefined {
  let user: string | undefined;
  let port: string | undefined;
  let host: string | undefined;
  let subsystem = false;
  let rest = args;
  // OpenSSH accepts options before and after the destination, up to the remote command.
  for (let round = 0; round < 2; round++) {
    const { opts, operands, terminated } = scanArgs(rest, {
      short: SSH_VALUE_OPTIONS,
      stopAtOperand: true,
    });
    for (const o of opts) {
      if (o.name === "-l") user = o.value;
      if (o.name === "-p") port = o.value;
      if (o.name === "-s") subsystem = true;
    }
    if (round === 0) {
      if (operands.length === 0) return undefined; // `ssh -V`, `ssh -G`: nothing runs remotely
      host = operands[0]!.value;
      rest = operands.slice(1);
      if (terminated) break;
    } else {
      rest = operands;
    }
  }
  if (subsystem || host === undefined) return undefined;
  const target = formatSshTarget(host, user, port);
  const body = heredocBody(cmd);
  if (rest.length === 0) {
    // Interactive `ssh host`: allowed; but a heredoc on its stdin is a script the remote
    // shell runs, so that script is judged.
    return { host: target, scripts: body === undefined ? [] : [body] };
  }
  // ssh joins its remaining arguments with spaces and hands them to the remote shell.
  const remote = rest.map((w) => w.value).join(" ");
  const scripts = [remote];
  // `ssh host 'bash -s' <<'EOF' … EOF`: the heredoc is the remote script.
  const remoteWords = splitWords(remote);
  const first = remoteWords?.[0] ? baseName(remoteWords[0].value) : undefined;
  if (first && ["bash", "sh", "zsh", "dash", "ksh"].includes(first) && body !== undefined) {
    scripts.push(body);
  }
  return { host: target, scripts };
}

function formatSshTarget(host: string, user?: string, port?: string): string {
  let target = host;
  if (user && !host.includes("@")) target = `${user}@${target}`;
  if (port && /^\d+$/.test(port) && port !== "22") target = `${target}:${port}`;
  return target;
}
