// The session's own edits of a file, as line splices, so ids issued before one of them can be
// mapped to where their line is now. Only the agent's own edits are trusted: the log is void as
// soon as the file is not byte-for-byte what the last logged edit wrote (anything else changed
// it). Kept apart from the shown-lines memory on purpose. Pure.

import { ownString } from "../text/own_string.ts";
import { diffArrays } from "diff";
import type { EditOp } from "./edit_ops.ts";
import { checkLineId, formatLineId, type LineId } from "./line_id.ts";

/** Old lines start..start+removed-1 (1-based) became `added` new lines. */
interface Splice {
  start: number;
  removed: number;
  added: number;
}

export interface LoggedEdit {
  splices: Splice[];
  /** The fingerprint of the bytes this edit wrote. */
  after: string;
  /** The first changed line, for messages ("moved by your edit at 3"). */
  at: number;
  /** What it wrote in place of which lines (own_revert.ts: a later edit must not undo it). */
  regions?: WrittenRegion[];
}

/** Differing lines past which the window between the common head and tail is one splice. */
const MAX_EDIT_LENGTH = 1000;

/**
 * The splices that turn `before` into `after`, top to bottom. Myers' diff is O((N+M)·D): on a
 * rewritten file (D = N + M) it took 22 s for 4,000 lines, so the common head and tail are
 * skipped and past MAX_EDIT_LENGTH differing lines the window between them is one splice (its
 * old lines then map nowhere: ids into it are refused, never mapped wrongly).
 */
export function splicesBetween(before: readonly string[], after: readonly string[]): Splice[] {
  const shortest = Math.min(before.length, after.length);
  let head = 0;
  while (head < shortest && before[head] === after[head]) head++;
  let tail = 0;
  while (
    tail < shortest - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]
  ) tail++;
  const oldMid = before.slice(head, before.length - tail);
  const newMid = after.slice(head, after.length - tail);
  if (oldMid.length === 0 && newMid.length === 0) return [];
  // At least |N - M| lines differ: past the budget, Myers would give up after its full cost.
  const tooFar = Math.abs(oldMid.length - newMid.length) > MAX_EDIT_LENGTH;
  const parts =
    (tooFar ? undefined : diffArrays(oldMid, newMid, { maxEditLength: MAX_EDIT_LENGTH })) ??
      [
        { value: oldMid, removed: true, added: false, count: oldMid.length },
        { value: newMid, removed: false, added: true, count: newMid.length },
      ];
  const splices: Splice[] = [];
  let line = head + 1;
  let current: Splice | undefined;
  for (const part of parts) {
    const n = part.count ?? part.value.length;
    if (n === 0) continue;
    if (!part.added && !part.removed) {
      current = undefined;
      line += n;
      continue;
    }
    if (!current) {
      current = { start: line, removed: 0, added: 0 };
      splices.push(current);
    }
    if (part.removed) {
      current.removed += n;
      line += n;
    } else current.added += n;
  }
  return splices;
}

// Exported for tests.
/** Where old line `line` is after `splices`; undefined when the edit replaced or removed it. */
export function mapLine(line: number, splices: readonly Splice[]): number | undefined {
  let shift = 0;
  for (const s of splices) {
    if (line < s.start) break;
    if (line < s.start + s.removed) return undefined;
    shift += s.added - s.removed;
  }
  return line + shift;
}

/** Where the lines of `ids` are after `edits` (oldest first); undefined for a replaced line. */
function mapThrough(ids: readonly LineId[], edits: readonly LoggedEdit[]): (number | undefined)[] {
  return ids.map((id) => {
    let n: number | undefined = id.line;
    for (const e of edits) n = n === undefined ? undefined : mapLine(n, e.splices);
    return n;
  });
}

/**
 * How the numbers of later lines moved, e.g. "lines after 12 moved +2, after 40 +3 in all", and
 * what that means for ids the agent holds, said only as far as it is true: ids from its earlier
 * views keep working (mapped through this edit) except those of lines the edit replaced, and
 * only if the file was what the agent was shown (`viewsCurrent`; false after another program's
 * change, when they may be off).
 */
export function describeShifts(
  splices: readonly Splice[],
  viewsCurrent = true,
): string | undefined {
  const parts: string[] = [];
  let total = 0;
  for (const s of splices) {
    const delta = s.added - s.removed;
    if (delta === 0) continue;
    total += delta;
    const last = s.start + Math.max(s.removed, 1) - 1;
    parts.push(`after old line ${s.removed === 0 ? s.start - 1 : last} by ${signed(total)}`);
  }
  if (parts.length === 0) return undefined;
  const moved = `Later line numbers moved: ${parts.join(", ")}`;
  if (!viewsCurrent) {
    return `${moved}. The file was not what you were last shown when this edit read it (it ` +
      "changed since), so ids from your earlier views may be off: view the lines again before " +
      "an edit by id.";
  }
  const cut = splices.filter((s) => s.removed > 0).map((s) =>
    s.removed === 1 ? `${s.start}` : `${s.start}-${s.start + s.removed - 1}`
  );
  if (cut.length === 0) return `${moved}; ids from your earlier views still work.`;
  return `${moved}; ids from your earlier views still work, except those of old line${
    cut.length === 1 && !cut[0]!.includes("-") ? "" : "s"
  } ${cut.slice(0, 6).join(", ")}${cut.length > 6 ? ", …" : ""} (this edit replaced them).`;
}

