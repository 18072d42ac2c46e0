// Rung 5 of the str_replace ladder, diagnostics: the NO_MATCH failure shows the file's closest
// regions with ids and says, line by line, how old_text differs from them.

import { AnchorError } from "../../errors.ts";
import { guide, joinGuide, step, type ToolArgs } from "../../next_step.ts";
import { hashHex, hashLine, renderLine } from "../line_id.ts";
import type { TextDoc } from "../../text/text_file.ts";
import { ESCAPE_PATTERN } from "./escaped.ts";
import { leadingWs, normalizedLines, normalizeLine, trimBlankEdges } from "./normalize.ts";
import { plural } from "../../plural.ts";

interface Candidate {
  /** 0-based first line of the region. */
  start: number;
  score: number;
}

const MAX_CANDIDATES = 3;
const MAX_REGION_LINES = 30;
/** Votes counted when locating the closest regions (see closestRegions). */
const VOTE_BUDGET = 2_000_000;
/** An old_text line repeated more often than this casts no votes. */
const MAX_VOTES_PER_LINE = 64;

/**
 * Scores normalized lines by similarity to `probe` in [0, 1]: the Dice coefficient over
 * character bigrams of the normalized text. The probe's bigrams are counted once; lines too
 * short or too long to reach `floor` are skipped without counting.
 */
function similarityTo(probe: string, floor: number): (line: string) => number {
  const x = normalizeLine(probe);
  const counts = new Map<number, number>();
  for (let i = 0; i < x.length - 1; i++) {
    const code = x.charCodeAt(i) * 65536 + x.charCodeAt(i + 1);
    counts.set(code, (counts.get(code) ?? 0) + 1);
  }
  const used = new Map<number, number>();
  return (y) => {
    if (y === x) return 1;
    if (x.length < 2 || y.length < 2) return 0;
    const total = x.length + y.length - 2;
    if ((2 * (Math.min(x.length, y.length) - 1)) / total < floor) return 0;
    used.clear();
    let both = 0;
    for (let i = 0; i < y.length - 1; i++) {
      const code = y.charCodeAt(i) * 65536 + y.charCodeAt(i + 1);
      const have = counts.get(code);
      if (!have) continue;
      const u = used.get(code) ?? 0;
      if (u < have) {
        used.set(code, u + 1);
        both++;
      }
    }
    return (2 * both) / total;
  };
}

/** Closest regions: windows voted for by old_text lines that appear (normalized) in the file. */
function closestRegions(lines: readonly string[], want: readonly string[]): Candidate[] {
  const votes = new Map<number, number>();
  const normWant = want.map(normalizeLine);
  const norm = normalizedLines(lines);
  const index = new Map<string, number[]>();
  normWant.forEach((l, k) => {
    if (l.length < 3) return; // "}" or blank lines say nothing about where the region is
    const list = index.get(l) ?? [];
    list.push(k);
    index.set(l, list);
  });
  if (index.size > 0) {
    // Each file line votes once per old_text line equal to it: file lines × old_text lines when
    // both repeat one line. A line repeated many times in old_text says little about where the
    // region is, and past a budget the votes counted so far rank the regions.
    let budget = VOTE_BUDGET;
    for (let i = 0; i < lines.length && budget > 0; i++) {
      const ks = index.get(norm[i]!);
      if (!ks || ks.length > MAX_VOTES_PER_LINE) continue;
      budget -= ks.length;
      for (const k of ks) {
        const start = i - k;
        if (start >= 0) votes.set(start, (votes.get(start) ?? 0) + 1);
      }
    }
  }
  let ranked: Candidate[] = [...votes].map(([start, v]) => ({ start, score: v }));
  if (ranked.length === 0) {
    // Nothing matched whole: rank single lines by similarity to old_text's most telling line.
    // The first of the longest lines (a linear scan; sorting normalized every line log n times).
    let k = 0;
    let longest = -1;
    normWant.forEach((l, i) => {
      if (l.length > longest) [k, longest] = [i, l.length];
    });
    const probe = want[k];
    if (probe === undefined || normalizeLine(probe).length < 3) return [];
    const scored: Candidate[] = [];
    const limit = Math.min(lines.length, 200_000);
    const score = similarityTo(probe, 0.5);
    for (let i = 0; i < limit; i++) {
      const s = score(norm[i]!);
      if (s >= 0.5) scored.push({ start: Math.max(0, i - k), score: s });
    }
    ranked = scored;
  }
  ranked.sort((a, b) => b.score - a.score || a.start - b.start);
  const out: Candidate[] = [];
  for (const c of ranked) {
    if (out.some((o) => Math.abs(o.start - c.start) < want.length)) continue;
    out.push(c);
    if (out.length >= MAX_CANDIDATES) break;
  }
  return out;
}

/**
 * The closest regions, or only the first when it explains the miss on its own (old_text is that
 * region but for a typo: their texts are 80 % alike or more and the next region is far less
 * alike). Unrelated regions beside it cost the reader and suggest nothing.
 */
function explainingRegion(
  lines: readonly string[],
  want: readonly string[],
  regions: Candidate[],
): Candidate[] {
  if (regions.length < 2 || want.length === 0) return regions;
  const text = want.join("\n");
  const alike = regions.map((c) => {
    const region = lines.slice(c.start, c.start + want.length).join("\n");
    // A fragment is compared with the part of the line it lines up with.
    const at = want.length === 1 ? alignFragment(text, region) : 0;
    return similarityTo(text, 0)(normalizeLine(region.slice(at, at + text.length + 8)));
  });
  return alike[0]! >= 0.8 && alike.slice(1).every((a) => a < alike[0]! - 0.15)
    ? [regions[0]!]
    : regions;
}

