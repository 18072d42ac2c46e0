// The AMBIGUOUS_MATCH failure: every place old_text matched, listed with line ids so the next
// call can pick one by id (batch_edit) or widen old_text. Shared by the four matching rungs.

import { AnchorError } from "../../errors.ts";
import { argExample, joinGuide, step } from "../../next_step.ts";
import { hashHex, hashLine, renderLine } from "../line_id.ts";
import type { TextDoc } from "../../text/text_file.ts";
import { type LfText, lineAt } from "./lf_text.ts";

/** Matches listed in one report; a rung may stop counting past this. */
export const MAX_LISTED = 20;

export function ambiguous(
  path: string,
  lf: LfText,
  doc: TextDoc,
  offsets: readonly number[],
  length: number,
  how: string,
  lineCount?: number,
): AnchorError {
  const listed = offsets.slice(0, MAX_LISTED).map((at) => {
    const first = lineAt(lf, at);
    const last = lineCount !== undefined
      ? first + lineCount - 1
      : lineAt(lf, Math.max(at, at + length - 1));
    const firstId = `${first + 1}:${hashHex(hashLine(doc.lines[first]!))}`;
    const lastId = `${last + 1}:${hashHex(hashLine(doc.lines[last]!))}`;
    return {
      range: first === last ? firstId : `${firstId}..${lastId}`,
      first,
      last,
      line: renderLine(first + 1, doc.lines[first]!),
    };
  });
  const f = listed[0]!;
  const batch = step("batch_edit", {
    path,
    operations: [{
      op: "replace",
      start: f.range.split("..")[0],
      ...(f.first === f.last ? {} : { end: f.range.split("..")[1] }),
      content: "...",
    }],
  });
  return new AnchorError({
    code: "AMBIGUOUS_MATCH",
    message: `old_text matches ${offsets.length}${offsets.length >= 10_000 ? "+" : ""} places in ${
      JSON.stringify(path)
    } ${how}; nothing was written.`,
    detail: renderMatches(doc, listed) +
      (offsets.length > listed.length ? `\n... ${offsets.length - listed.length} more` : ""),
    // replace_all takes exact matches only: suggesting it for other matches would loop.
    hint: how === "exactly"
      ? joinGuide(
        "Either (1) add surrounding lines to old_text so it matches one place, (2) pass ",
        argExample("text_editor", { replace_all: true }),
        " to replace every match, or (3) use the ids above, e.g. ",
        batch,
        ".",
      )
      : joinGuide(
        "Either (1) add surrounding lines to old_text so it matches one place, or (2) use ",
        "the ids above, e.g. ",
        batch,
        ". replace_all does not help: it replaces exact matches only, and these matched ",
        `${how}.`,
      ),
  });
}

const MAX_MATCH_LINES_SHOWN = 60;

/**
 * Lists matches as `Match k: first..last` followed by their lines with ids (whole when they fit a
 * budget, else only the first line), so that a batch_edit on any listed range can be verified
 * against lines the agent was shown.
 */
function renderMatches(
  doc: TextDoc,
  listed: readonly { range: string; first: number; last: number; line: string }[],
): string {
  const total = listed.reduce((n, m) => n + m.last - m.first + 1, 0);
  const whole = total <= MAX_MATCH_LINES_SHOWN;
  const out: string[] = [];
  listed.forEach((m, k) => {
    out.push(`Match ${k + 1}: ${m.range}`);
    const end = whole ? m.last : m.first;
    for (let n = m.first; n <= end; n++) out.push(renderLine(n + 1, doc.lines[n]!));
  });
  return out.join("\n");
}
