// The str_replace matching ladder, in LF space: exact match, then escaped-literal recovery (a
// double-escaped old_text), then whitespace-normalized matching with re-indentation, then
// diagnostics (closest regions with ids and what differs). Only a unique match is ever applied
// (or every exact match with replace_all); anything else fails without writing. Pure.

import { AnchorError } from "./errors.ts";
import { hashHex, hashLine, renderLine } from "./line_id.ts";
import { dominantEol, type TextDoc } from "./text_file.ts";
import { sameDoc, settleFinalNewline, spliceLines } from "./edit_plan.ts";

export type MatchTier = "exact" | "escaped" | "fuzzy";

export interface StrReplaceRequest {
  oldText: string;
  newText: string;
  replaceAll?: boolean;
}

export interface StrReplaceResult {
  doc: TextDoc;
  tier: MatchTier;
  /** Matches applied, as 1-based line ranges of the old file. */
  matches: { startLine: number; endLine: number }[];
  /** What the ladder did beyond an exact match, for the result text; empty for exact. */
  notes: string[];
}

/** The document as one LF string plus the offset where each line starts. */
interface LfText {
  text: string;
  starts: number[];
}

function lfText(doc: TextDoc): LfText {
  const starts = new Array<number>(doc.lines.length);
  let offset = 0;
  for (let i = 0; i < doc.lines.length; i++) {
    starts[i] = offset;
    offset += doc.lines[i]!.length + 1;
  }
  let text = doc.lines.join("\n");
  if (doc.lines.length > 0 && doc.eols[doc.lines.length - 1] !== "") text += "\n";
  return { text, starts };
}

/** 0-based index of the line holding character `offset`. */
function lineAt(lf: LfText, offset: number): number {
  let lo = 0;
  let hi = lf.starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lf.starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

const MAX_LISTED = 20;

function findAll(text: string, needle: string, limit = 10_000): number[] {
  const out: number[] = [];
  if (needle === "") return out;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
    out.push(at);
    if (out.length >= limit) break;
  }
  return out;
}

interface CharEdit {
  from: number;
  to: number;
  replacement: string;
}

/**
 * Applies non-overlapping character edits (sorted by `from`) to the document: each edit is widened
 * to whole lines and spliced line-wise, so untouched lines keep their own endings.
 */
function applyCharEdits(doc: TextDoc, lf: LfText, edits: readonly CharEdit[]): TextDoc {
  // Group edits whose lines touch into blocks of whole lines.
  const blocks: { first: number; last: number; edits: CharEdit[] }[] = [];
  for (const e of edits) {
    const first = lineAt(lf, e.from);
    // The block runs through the line holding the character right after the match, so that a
    // match ending in "\n" joins correctly with the next line when the replacement lacks one.
    const last = e.to >= lf.text.length ? lf.starts.length - 1 : lineAt(lf, e.to);
    const prev = blocks[blocks.length - 1];
    if (prev && first <= prev.last) {
      prev.last = Math.max(prev.last, last);
      prev.edits.push(e);
    } else blocks.push({ first, last, edits: [e] });
  }
  const out: TextDoc = { ...doc, lines: doc.lines.slice(), eols: doc.eols.slice() };
  const eol = dominantEol(doc);
  for (let b = blocks.length - 1; b >= 0; b--) {
    const block = blocks[b]!;
    const blockStart = lf.starts[block.first]!;
    const blockEnd = block.last + 1 < lf.starts.length
      ? lf.starts[block.last + 1]!
      : lf.text.length;
    let text = "";
    let cursor = blockStart;
    for (const e of block.edits) {
      text += lf.text.slice(cursor, e.from) + e.replacement;
      cursor = e.to;
    }
    text += lf.text.slice(cursor, blockEnd);
    const terminated = text.endsWith("\n");
    const newLines = text === "" ? [] : (terminated ? text.slice(0, -1) : text).split("\n");
    spliceLinesKeepingCommon(out, block.first, block.last - block.first + 1, newLines, eol);
  }
  settleFinalNewline(out, doc);
  return out;
}

/** spliceLines, but lines equal at the block's start and end keep their own endings. */
function spliceLinesKeepingCommon(
  doc: TextDoc,
  at: number,
  count: number,
  newLines: string[],
  eol: string,
): void {
  let head = 0;
  while (head < count && head < newLines.length && doc.lines[at + head] === newLines[head]) head++;
  let tail = 0;
  while (
    tail < count - head && tail < newLines.length - head &&
    doc.lines[at + count - 1 - tail] === newLines[newLines.length - 1 - tail]
  ) tail++;
  spliceLines(
    doc,
    at + head,
    count - head - tail,
    newLines.slice(head, newLines.length - tail),
    eol,
  );
}

