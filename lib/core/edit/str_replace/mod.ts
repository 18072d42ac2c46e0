// The str_replace matching ladder, in LF space: exact, escaped-literal recovery, whitespace-
// normalized with re-indentation, both of the last two together, then diagnostics (one file per
// rung in this folder). Only a unique match is applied (or every exact one with replace_all);
// else it fails, writing nothing.

import { AnchorError } from "../../errors.ts";
import { sameDoc } from "../splice_lines.ts";
import type { TextDoc } from "../../text/text_file.ts";
import { looksDoubleEscaped, matchEscaped, matchEscapedFuzzy } from "./escaped.ts";
import { matchExact } from "./exact.ts";
import { matchFuzzy } from "./fuzzy.ts";
import { applyCharEdits, findAll, lfText, lineAt } from "./lf_text.ts";
import { describeDifference, noMatch } from "./no_match.ts";
import { renderLine } from "../line_id.ts";
import type { MatchTier, RungInput } from "./rung.ts";
import { guide, step } from "../../next_step.ts";

export type { MatchTier } from "./rung.ts";
// Exported for tests.
export { unescapeLiteral } from "./escaped.ts";

/** What {@linkcode planStrReplace} replaces. */
export interface StrReplaceRequest {
  /** The text to find (CRLF read as LF; `N:hh|` prefixes pasted from a view are removed). */
  oldText: string;
  /** What replaces it. */
  newText: string;
  /** Replace every exact match instead of requiring exactly one. */
  replaceAll?: boolean;
}

/** The outcome of {@linkcode planStrReplace}: the new document and how it matched. */
export interface StrReplaceResult {
  /** The document after the replacement. */
  doc: TextDoc;
  /** Which rung of the ladder matched. */
  tier: MatchTier;
  /** Matches applied, as 1-based line ranges of the old file. */
  matches: { startLine: number; endLine: number }[];
  /** What the ladder did beyond an exact match, for the result text; empty for exact. */
  notes: string[];
}

/**
 * Runs the ladder on `doc` (`path` names the file in messages). Throws NO_MATCH /
 * AMBIGUOUS_MATCH / NO_CHANGE / INVALID_ARGUMENT, writing nothing.
 *
 * @example
 * ```ts
 * import { decodeText, planStrReplace } from "@anchorfs/anchorfs";
 *
 * const decoded = decodeText(new TextEncoder().encode("let x = 1;\nlet y = 2;\n"));
 * if (decoded.kind !== "text") throw new Error("not text");
 * const result = planStrReplace(decoded.doc, { oldText: "y = 2", newText: "y = 3" }, "a.ts");
 * result.tier; // "exact"
 * result.doc.lines; // ["let x = 1;", "let y = 3;"]
 * ```
 */
export function planStrReplace(
  doc: TextDoc,
  request: StrReplaceRequest,
  path: string,
): StrReplaceResult {
  const given = request.oldText.replace(/\r\n/g, "\n");
  // Lines pasted from a view or a diff keep their "N:hh|" prefixes; no file line starts so.
  const pasted = stripIdPrefixes(given);
  const oldText = pasted ?? given;
  const newText = (pasted !== undefined ? stripIdPrefixes(request.newText) : undefined) ??
    request.newText.replace(/\r\n/g, "\n");
  if (oldText === "") {
    throw new AnchorError({
      code: "INVALID_ARGUMENT",
      message: "old_text is empty; str_replace needs the exact text to replace.",
      hint: guide`To add lines, use ${
        step("batch_edit", { path, operations: [{ op: "insert", anchor: -1, content: "..." }] })
      } (anchor: a line id, 0 for the start, -1 for the end).`,
    });
  }
  const lf = lfText(doc);
  if (oldText === newText) throw identicalTexts(doc, lf, path, oldText);
  const input: RungInput = {
    doc,
    lf,
    path,
    oldText,
    newText,
    replaceAll: request.replaceAll === true,
  };
  const match = matchExact(input) ?? matchEscaped(input) ?? matchFuzzy(input) ??
    matchEscapedFuzzy(input);
  if (!match) throw noMatch(path, doc, oldText);

  const { tier, edits } = match;
  const notes = pasted === undefined ? match.notes : [
    'old_text carried the "N:hh|" prefixes of a view; they were removed before matching (copy ' +
    "the text after the | next time).",
    ...match.notes,
  ];
  const out = applyCharEdits(doc, lf, edits);
  if (sameDoc(out, doc)) {
    throw new AnchorError({
      code: "NO_CHANGE",
      message: `The replacement leaves ${JSON.stringify(path)} unchanged; nothing was written.`,
      hint: "Check new_text: it produces the text that is already there.",
    });
  }
  const matches = edits.map((e) => ({
    startLine: lineAt(lf, e.from) + 1,
    endLine: lineAt(lf, Math.max(e.from, e.to - 1)) + 1,
  }));
  if (
    tier !== "escaped" && tier !== "escaped_fuzzy" && looksDoubleEscaped(newText) &&
    !looksDoubleEscaped(oldText)
  ) {
    notes.push(
      "Note: new_text has a literal \\n outside any string literal and no real line break; " +
        "it was written as is. If you meant a line break, undo_edit and send a real newline " +
        "in the JSON string.",
    );
  }
  return { doc: out, tier, matches, notes };
}

