// Rung 3 of the str_replace ladder: whitespace-normalized, line-wise matching (indentation,
// spacing and blank edges ignored), applied only when unique, with new_text re-indented.

import { ambiguous, MAX_LISTED } from "./ambiguous.ts";
import { isBlank, normalizedLines, normalizeLine, trimBlankEdges } from "./normalize.ts";
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
  while (lead < oldLines.length && isBlank(oldLines[lead]!)) lead++;
  let trail = 0;
  while (trail < oldLines.length - lead && isBlank(oldLines[oldLines.length - 1 - trail]!)) {
    trail++;
  }
  const lines = newText.split("\n");
  let start = 0;
  let end = lines.length;
  while (start < lead && start < end && isBlank(lines[start]!)) start++;
  for (let i = 0; i < trail && end > start && isBlank(lines[end - 1]!); i++) end--;
  return lines.slice(start, end);
}

function fuzzyLineCount(oldText: string): number {
  return trimBlankEdges(oldText).length;
}

/** 0-based first lines of every window whose lines equal old_text's after normalization. */
function fuzzyMatches(lines: readonly string[], oldText: string): number[] {
  const want = trimBlankEdges(oldText).map(normalizeLine);
  const norm = normalizedLines(lines);
  if (want.length === 0 || want.every((l) => l === "")) return [];
  return findLineRuns(norm, want, MAX_LISTED + 1);
}

// Exported for tests.
/**
 * Starts of every run of `have` equal to `want` (overlapping runs included), up to `limit`.
 * Knuth-Morris-Pratt over lines: O(have + want) line comparisons where trying each start was
 * O(have × want) (100,000 equal lines against 50,000 of them and one different took minutes).
 */
export function findLineRuns(
  have: readonly string[],
  want: readonly string[],
  limit: number,
): number[] {
  const out: number[] = [];
  const m = want.length;
  if (m === 0) return out;
  // fail[k]: length of the longest proper border of want[0..k].
  const fail = new Int32Array(m);
  for (let k = 1, b = 0; k < m; k++) {
    while (b > 0 && want[k] !== want[b]) b = fail[b - 1]!;
    if (want[k] === want[b]) b++;
    fail[k] = b;
  }
  for (let i = 0, k = 0; i < have.length; i++) {
    while (k > 0 && have[i] !== want[k]) k = fail[k - 1]!;
    if (have[i] === want[k]) k++;
    if (k === m) {
      out.push(i - m + 1);
      if (out.length >= limit) break;
      k = fail[k - 1]!;
    }
  }
  return out;
}
