// Command output as a terminal would have left it, for the model to read: ANSI escape sequences
// removed, `\r` redraws (progress bars, spinners) reduced to their last frame, runs of identical
// lines collapsed with a count. Line by line, so every cleaned line keeps its line number and its
// size in the raw log. Pure; the log on disk keeps the raw bytes.

import { plural } from "../plural.ts";
import { showControls, utf8Bytes } from "./wire_text.ts";

/** CSI (`ESC [ … final`), OSC (`ESC ] … BEL|ST`), DCS/SOS/PM/APC strings and 2-byte escapes. */
const ANSI =
  // deno-lint-ignore no-control-regex
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[ -/]*[0-~]|\x9b[0-?]*[ -/]*[@-~]/g;

// Exported for tests.
/** The line without ANSI escapes; `removed` counts the sequences. */
export function stripAnsi(text: string): { text: string; removed: number } {
  if (!text.includes("\x1b") && !text.includes("\x9b")) return { text, removed: 0 };
  let removed = 0;
  const out = text.replace(ANSI, () => {
    removed++;
    return "";
  });
  return { text: out, removed };
}

// Exported for tests.
/**
 * One line (no `\n`) as the terminal showed it last: ANSI removed, and of the frames a `\r`
 * separates, the last one that is not empty. A trailing `\r` (CRLF) is a line ending, not a frame.
 */
export function cleanTerminalLine(raw: string): { text: string; ansi: number; frames: number } {
  const { text, removed } = stripAnsi(raw.endsWith("\r") ? raw.slice(0, -1) : raw);
  if (!text.includes("\r")) return { text, ansi: removed, frames: 0 };
  const frames = text.split("\r");
  let last = "";
  for (let i = frames.length - 1; i >= 0; i--) {
    if (frames[i]!.trim() !== "") {
      last = frames[i]!;
      break;
    }
  }
  return { text: last, ansi: removed, frames: frames.length - 1 };
}

export interface CleanLine {
  /** The cleaned text of the line (no terminator). */
  text: string;
  /** Line number in the log: the chunk's first line number plus its position. */
  line: number;
  /** UTF-8 bytes of the raw lines this stands for, terminators included. */
  rawBytes: number;
  /** How many identical consecutive lines this stands for (1: not collapsed). */
  count: number;
  /** ANSI sequences and `\r` redraws removed from the raw lines this stands for. */
  ansi: number;
  redraws: number;
}

export interface CleanStats {
  ansi: number;
  redraws: number;
  /** Lines left out by collapsing identical runs. */
  collapsed: number;
}

/** Runs shorter than this stay as they are (two copies read better than a count line). */
export const COLLAPSE_MIN_RUN = 3;

/**
 * Cleans a chunk of output that starts at a line start (`firstLine` is its line number).
 * A final piece without `\n` is a line too. Identical runs of COLLAPSE_MIN_RUN or more become
 * one CleanLine with a count.
 */
export function cleanTerminalText(
  raw: string,
  firstLine = 1,
): { lines: CleanLine[]; stats: CleanStats } {
  const stats: CleanStats = { ansi: 0, redraws: 0, collapsed: 0 };
  const lines: CleanLine[] = [];
  if (raw === "") return { lines, stats };
  const pieces = raw.split("\n");
  const endsWithNewline = pieces[pieces.length - 1] === "";
  if (endsWithNewline) pieces.pop();
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i]!;
    const cleaned = cleanTerminalLine(piece);
    stats.ansi += cleaned.ansi;
    stats.redraws += cleaned.frames;
    const rawBytes = utf8Bytes(piece) + (i < pieces.length - 1 || endsWithNewline ? 1 : 0);
    const prev = lines[lines.length - 1];
    if (prev && prev.text === cleaned.text) {
      prev.count++;
      prev.rawBytes += rawBytes;
      prev.ansi += cleaned.ansi;
      prev.redraws += cleaned.frames;
      continue;
    }
    lines.push({
      text: cleaned.text,
      line: firstLine + i,
      rawBytes,
      count: 1,
      ansi: cleaned.ansi,
      redraws: cleaned.frames,
    });
  }
  // Runs below the threshold go back to single lines.
  const out: CleanLine[] = [];
  for (const l of lines) {
    if (l.count === 1 || l.count >= COLLAPSE_MIN_RUN) {
      if (l.count > 1) stats.collapsed += l.count - 1;
      out.push(l);
      continue;
    }
    // The pieces of a short run: sizes and removals are split evenly (they are identical
    // once cleaned; the raw bytes may differ a little, the total stays exact).
    const share = (total: number, k: number) => {
      const each = Math.floor(total / l.count);
      return k === l.count - 1 ? total - each * (l.count - 1) : each;
    };
    for (let k = 0; k < l.count; k++) {
      out.push({
        text: l.text,
        line: l.line + k,
        rawBytes: share(l.rawBytes, k),
        count: 1,
        ansi: share(l.ansi, k),
        redraws: share(l.redraws, k),
      });
    }
  }
  return { lines: out, stats };
}

/** The note that follows a collapsed line. */
function repeatNote(count: number): string {
  return `[previous line repeated ${count - 1} more time${count === 2 ? "" : "s"}]`;
}

/** Cleaned lines as text: a collapsed run is its line plus a note with the count. */
export function renderCleanLines(lines: readonly CleanLine[]): string {
  const out: string[] = [];
  for (const l of lines) {
    out.push(l.text);
    if (l.count > 1) out.push(repeatNote(l.count));
  }
  return out.join("\n");
}

/** "120 ANSI escape sequences removed, 3,400 \\r redraws reduced, …", or "" if none. */
export function describeCleaning(stats: CleanStats): string {
  const parts: string[] = [];
  if (stats.ansi > 0) parts.push(`${plural(stats.ansi, "ANSI escape sequence")} removed`);
  if (stats.redraws > 0) {
    parts.push(`${plural(stats.redraws, "\\r redraw")} reduced to the last frame`);
  }
  if (stats.collapsed > 0) parts.push(`${plural(stats.collapsed, "repeated line")} collapsed`);
  return parts.join(", ");
}

/** What cleaning removed from these lines (those a result shows). */
export function statsOf(lines: readonly CleanLine[]): CleanStats {
  const stats: CleanStats = { ansi: 0, redraws: 0, collapsed: 0 };
  for (const l of lines) {
    stats.ansi += l.ansi;
    stats.redraws += l.redraws;
    stats.collapsed += l.count - 1;
  }
  return stats;
}

/** Adds two stats (a job's output is cleaned in pieces). */
export function addStats(a: CleanStats, b: CleanStats): CleanStats {
  return {
    ansi: a.ansi + b.ansi,
    redraws: a.redraws + b.redraws,
    collapsed: a.collapsed + b.collapsed,
  };
}

/**
 * A whole log as a file to view and search: every line cleaned (ANSI, redraws) and control
 * bytes shown as pictures, with nothing collapsed, so line N is line N of the raw log.
 */
export function cleanLogForViewing(raw: string): string {
  const pieces = raw.split("\n");
  for (let i = 0; i < pieces.length; i++) {
    pieces[i] = showControls(cleanTerminalLine(pieces[i]!).text).text;
  }
  return pieces.join("\n");
}