/**
 * The error for old_text equal to new_text. When old_text is not in the file as written, that
 * is the news (the model meant some text and mistyped it, e.g. 4 spaces where the file has 2):
 * where it matches once whitespace is normalized and how the lines differ, or the closest regions.
 */
function identicalTexts(
  doc: TextDoc,
  lf: ReturnType<typeof lfText>,
  path: string,
  oldText: string,
): AnchorError {
  const same = "old_text and new_text are identical";
  if (findAll(lf.text, oldText, 1).length > 0) {
    return new AnchorError({
      code: "NO_CHANGE",
      message: `${same}; nothing was written.`,
      hint: "Pass the changed text as new_text.",
    });
  }
  const input: RungInput = { doc, lf, path, oldText, newText: oldText, replaceAll: false };
  const near = matchFuzzy(input) ?? matchEscapedFuzzy(input);
  if (!near) {
    const miss = noMatch(path, doc, oldText);
    return new AnchorError({
      code: "NO_MATCH",
      message: `${same}, and old_text is not in ${JSON.stringify(path)} either: ${miss.message}`,
      ...(miss.detailText !== undefined && { detail: miss.detailText }),
      ...(miss.hintText !== undefined && { hint: miss.hintText }),
    });
  }
  const first = lineAt(lf, near.edits[0]!.from);
  const want = oldText.split("\n");
  const diffs: string[] = [];
  for (let k = 0; k < want.length && diffs.length < 4; k++) {
    const have = doc.lines[first + k];
    if (have === undefined) break;
    const d = describeDifference(want[k]!, have, k === 0);
    if (d !== "same") diffs.push(`line ${first + k + 1}: ${d}`);
  }
  const last = Math.min(doc.lines.length, first + want.length);
  const span = last - first === 1 ? `line ${last}` : `lines ${first + 1}-${last}`;
  const shown: string[] = [];
  for (let n = first; n < last && shown.length < 30; n++) {
    shown.push(renderLine(n + 1, doc.lines[n]!));
  }
  return new AnchorError({
    code: "NO_MATCH",
    message:
      `${same}, and old_text does not match ${JSON.stringify(path)} as written: it matches ` +
      `${span} only with whitespace normalized (${
        diffs.join("; ") || "whitespace differs"
      }); nothing was written.`,
    detail: `${span.charAt(0).toUpperCase()}${span.slice(1)} as the file has ${
      last - first === 1 ? "it" : "them"
    }:\n${shown.join("\n")}`,
    hint: 'Copy old_text exactly from the lines above (without the "N:hh|" prefixes) and put ' +
      "the change in new_text.",
  });
}

const ID_PREFIX = /^[ +-]?\s*\d+:[0-9a-f]{2,}\|/;

/** `text` without "N:hh|" prefixes when every non-empty line has one; else undefined. */
function stripIdPrefixes(text: string): string | undefined {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  const full = lines.filter((l) => l !== "");
  if (full.length === 0 || !full.every((l) => ID_PREFIX.test(l))) return undefined;
  return lines.map((l) => l.replace(ID_PREFIX, "")).join("\n");
}
