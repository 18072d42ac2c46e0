// Rung 3 of the str_replace ladder: whitespace-normalized, line-wise matching (indentation,
// spacing and blank edges ignored), applied only when unique, with new_text re-indented.

import { ambiguous, MAX_LISTED } from "./ambiguous.ts";
import { normalizedLines, normalizeLine, trimBlankEdges } from "./normalize.ts";
import { describeIndent, reindent } from "./reindent.ts";
import type { RungInput, RungMatch } from "./rung.ts";

/** `how` names what was done to old_text before matching, for the AMBIGUOUS_MATCH message. */
export function matchFuzzy(
  input: RungInput,
  how = "after normalizing whitespace",
): RungMatch | undefined {
  const { doc, lf, path, oldText, newText } = input;
  const fuzzy = fuzzyMatches(doc.lines, oldText);
  if (fuzzy.length === 1) {
    const m = fuzzy[0]!;
    const fileSlice = doc.lines.slice(m, m + fuzzyLineCount(oldText));
    const reindented = reindent(
      trimBlankEdgesLike(newText, oldText),
      trimBlankEdges(oldText),
      fileSlice,
    );
    const from = lf.starts[m]!;
    const lastIdx = m + fileSlice.length - 1;
    let to = lf.starts[lastIdx]! + doc.lines[lastIdx]!.length;
    // An empty new_text deletes the matched lines, not only their text.
    if (newText.trim() === "") to = lf.starts[lastIdx + 1] ?? lf.text.length;
    return {
      tier: "fuzzy",
      edits: [{ from, to, replacement: reindented.text }],
      notes: [
        `old_text matched lines ${m + 1}-${lastIdx + 1} only after normalizing whitespace ` +
        `(indentation, spacing, trailing blanks); the match is unique.` +
        (reindented.changed
          ? ` new_text was re-indented to the matched lines' indentation (${
            describeIndent(reindented.unit)
          }).`
          : ""),
      ],
    };
  }
  if (fuzzy.length > 1) {
    throw ambiguous(
      path,
      lf,
      doc,
      fuzzy.map((i) => lf.starts[i]!),
      0,
      how,
      fuzzyLineCount(oldText),
    );
  }
  return undefined;
}

/** Drops as many blank lines from new_text's edges as old_text had (they were not matched). */
function trimBlankEdgesLike(newText: string, oldText: string): string[] {
  const oldLines = oldText.split("\n");
  let lead = 0;
  while (lead < oldLines.length && oldLines[lead]!.trim() === "") lead++;
  let trail = 0;
  while (trail < oldLines.length - lead && oldLines[oldLines.length - 1 - trail]!.trim() === "") {
    trail++;
  }
  const lines = newText.split("\n");
  for (let i = 0; i < lead && lines.length > 0 && lines[0]!.trim() === ""; i++) lines.shift();
  for (let i = 0; i < trail && lines.length > 0 && lines[lines.length - 1]!.trim() === ""; i++) {
    lines.pop();
  }
  return lines;
}

function fuzzyLineCount(oldText: string): number {
  return trimBlankEdges(oldText).length;
}

/** 0-based first lines of every window whose lines equal old_text's after normalization. */
function fuzzyMatches(lines: readonly string[], oldText: string): number[] {
  const want = trimBlankEdges(oldText).map(normalizeLine);
  const norm = normalizedLines(lines);
  if (want.length === 0 || want.every((l) => l === "")) return [];
  const out: number[] = [];
  const first = want[0]!;
  for (let i = 0; i + want.length <= lines.length; i++) {
    if (norm[i] !== first) continue;
    let ok = true;
    for (let k = 1; k < want.length; k++) {
      if (norm[i + k] !== want[k]) {
        ok = false;
        break;
      }
    }
    if (ok) out.push(i);
    if (out.length > MAX_LISTED) break;
  }
  return out;
}
