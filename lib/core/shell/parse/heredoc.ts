// Heredoc bodies: after the newline that ends a line with `<<` or `<<-` redirections, the next
// lines up to each delimiter are that redirection's data, not commands; they are read here.

import type { Redirect } from "./syntax.ts";

/** A `<<` / `<<-` redirection seen on the current line, whose body follows the line. */
export interface PendingHeredoc {
  redirect: Redirect;
  stripTabs: boolean;
}

/**
 * Reads the bodies of `pending` from `pos` (just after the line's newline) into their
 * redirections, in order; returns the position after the last one.
 */
export function readHeredocBodies(
  src: string,
  pos: number,
  pending: readonly PendingHeredoc[],
): number {
  for (const { redirect, stripTabs } of pending) {
    const delimiter = redirect.target.value;
    const lines: string[] = [];
    for (;;) {
      if (pos >= src.length) break; // bash runs it with a warning: body up to the end
      let eol = src.indexOf("\n", pos);
      if (eol < 0) eol = src.length;
      let line = src.slice(pos, eol);
      pos = Math.min(eol + 1, src.length);
      if (stripTabs) line = line.replace(/^\t+/, "");
      if (line === delimiter || line.replace(/\r$/, "") === delimiter) break;
      lines.push(line);
    }
    redirect.body = lines.join("\n");
  }
  return pos;
}
