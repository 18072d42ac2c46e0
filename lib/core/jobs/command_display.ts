// A shell command shown on one line (job lists, job headers) without making different commands
// look the same: whitespace outside quotes collapses as the shell reads it (a newline, which
// separates commands, shows as ⏎), quoted whitespace is kept and its newlines and tabs are
// escaped, so `echo "a  b"` and `echo "a b"` stay distinct. Pure.

import { truncateText } from "./progress_text.ts";

const ESCAPES: Record<string, string> = { "\n": "\\n", "\t": "\\t", "\r": "\\r" };

/**
 * One display line for `command`, at most `max` characters (cut with …). Only the head that can
 * be shown is built: a 2 MB command line once cost 130 MB and a quarter second per display.
 */
export function displayCommand(command: string, max = 80): string {
  // max + 1 code points are enough to decide the cut; a code point is at most 2 code units.
  const enough = 2 * max + 4;
  let out = "";
  let quote: "'" | '"' | undefined;
  let gap = ""; // pending unquoted whitespace: "", " " or " ⏎ "
  const emit = (s: string) => {
    if (gap && out.length > 0) out += gap;
    gap = "";
    out += s;
  };
  for (let i = 0; i < command.length && out.length <= enough; i++) {
    const ch = command[i]!;
    if (quote) {
      out += ESCAPES[ch] ?? ch;
      if (ch === "\\" && quote === '"' && i + 1 < command.length) {
        const next = command[++i]!;
        out += ESCAPES[next] ?? next;
      } else if (ch === quote) quote = undefined;
      continue;
    }
    if (/\s/.test(ch)) {
      gap = ch === "\n" || gap === " ⏎ " ? " ⏎ " : " ";
      continue;
    }
    emit(ch);
    if (ch === "\\" && i + 1 < command.length) {
      const next = command[++i]!;
      out += next === "\n" ? "⏎" : ESCAPES[next] ?? next;
    } else if (ch === "'" || ch === '"') quote = ch;
  }
  return truncateText(out, max);
}