/**
 * Says how one old_text line differs from the file's line. `first`: old_text's first line, which
 * may start mid-line (str_replace matches any substring): with no indentation of its own it is a
 * fragment, compared where it lines up with the file's line, and no indentation is missing.
 */
export function describeDifference(want: string, have: string, first = false): string {
  if (want === have) return "same";
  if (first && leadingWs(want) === "" && !have.startsWith(want.slice(0, 1))) {
    const at = alignFragment(want, have);
    if (at > 0) {
      return describeDifference(want, have.slice(at), false).replace(
        /^differs from column (\d+)/,
        (_, col) => `differs from column ${Number(col) + at}`,
      );
    }
  }
  if (want.trim() === have.trim()) {
    const w = leadingWs(want);
    const h = leadingWs(have);
    if (w !== h) {
      return `indentation differs: old_text has ${describeWs(w)}, the file has ${describeWs(h)}`;
    }
    return "trailing whitespace differs";
  }
  if (normalizeLine(want) === normalizeLine(have)) return "spacing inside the line differs";
  // Compare past the indentation (old_text is often copied at another depth, or from mid-line):
  // the column is where the text itself first differs, counted in the file's line.
  const w = leadingWs(want);
  const h = leadingWs(have);
  const wantText = want.slice(w.length);
  const haveText = have.slice(h.length);
  let i = 0;
  while (i < wantText.length && i < haveText.length && wantText[i] === haveText[i]) i++;
  const snippet = (s: string) =>
    `${i > 10 ? "…" : ""}${JSON.stringify(s.slice(Math.max(0, i - 10), i + 20))}`;
  const indent = w === h || (first && w === "")
    ? ""
    : ` (the indentation differs too: old_text has ${describeWs(w)}, the file has ${
      describeWs(h)
    })`;
  return `differs from column ${h.length + i + 1}: old_text has ${
    snippet(wantText)
  }, the file has ${snippet(haveText)}${indent}`;
}

/**
 * Where in `have` a fragment `want` lines up best: the start of its longest common prefix with
 * `want` among the places its first characters occur (0 when none does).
 */
function alignFragment(want: string, have: string): number {
  const probe = want.slice(0, Math.min(3, want.length));
  let best = 0;
  let bestLength = 0;
  for (let at = have.indexOf(probe); at !== -1; at = have.indexOf(probe, at + 1)) {
    let n = 0;
    while (n < want.length && at + n < have.length && want[n] === have[at + n]) n++;
    if (n > bestLength) [best, bestLength] = [at, n];
  }
  return best;
}

function describeWs(ws: string): string {
  if (ws === "") return "none";
  const tabs = [...ws].filter((c) => c === "\t").length;
  const spaces = ws.length - tabs;
  return [
    tabs ? plural(tabs, "tab") : "",
    spaces ? plural(spaces, "space") : "",
  ]
    .filter(Boolean).join(" + ");
}

export function noMatch(path: string, doc: TextDoc, oldText: string): AnchorError {
  const want = trimBlankEdges(oldText);
  const regions = explainingRegion(
    doc.lines,
    want,
    closestRegions(doc.lines, want.length > 0 ? want : [oldText]),
  );
  const blocks: string[] = [];
  let example: ToolArgs["batch_edit"] | undefined;
  for (const c of regions) {
    const count = Math.min(Math.max(want.length, 1), MAX_REGION_LINES);
    const end = Math.min(doc.lines.length, c.start + count);
    const out = [`Closest region: lines ${c.start + 1}-${end}:`];
    for (let n = c.start; n < end; n++) out.push(renderLine(n + 1, doc.lines[n]!));
    const diffs: string[] = [];
    for (let k = 0; k < Math.min(want.length, end - c.start); k++) {
      const d = describeDifference(want[k]!, doc.lines[c.start + k]!, k === 0);
      if (d !== "same") diffs.push(`  old_text line ${k + 1} vs line ${c.start + k + 1}: ${d}`);
      if (diffs.length >= 8) break;
    }
    if (want.length > end - c.start) {
      diffs.push(`  old_text has ${want.length} lines; the file ends after ${end - c.start}.`);
    }
    if (diffs.length > 0) out.push("What differs:", ...diffs);
    blocks.push(out.join("\n"));
    example ??= {
      path,
      operations: [{
        op: "replace",
        start: `${c.start + 1}:${hashHex(hashLine(doc.lines[c.start]!))}`,
        ...(end - 1 > c.start ? { end: `${end}:${hashHex(hashLine(doc.lines[end - 1]!))}` } : {}),
        content: "...",
      }],
    };
  }
  // Say what the escape rungs did, so the model does not resend the same text escaped again.
  const escapedNote = ESCAPE_PATTERN.test(oldText) && !oldText.includes("\n")
    ? " old_text has literal escape sequences (e.g. \\n) and no real line break; it was also " +
      "tried with them read as line breaks, tabs and quotes, without a match."
    : "";
  return new AnchorError({
    code: "NO_MATCH",
    message: `old_text was not found in ${
      JSON.stringify(path)
    } (tried: exact, escape sequences, whitespace-normalized, both together); nothing was written.${escapedNote}`,
    detail: blocks.length > 0
      ? blocks.join("\n\n")
      : `No region of the file resembles old_text (the file has ${doc.lines.length} lines).`,
    hint: example
      ? joinGuide(
        'Copy old_text exactly from the lines above (without the "N:hh|" prefixes) and retry ',
        "str_replace, or replace by id: ",
        step("batch_edit", example),
        ".",
      )
      : guide`${step("view", { path })} to see the current content, then retry.`,
  });
}
