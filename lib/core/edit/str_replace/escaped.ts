// Rung 2 of the str_replace ladder: escaped-literal recovery. A model that escaped its JSON twice
// sends a literal \n, \t or \" where it meant the character; read as escapes, old_text may match.

import { ambiguous } from "./ambiguous.ts";
import { matchFuzzy } from "./fuzzy.ts";
import { findAll } from "./lf_text.ts";
import type { RungInput, RungMatch } from "./rung.ts";

export const ESCAPE_PATTERN = /\\[ntr"'\\]/;

export function matchEscaped(input: RungInput): RungMatch | undefined {
  const { doc, lf, path, oldText, newText } = input;
  if (!ESCAPE_PATTERN.test(oldText)) return undefined;
  for (const mode of ["code", "full"] as const) {
    const candidate = unescapeLiteral(oldText, mode);
    if (candidate === oldText) continue;
    const found = findAll(lf.text, candidate, input.replaceAll ? Infinity : undefined);
    if (found.length === 0) continue;
    if (found.length > 1 && !input.replaceAll) {
      throw ambiguous(path, lf, doc, found, candidate.length, "after reading its \\n escapes");
    }
    const newDoubleEscaped = !newText.includes("\n") && ESCAPE_PATTERN.test(newText);
    const replacement = newDoubleEscaped ? unescapeLiteral(newText, mode) : newText;
    const notes = [
      `old_text contained literal escape sequences (\\n, \\t, \\") with no match as written; ` +
      `read as escapes it matched ${found.length === 1 ? "once" : `${found.length} times`}.`,
      newDoubleEscaped
        ? "new_text was escaped the same way and was read the same way (escapes inside " +
          "string literals kept)."
        : "new_text was used as written.",
      "Next time send real newlines in the JSON string (one level of escaping).",
    ];
    return {
      tier: "escaped",
      edits: found.map((at) => ({ from: at, to: at + candidate.length, replacement })),
      notes,
    };
  }
  return undefined;
}

/**
 * Rungs 2 and 3 combined: old_text escaped twice and also indented differently (the model's
 * usual two slips together). Whitespace-normalized matching on old_text read as escapes; like the
 * fuzzy rung alone, only a unique match applies.
 */
export function matchEscapedFuzzy(input: RungInput): RungMatch | undefined {
  const { oldText, newText } = input;
  if (!ESCAPE_PATTERN.test(oldText)) return undefined;
  for (const mode of ["code", "full"] as const) {
    const candidate = unescapeLiteral(oldText, mode);
    if (candidate === oldText) continue;
    const newDoubleEscaped = !newText.includes("\n") && ESCAPE_PATTERN.test(newText);
    const replacement = newDoubleEscaped ? unescapeLiteral(newText, mode) : newText;
    const match = matchFuzzy(
      { ...input, oldText: candidate, newText: replacement },
      "after reading its \\n escapes and normalizing whitespace",
    );
    if (!match) continue;
    return {
      tier: "escaped_fuzzy",
      edits: match.edits,
      notes: [
        `old_text contained literal escape sequences (\\n, \\t, \\") and matched neither as ` +
        "written nor read as escapes alone; read as escapes it matched once after also " +
        "normalizing whitespace.",
        ...match.notes.map((n) => n.replace(/^old_text matched/, "It matched")),
        newDoubleEscaped
          ? "new_text was escaped the same way and was read the same way (escapes inside " +
            "string literals kept)."
          : "new_text was used as written.",
        "Next time send real newlines in the JSON string (one level of escaping).",
      ],
    };
  }
  return undefined;
}

/**
 * Reads backslash escapes as a JSON string would. Mode "code" keeps escapes inside string
 * literals (between unescaped quotes) as written, because there they are the program's own
 * (`"a\n"` in source); mode "full" reads every escape.
 */
export function unescapeLiteral(text: string, mode: "code" | "full"): string {
  let out = "";
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\n") quote = null;
    if (c !== "\\") {
      if (mode === "code" && (c === '"' || c === "'" || c === "`")) {
        if (quote === null) quote = c;
        else if (quote === c) quote = null;
      }
      out += c;
      continue;
    }
    const next = text[i + 1];
    if (next === undefined) {
      out += c;
      continue;
    }
    if (quote !== null) {
      out += c + next; // inside a string literal: the program's own escape
      i++;
      continue;
    }
    const mapped = ({ n: "\n", t: "\t", r: "\r", '"': '"', "'": "'", "\\": "\\" } as Record<
      string,
      string
    >)[next];
    if (mapped === undefined) {
      out += c;
      continue;
    }
    if (mapped === "\n") quote = null;
    out += mapped;
    i++;
  }
  return out;
}

/** A literal \n outside string literals and no real newline: typical of JSON escaped twice. */
export function looksDoubleEscaped(text: string): boolean {
  return !text.includes("\n") && unescapeLiteral(text, "code").includes("\n");
}