/** Runs the ladder. Throws NO_MATCH / AMBIGUOUS_MATCH / NO_CHANGE / INVALID_ARGUMENT. */
export function planStrReplace(
  doc: TextDoc,
  request: StrReplaceRequest,
  path: string,
): StrReplaceResult {
  const oldText = request.oldText.replace(/\r\n/g, "\n");
  const newText = request.newText.replace(/\r\n/g, "\n");
  if (oldText === "") {
    throw new AnchorError({
      code: "INVALID_ARGUMENT",
      message: "old_text is empty; str_replace needs the exact text to replace.",
      hint: `To add lines, use batch_edit ${
        JSON.stringify({ path, operations: [{ op: "insert", anchor: -1, content: "..." }] })
      } (anchor: a line id, 0 for the start, -1 for the end).`,
    });
  }
  if (oldText === newText) {
    throw new AnchorError({
      code: "NO_CHANGE",
      message: "old_text and new_text are identical; nothing was written.",
      hint: "Pass the changed text as new_text.",
    });
  }
  const lf = lfText(doc);
  const finish = (
    tier: MatchTier,
    edits: CharEdit[],
    notes: string[],
  ): StrReplaceResult => {
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
    if (tier !== "escaped" && looksDoubleEscaped(newText) && !looksDoubleEscaped(oldText)) {
      notes.push(
        "Note: new_text has a literal \\n outside any string literal and no real line break; " +
          "it was written as is. If you meant a line break, undo_edit and send a real newline " +
          "in the JSON string.",
      );
    }
    return { doc: out, tier, matches, notes };
  };

  // 1. Exact.
  const exact = findAll(lf.text, oldText);
  if (exact.length === 1 || (exact.length > 1 && request.replaceAll)) {
    return finish(
      "exact",
      exact.map((at) => ({ from: at, to: at + oldText.length, replacement: newText })),
      [],
    );
  }
  if (exact.length > 1) throw ambiguous(path, lf, doc, exact, oldText.length, "exactly");

  // 2. Escaped-literal recovery: the model escaped its JSON twice (literal \n, \t, \").
  if (ESCAPE_PATTERN.test(oldText)) {
    for (const mode of ["code", "full"] as const) {
      const candidate = unescapeLiteral(oldText, mode);
      if (candidate === oldText) continue;
      const found = findAll(lf.text, candidate);
      if (found.length === 0) continue;
      if (found.length > 1 && !request.replaceAll) {
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
      return finish(
        "escaped",
        found.map((at) => ({ from: at, to: at + candidate.length, replacement })),
        notes,
      );
    }
  }

  // 3. Whitespace-normalized, line-wise, with re-indentation of the replacement.
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
    return finish("fuzzy", [{ from, to, replacement: reindented.text }], [
      `old_text matched lines ${m + 1}-${lastIdx + 1} only after normalizing whitespace ` +
      `(indentation, spacing, trailing blanks); the match is unique.` +
      (reindented.changed
        ? ` new_text was re-indented to the file's indentation (${
          describeIndent(reindented.unit)
        }).`
        : ""),
    ]);
  }
  if (fuzzy.length > 1) {
    throw ambiguous(
      path,
      lf,
      doc,
      fuzzy.map((i) => lf.starts[i]!),
      0,
      "after normalizing whitespace",
      fuzzyLineCount(oldText),
    );
  }

  // 4. Diagnostics.
  throw noMatch(path, doc, oldText);
}

// ---------------------------------------------------------------------------------------------
// Escapes

