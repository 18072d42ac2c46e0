// What a simple command's redirections say about where its input comes from and its output
// goes: a file on stdin, a heredoc, stdout into a file. Also which paths are kernel pseudo-files.

import type { SimpleCommand } from "../parse/mod.ts";

/** The script text on a command's stdin: a heredoc body or a here-string. */
export function heredocBody(cmd: SimpleCommand): string | undefined {
  for (const r of cmd.redirects) {
    if ((r.op === "<<" || r.op === "<<-") && (r.fd === undefined || r.fd === 0)) return r.body;
    if (r.op === "<<<" && (r.fd === undefined || r.fd === 0)) return r.target.value;
  }
  return undefined;
}

export function stdinIsData(cmd: SimpleCommand): boolean {
  return cmd.redirects.some((r) =>
    (r.op === "<<" || r.op === "<<-" || r.op === "<<<") && (r.fd === undefined || r.fd === 0)
  );
}

export function stdinFile(cmd: SimpleCommand): string | undefined {
  const r = cmd.redirects.find((r) => r.op === "<" && (r.fd === undefined || r.fd === 0));
  return r?.target.value;
}

// Redirect targets that still put the output in front of the model (or throw it away while the
// exit status answers the question, like grep -q).
const VISIBLE_SINKS = /^\/dev\/(stdout|stderr|tty|null|fd\/[12])$|^\/proc\/self\/fd\/[12]$/;

export function stdoutToFile(cmd: SimpleCommand): boolean {
  return cmd.redirects.some((r) => {
    const toStdout = ((r.op === ">" || r.op === ">>" || r.op === ">|") &&
      (r.fd === undefined || r.fd === 1)) || r.op === "&>" || r.op === "&>>";
    return toStdout && !VISIBLE_SINKS.test(r.target.value);
  });
}

/** Kernel pseudo-files: not project text, contents change between reads, view adds nothing. */
export function isPseudoFile(path: string): boolean {
  return /^\/(proc|sys|dev)(\/|$)/.test(path);
}
