// Re-indentation for the fuzzy rung: new_text was written at old_text's indentation, which only
// matched the file after normalizing; carry each depth over to the file's indentation and unit.

import { leadingWs } from "./normalize.ts";

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

export function describeIndent(unit: string | null): string {
  if (unit === null) return "same depth";
  return unit === "\t" ? "tabs" : `${unit.length} spaces`;
}

/**
 * Re-indents `newLines` from old_text's indentation to the file's. Each old_text line and the file
 * line it matched give one pair "old indent -> file indent" (the first line last: it is often
 * copied from mid-line without its indentation). A new line with a known indent takes the mapped
 * one; other depths are derived from the nearest known depth in the file's unit (tabs or spaces).
 */
export function reindent(
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
      const below = largestBelow(known, cols);
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

/** The largest of the ascending `sorted` below `limit` (a binary search: once per new line). */
function largestBelow(sorted: readonly number[], limit: number): number | undefined {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < limit) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? sorted[lo - 1] : undefined;
}