const ESCAPE_PATTERN = /\\[ntr"'\\]/;

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
function looksDoubleEscaped(text: string): boolean {
  return !text.includes("\n") && unescapeLiteral(text, "code").includes("\n");
}

// ---------------------------------------------------------------------------------------------
// Whitespace-normalized matching

function normalizeLine(line: string): string {
  const t = line.trim();
  // Most lines have no inner run of whitespace: skip the regex for them.
  return /\s\s|[\t\r\f\v]/.test(t) ? t.replace(/\s+/g, " ") : t;
}

/** Normalized lines of a document, computed once per str_replace and shared by the tiers. */
const normalizedCache = new WeakMap<readonly string[], string[]>();
function normalizedLines(lines: readonly string[]): string[] {
  let out = normalizedCache.get(lines);
  if (!out) normalizedCache.set(lines, out = lines.map(normalizeLine));
  return out;
}

function trimBlankEdges(text: string): string[] {
  const lines = text.split("\n");
  while (lines.length > 0 && lines[0]!.trim() === "") lines.shift();
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === "") lines.pop();
  return lines;
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

const leadingWs = (line: string) => /^[ \t]*/.exec(line)![0];

function columns(indent: string, tab = 4): number {
  let col = 0;
  for (const c of indent) col = c === "\t" ? col + tab - (col % tab) : col + 1;
  return col;
}

/** The indentation step of some lines: "\t" when tabs are used, else the smallest space step. */
function indentUnit(lines: readonly string[]): string | null {
  let tabs = 0;
  let step = 0;
  const widths = new Set<number>();
  for (const l of lines) {
    if (l.trim() === "") continue;
    const ws = leadingWs(l);
    if (ws.startsWith("\t")) tabs++;
    widths.add(columns(ws));
  }
  if (tabs > 0) return "\t";
  const sorted = [...widths].sort((a, b) => a - b);
  for (let i = 1; i < sorted.length; i++) {
    const d = sorted[i]! - sorted[i - 1]!;
    if (d > 0 && (step === 0 || d < step)) step = d;
  }
  if (step === 0 && sorted.length === 1 && sorted[0]! > 0) step = Math.min(sorted[0]!, 4);
  return step > 0 ? " ".repeat(step) : null;
}

function describeIndent(unit: string | null): string {
  if (unit === null) return "same depth";
  return unit === "\t" ? "tabs" : `${unit.length} spaces`;
}

/**
 * Re-indents `newLines` from old_text's indentation to the file's. Each old_text line and the file
 * line it matched give one pair "old indent -> file indent" (the first line last: it is often
 * copied from mid-line without its indentation). A new line with a known indent takes the mapped
 * one; other depths are derived from the nearest known depth in the file's unit (tabs or spaces).
 */
function reindent(
  newLines: string[],
  oldLines: string[],
  fileLines: string[],
): { text: string; changed: boolean; unit: string | null } {
  const map = new Map<number, string>();
  const order = oldLines.map((_, k) => k).slice(1).concat(oldLines.length > 0 ? [0] : []);
  for (const k of order) {
    const o = oldLines[k]!;
    const f = fileLines[k];
    if (f === undefined || o.trim() === "" || f.trim() === "") continue;
    const cols = columns(leadingWs(o));
    if (!map.has(cols)) map.set(cols, leadingWs(f));
  }
  const oldUnit = indentUnit([...oldLines, ...newLines]);
  const fileUnit = indentUnit(fileLines) ?? oldUnit;
  const oldStep = oldUnit === null ? 4 : columns(oldUnit);
  const unit = fileUnit ?? " ".repeat(oldStep);
  const unitCols = columns(unit) || 1;
  const known = [...map.keys()].sort((a, b) => a - b);
  const render = (cols: number) =>
    unit === "\t"
      ? "\t".repeat(Math.floor(cols / 4)) + " ".repeat(cols % 4)
      : " ".repeat(Math.max(0, cols));
  let changed = false;
  const out = newLines.map((line) => {
    if (line.trim() === "") return line === "" ? "" : line;
    const ws = leadingWs(line);
    const body = line.slice(ws.length);
    const cols = columns(ws);
    let indent = map.get(cols);
    if (indent === undefined && known.length > 0) {
      const below = known.filter((c) => c < cols).pop();
      const ref = below ?? known[0]!;
      const levels = (cols - ref) / oldStep;
      const refCols = columns(map.get(ref)!);
      indent = Number.isInteger(levels)
        ? (levels >= 0
          ? map.get(ref)! + unit.repeat(levels)
          : render(Math.max(0, refCols + levels * unitCols)))
        : render(Math.max(0, refCols + (cols - ref)));
    }
    indent ??= ws;
    if (indent !== ws) changed = true;
    return indent + body;
  });
  return { text: out.join("\n"), changed, unit: fileUnit };
}

// ---------------------------------------------------------------------------------------------
// Failures

function ambiguous(
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
  return new AnchorError({
    code: "AMBIGUOUS_MATCH",
    message: `old_text matches ${offsets.length}${offsets.length >= 10_000 ? "+" : ""} places in ${
      JSON.stringify(path)
    } ${how}; nothing was written.`,
    detail: renderMatches(doc, listed) +
      (offsets.length > listed.length ? `\n... ${offsets.length - listed.length} more` : ""),
    hint: "Either (1) add surrounding lines to old_text so it matches one place, (2) pass " +
      '"replace_all": true to replace every match, or (3) use batch_edit with the ids above, ' +
      `e.g. ${
        JSON.stringify({
          path,
          operations: [{
            op: "replace",
            start: f.range.split("..")[0],
            ...(f.first === f.last ? {} : { end: f.range.split("..")[1] }),
            content: "...",
          }],
        })
      }.`,
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

interface Candidate {
  /** 0-based first line of the region. */
  start: number;
  score: number;
}

const MAX_CANDIDATES = 3;
const MAX_REGION_LINES = 30;

/**
 * Scores normalized lines by similarity to `probe` in [0, 1]: the Dice coefficient over
 * character bigrams of the normalized text. The probe's bigrams are counted once; lines too short or too long to reach
 * `floor` are skipped without counting.
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
    for (let i = 0; i < lines.length; i++) {
      const ks = index.get(norm[i]!);
      if (!ks) continue;
      for (const k of ks) {
        const start = i - k;
        if (start >= 0) votes.set(start, (votes.get(start) ?? 0) + 1);
      }
    }
  }
  let ranked: Candidate[] = [...votes].map(([start, v]) => ({ start, score: v }));
  if (ranked.length === 0) {
    // Nothing matched whole: rank single lines by similarity to old_text's most telling line.
    const probe = [...want].sort((a, b) => normalizeLine(b).length - normalizeLine(a).length)[0];
    const k = want.indexOf(probe ?? "");
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

/** Says how one old_text line differs from the file's line. */
function describeDifference(want: string, have: string): string {
  if (want === have) return "same";
  if (want.trim() === have.trim()) {
    const w = leadingWs(want);
    const h = leadingWs(have);
    if (w !== h) {
      return `indentation differs: old_text has ${describeWs(w)}, the file has ${describeWs(h)}`;
    }
    return "trailing whitespace differs";
  }
  if (normalizeLine(want) === normalizeLine(have)) return "spacing inside the line differs";
  let i = 0;
  while (i < want.length && i < have.length && want[i] === have[i]) i++;
  const snippet = (s: string) => JSON.stringify(s.slice(Math.max(0, i - 10), i + 20));
  return `differs from column ${i + 1}: old_text has ${snippet(want)}, the file has ${
    snippet(have)
  }`;
}

function describeWs(ws: string): string {
  if (ws === "") return "none";
  const tabs = [...ws].filter((c) => c === "\t").length;
  const spaces = ws.length - tabs;
  return [
    tabs ? `${tabs} tab${tabs === 1 ? "" : "s"}` : "",
    spaces ? `${spaces} space${spaces === 1 ? "" : "s"}` : "",
  ]
    .filter(Boolean).join(" + ");
}

function noMatch(path: string, doc: TextDoc, oldText: string): AnchorError {
  const want = trimBlankEdges(oldText);
  const regions = closestRegions(doc.lines, want.length > 0 ? want : [oldText]);
  const blocks: string[] = [];
  let example: Record<string, unknown> | undefined;
  for (const c of regions) {
    const count = Math.min(Math.max(want.length, 1), MAX_REGION_LINES);
    const end = Math.min(doc.lines.length, c.start + count);
    const out = [`Closest region: lines ${c.start + 1}-${end}:`];
    for (let n = c.start; n < end; n++) out.push(renderLine(n + 1, doc.lines[n]!));
    const diffs: string[] = [];
    for (let k = 0; k < Math.min(want.length, end - c.start); k++) {
      const d = describeDifference(want[k]!, doc.lines[c.start + k]!);
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
  const escapedNote = ESCAPE_PATTERN.test(oldText) && !oldText.includes("\n")
    ? " old_text contains literal escape sequences (e.g. \\n) even when read as escapes."
    : "";
  return new AnchorError({
    code: "NO_MATCH",
    message: `old_text was not found in ${
      JSON.stringify(path)
    } (tried: exact, escape sequences, whitespace-normalized); nothing was written.${escapedNote}`,
    detail: blocks.length > 0
      ? blocks.join("\n\n")
      : `No region of the file resembles old_text (the file has ${doc.lines.length} lines).`,
    hint: example
      ? `Copy old_text exactly from the lines above (without the "N:hh|" prefixes) and retry ` +
        `str_replace, or replace by id: batch_edit ${JSON.stringify(example)}.`
      : `view ${JSON.stringify({ path })} to see the current content, then retry.`,
  });
}
