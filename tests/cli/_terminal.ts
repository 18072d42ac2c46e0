// Runs the real CLI on a pseudo-terminal: util-linux script(1) gives the shell command a pty of
// a chosen size, and everything drawn on it (stdout and stderr alike) arrives here as it is
// written, so a test can wait for a frame, act (resize, hang up), and read what followed.

import { MAIN_TS } from "../_harness.ts";

/** The shell words that run this checkout's CLI, for the command lines given to startInTerminal. */
export const ANCHORFS = `"$DENO_BIN" run -A --quiet "$ANCHORFS_MAIN"`;

export interface TerminalSession extends AsyncDisposable {
  /** Everything the pty showed so far (CRLF as the terminal sends it). */
  readonly output: () => string;
  /** Resolves once `check(output)` holds; rejects after `ms` (default 60 s) with what was seen. */
  until(check: (output: string) => boolean, what: string, ms?: number): Promise<string>;
  /** Kills script(1) itself (SIGKILL): the pty's master closes, the terminal hangs up. */
  killTerminal(): void;
  /** script's exit status: the command's (-e), or the signal's when killed. */
  readonly status: Promise<Deno.CommandStatus>;
}

/**
 * Starts `command` (sh syntax; ANCHORFS runs the CLI) on a pty of `columns` x `rows` in `cwd`.
 */
export function startInTerminal(
  command: string,
  options: { cwd: string; columns: number; rows?: number; env?: Record<string, string> },
): TerminalSession {
  const script = `stty cols ${options.columns} rows ${options.rows ?? 24}; ${command}`;
  const child = new Deno.Command("script", {
    args: ["-q", "-e", "-c", script, "/dev/null"],
    cwd: options.cwd,
    env: {
      NO_COLOR: "1",
      SHELL: "/bin/sh",
      DENO_BIN: Deno.execPath(),
      ANCHORFS_MAIN: MAIN_TS,
      ...options.env,
    },
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  let text = "";
  const waiters = new Set<() => void>();
  const decoder = new TextDecoder();
  const reading = (async () => {
    for await (const chunk of child.stdout) {
      text += decoder.decode(chunk, { stream: true });
      for (const wake of waiters) wake();
    }
    for (const wake of waiters) wake();
  })();
  let ended = false;
  const status = child.status.then((s) => {
    ended = true;
    return s;
  });
  return {
    output: () => text,
    status,
    until(check, what, ms = 60_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(wake);
          const seen = text.length > 1500 ? `…${text.slice(-1500)}` : text;
          reject(new Error(`no ${what} on the terminal within ${ms} ms: ${JSON.stringify(seen)}`));
        }, ms);
        const wake = () => {
          if (!check(text)) return;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(text);
        };
        waiters.add(wake);
        wake();
      });
    },
    killTerminal: () => child.kill("SIGKILL"),
    async [Symbol.asyncDispose]() {
      if (!ended) child.kill("SIGKILL");
      await status;
      await reading.catch(() => {});
    },
  };
}

/**
 * The frames a line drawn in place showed: the pieces between carriage returns, with the erase
 * sequence (ESC [ K) removed and empty pieces dropped.
 */
export function framesOf(output: string): string[] {
  // A piece that goes on past a line end holds the next lines' text: only its first line was
  // drawn in place.
  return output.split(/\r(?!\n)/).map((f) => f.split("\r\n")[0]!.replaceAll("\x1b[K", ""))
    .filter((f) => f !== "");
}