function signed(n: number): string {
  return n > 0 ? `+${n}` : `${n}`;
}

export interface Remapped {
  ops: EditOp[];
  /**
   * Ids that match the file as given and also, read as numbers from before this session's own
   * edits, a line those edits moved: `12:a3 is line 12 now, and the line you were shown as 12
   * before your edit at 3 is line 15 with the same hash`. Neither reading is safe to apply.
   */
  ambiguous: string[];
  /** One line per moved id: `12:a3 → 15:a3 (moved by your edit at 3)`. */
  moves: string[];
  /** Ranges (new numbering) whose lines only our own edits moved: verified by the mapping. */
  ranges: { from: number; to: number }[];
}

/**
 * Maps the ids of `ops` that are stale in `lines` through the logged edits (newest last): when
 * the mapped line has the id's hash, the op uses the mapped line. `log` must be void-checked by
 * the caller (the file is what the last logged edit wrote).
 */
export function remapThroughLog(
  lines: readonly string[],
  ops: readonly EditOp[],
  log: readonly LoggedEdit[],
): Remapped {
  const moves: string[] = [];
  const ranges: { from: number; to: number }[] = [];
  const ambiguous: string[] = [];
  const out = ops.map((op) => {
    const ids: LineId[] = op.op === "insert"
      ? (op.anchor.kind === "after" ? [op.anchor.id] : [])
      : [op.start, op.end];
    if (ids.length === 0) return op;
    if (ids.every((id) => checkLineId(lines, id) === null)) {
      const other = movedReading(lines, ids, log);
      if (other) ambiguous.push(`${op.what}: ${other}`);
      return op;
    }
    // Ids of one op come from one view: map them all through the same edits, newest first.
    for (let k = 1; k <= log.length; k++) {
      const edits = log.slice(log.length - k);
      const mapped = mapThrough(ids, edits);
      if (mapped.some((n) => n === undefined)) continue;
      const fresh = ids.map((id, i) => ({ line: mapped[i]!, hash: id.hash }));
      if (fresh.some((id) => checkLineId(lines, id) !== null)) continue;
      if (op.op === "replace" && fresh[1]!.line - fresh[0]!.line !== op.end.line - op.start.line) {
        continue; // our edit changed lines inside the range: the agent never saw them
      }
      const at = edits[0]!.at;
      ids.forEach((id, i) => {
        if (id.line !== fresh[i]!.line && !(i === 1 && ids[0]!.line === id.line)) {
          const content = lines[fresh[i]!.line - 1]!;
          moves.push(
            `${formatLineId(id.line, content)} → ${
              formatLineId(fresh[i]!.line, content)
            } (moved by your edit at ${at})`,
          );
        }
      });
      if (op.op === "insert") {
        return { ...op, anchor: { kind: "after" as const, id: fresh[0]! } };
      }
      ranges.push({ from: fresh[0]!.line, to: fresh[1]!.line });
      return { ...op, start: fresh[0]!, end: fresh[1]! };
    }
    return op;
  });
  return { ops: out, moves, ranges, ambiguous };
}

/**
 * Whether ids that match the file would, read as ids from before the session's own edits, name
 * other lines with the same hashes (what a collision of the 8-bit hash makes possible): the
 * sentence that says so, or undefined.
 */
function movedReading(
  lines: readonly string[],
  ids: readonly LineId[],
  log: readonly LoggedEdit[],
): string | undefined {
  for (let k = 1; k <= log.length; k++) {
    const edits = log.slice(log.length - k);
    const mapped = mapThrough(ids, edits);
    if (mapped.some((n) => n === undefined) || mapped.every((n, i) => n === ids[i]!.line)) {
      continue;
    }
    const fresh = ids.map((id, i) => ({ line: mapped[i]!, hash: id.hash }));
    if (fresh.some((id) => checkLineId(lines, id) !== null)) continue;
    const moved = ids.findIndex((id, i) => mapped[i] !== id.line);
    const first = ids[moved]!;
    return `${formatLineId(first.line, lines[first.line - 1]!)} is line ${first.line} now, and ` +
      `the line you were shown as ${first.line} before your edit at ${edits[0]!.at} is line ${
        fresh[moved]!.line
      } with the same hash (${formatLineId(fresh[moved]!.line, lines[fresh[moved]!.line - 1]!)})`;
  }
  return undefined;
}

/** What one splice of an edit wrote: its first line (in the file after it) and the old lines. */
export interface WrittenRegion {
  start: number;
  written: string[];
  removed: string[];
}

/** Lines kept per region (the check needs a few distinctive lines, not the whole edit). */
const REGION_LINES = 200;

/** The regions an edit wrote, from its splices and the lines before and after it. */
export function writtenRegions(
  before: readonly string[],
  after: readonly string[],
  splices: readonly Splice[],
): WrittenRegion[] {
  const out: WrittenRegion[] = [];
  let shift = 0;
  for (const s of splices.slice(0, 20)) {
    const start = s.start + shift;
    if (s.added > 0 && s.removed > 0) {
      out.push({
        start,
        // Copies: the session keeps them for its life, and each line of a file read whole is a
        // slice of the file's text (4,000 logged edits would each hold a whole file).
        written: after.slice(start - 1, start - 1 + Math.min(s.added, REGION_LINES)).map(ownString),
        removed: before.slice(s.start - 1, s.start - 1 + Math.min(s.removed, REGION_LINES)).map(
          ownString,
        ),
      });
    }
    shift += s.added - s.removed;
  }
  return out;
}
