// What of a job's output a result shows: the cleaned tail (ANSI, `\r` redraws and repeated lines
// reduced; lib/core/text/terminal_text.ts), fitted to a budget of bytes on the wire, and for a job that
// did not succeed, the failure-looking lines of the part the tail leaves out. Reads the raw log
// through the JobManager; formatting is in job_text.ts.

import {
  countWarningLines,
  type FailureDigest,
  pickFailureExcerpts,
} from "../../core/jobs/failure_lines.ts";
import { isTerminal, type JobRecord } from "../../core/jobs/job_state.ts";
import { looksLikeRunner, shortenFailedTail } from "../../core/jobs/runner_output.ts";
import {
  addStats,
  type CleanLine,
  type CleanStats,
  cleanTerminalText,
  COLLAPSE_MIN_RUN,
  renderCleanLines,
  statsOf,
} from "../../core/text/terminal_text.ts";
import { showControls, shownWireBytes, tailForWire, utf8Bytes } from "../../core/text/wire_text.ts";
import type { JobManager } from "./job_manager.ts";

export interface JobOutput {
  record: JobRecord;
  /** Size of the log on disk. */
  logBytes: number;
  /** The shown tail: cleaned, control bytes as pictures, at most the budget on the wire. */
  text: string;
  /** Control bytes shown as pictures in `text`. */
  pictured: number;
  /** Raw bytes of output before the shown tail (dropped at the log cap included). */
  omittedBytes: number;
  /** Raw bytes the shown tail stands for. */
  shownRawBytes: number;
  /** The tail was cut inside its first line (one line longer than the budget). */
  cutLine: boolean;
  /** Set when the tail was limited to a passing run's last lines: that many at most. */
  passingLines?: number;
  /** Passing cases of a failed run's tail shown as one count line each run (the log has them). */
  passingCollapsed?: number;
  /**
   * For such a tail: warning-looking lines in the omitted part of the window read (the last
   * `checkedBytes` of the omitted output; `uncheckedBytes` before them were not read).
   */
  warnings?: { count: number; checkedBytes: number; uncheckedBytes: number };
  stats: CleanStats;
  /** For a job that ended without success: failure-looking lines from the omitted part. */
  failures?: FailureDigest & {
    /** Raw bytes of the omitted part that were scanned (from the start of the log). */
    scannedBytes: number;
    /** Raw bytes of the omitted part (what a whole scan would cover). */
    omittedLogBytes: number;
  };
}

/** Raw bytes read for the tail per byte shown: cleaning often shrinks progress output a lot. */
const TAIL_READ_FACTOR = 16;
const TAIL_READ_MIN = 64 * 1024;
const TAIL_READ_MAX = 2 * 1024 * 1024;
/** Failure lines are looked for in at most this much of the omitted part, from its start. */
const FAILURE_SCAN_BYTES = 8 * 1024 * 1024;

/** Whether a job's end is one whose result should say why (anything but running or exit 0). */
export function endedBadly(record: JobRecord): boolean {
  return isTerminal(record.status) && record.status !== "succeeded";
}

/**
 * The wire bytes of a line as shown (control pictures), plus its newline; counted without
 * building the shown string, and only until past `limit`.
 */
function shownCost(text: string, limit: number): number {
  return shownWireBytes(text, limit) + 2;
}

/** Raw bytes of log read for a tail of `maxWireBytes` on the wire. */
export function tailReadBytes(maxWireBytes: number): number {
  return Math.min(TAIL_READ_MAX, Math.max(TAIL_READ_MIN, maxWireBytes * TAIL_READ_FACTOR));
}

import { DEFAULT_PASSING_LINES } from "./output_defaults.ts";
export { DEFAULT_PASSING_LINES };
/**
 * A passing command's whole output up to this many bytes is shown whole, even a test run's: it
 * costs less than the call that would read the rest.
 */
const PASSING_WHOLE_BYTES = 2048;

/**
 * The most lines a passing job's tail shows: `passingLines` for a test or build run longer than
 * PASSING_WHOLE_BYTES (its summary is at its end); any number for other output (`git log`, `jq`:
 * the output is the answer), within the byte budget.
 */
function passingLineLimit(
  record: JobRecord,
  logBytes: number,
  window: string,
  passingLines: number | undefined,
): number {
  if (record.status !== "succeeded" || !passingLines) return Infinity;
  if (logBytes <= PASSING_WHOLE_BYTES) return Infinity;
  return looksLikeRunner(record.command, window) ? passingLines : Infinity;
}

interface ReadJobOutputOptions {
  /** Add the failure-looking lines of the omitted part (default: when the job ended badly). */
  failures?: boolean;
  /**
   * For a job that succeeded: show at most this many lines (within the byte budget). A passing
   * run needs its last lines (the runner's summary), not kilobytes of passing cases.
   */
  passingLines?: number;
}

/** Reads the job's output as a result shows it. */
export async function readJobOutput(
  jobs: JobManager,
  id: string,
  maxWireBytes: number,
  options: ReadJobOutputOptions = {},
): Promise<JobOutput> {
  const want = tailReadBytes(maxWireBytes);
  const { record, tail } = await jobs.readTail(id, want);
  let raw = tail.text;
  let skipped = 0;
  if (tail.omittedBytes - record.droppedBytes > 0) {
    // The window starts mid-log, probably mid-line: that partial line counts as omitted.
    const nl = raw.indexOf("\n");
    if (nl !== -1 && nl < raw.length - 1) {
      skipped = utf8Bytes(raw.slice(0, nl + 1));
      raw = raw.slice(nl + 1);
    }
  }
  const maxLines = passingLineLimit(record, tail.logBytes, raw, options.passingLines);
  const shownTail = plainTail(raw, maxWireBytes, maxLines) ??
    cleanedTail(raw, maxWireBytes, maxLines);
  const { pictured, cutLine, shownRawBytes } = shownTail;
  // A failed run's tail needs its failures and summary, not passing cases and runtime frames.
  const passing = endedBadly(record) ? shortenFailedTail(shownTail.text) : undefined;
  const text = passing?.text ?? shownTail.text;
  // Counted on the log's bytes, not the decoded window's: invalid UTF-8 decodes to U+FFFD (3
  // bytes each), so 200 KB of random bytes would otherwise report ~250 KB omitted.
  const windowBytes = tail.logBytes - Math.max(0, tail.omittedBytes - record.droppedBytes);
  const omittedBytes = tail.omittedBytes +
    Math.min(skipped + shownTail.omittedInWindow, Math.max(0, windowBytes - shownRawBytes));
  const output: JobOutput = {
    record,
    logBytes: tail.logBytes,
    text,
    pictured,
    omittedBytes,
    shownRawBytes,
    cutLine,
    stats: shownTail.stats,
    ...(Number.isFinite(maxLines) && { passingLines: maxLines }),
    ...(passing?.collapsed && { passingCollapsed: passing.collapsed }),
  };
  if (Number.isFinite(maxLines) && shownTail.omittedInWindow > 0) {
    // A short tail must not hide a build's warnings: count them in the window already read.
    const count = countWarningLines(raw) - countWarningLines(text);
    if (count > 0) {
      output.warnings = {
        count,
        checkedBytes: skipped + shownTail.omittedInWindow,
        uncheckedBytes: tail.omittedBytes,
      };
    }
  }
  const omittedLogBytes = Math.max(0, tail.logBytes - shownRawBytes);
  if ((options.failures ?? endedBadly(record)) && omittedLogBytes > 0) {
    const scanned = Math.min(omittedLogBytes, FAILURE_SCAN_BYTES);
    const bytes = await jobs.readLog(id, 0, scanned);
    let omittedText = new TextDecoder().decode(bytes);
    if (scanned < omittedLogBytes) {
      // Stop at the last whole line scanned.
      omittedText = omittedText.slice(0, omittedText.lastIndexOf("\n") + 1);
    }
    const cleaned = cleanTerminalText(omittedText);
    // What the tail shows already (a runner's summary repeats its failures) is not shown twice.
    const digest = pickFailureExcerpts(cleaned.lines, { shownAlready: text });
    for (const e of digest.excerpts) output.stats = addStats(output.stats, statsOf(e.lines));
    output.failures = {
      ...digest,
      scannedBytes: scanned,
      omittedLogBytes,
    };
  }
  return output;
}

/** The shown end of a raw window and what it stands for. */
interface ShownTail {
  text: string;
  pictured: number;
  cutLine: boolean;
  shownRawBytes: number;
  /** Raw bytes of the window before the shown part. */
  omittedInWindow: number;
  stats: CleanStats;
}

// Exported for tests.
/**
 * The tail through the cleaner: one CleanLine per line of the window; at most `maxLines` shown
 * lines (a collapsed run counts as one).
 */
export function cleanedTail(raw: string, maxWireBytes: number, maxLines = Infinity): ShownTail {
  const { lines } = cleanTerminalText(raw);
  // Whole lines from the end while they fit; the notes for collapsed runs count too.
  let budget = maxWireBytes;
  let first = lines.length;
  while (first > 0 && lines.length - first < maxLines) {
    const l = lines[first - 1]!;
    const cost = shownCost(l.text, budget) + (l.count > 1 ? 40 : 0);
    if (cost > budget) break;
    budget -= cost;
    first--;
  }
  let text: string;
  let pictured: number;
  let cutLine = false;
  let shown: CleanLine[] = lines.slice(first);
  let shownRawBytes = shown.reduce((n, l) => n + l.rawBytes, 0);
  if (shown.length === 0 && lines.length > 0) {
    // One line longer than the whole budget: show its end.
    const last = lines[lines.length - 1]!;
    const fit = tailForWire(last.text, maxWireBytes);
    text = fit.text;
    pictured = fit.pictured;
    cutLine = true;
    shown = [last];
    shownRawBytes = Math.max(0, last.rawBytes - fit.droppedBytes);
  } else {
    const rendered = showControls(renderCleanLines(shown));
    text = rendered.text;
    pictured = rendered.replaced;
  }
  const omittedInWindow =
    lines.slice(0, cutLine ? lines.length - 1 : first).reduce((n, l) => n + l.rawBytes, 0) +
    (cutLine ? lines[lines.length - 1]!.rawBytes - shownRawBytes : 0);
  return { text, pictured, cutLine, shownRawBytes, omittedInWindow, stats: statsOf(shown) };
}

// Exported for tests.
/**
 * The same tail for plain output (no ESC, no `\r`, no run of COLLAPSE_MIN_RUN identical lines),
 * which cleans to itself: cut from the raw text with no object per line (a 1 MiB tail of `seq`
 * output is 150,000 lines, and one object each cost ~90 MB of transient memory per call). Null
 * when the output is not plain or no whole line fits (the cleaner handles those).
 */
export function plainTail(
  raw: string,
  maxWireBytes: number,
  maxLines = Infinity,
): ShownTail | null {
  if (raw === "" || hasRepeatRun(raw)) return null;
  if (raw.includes("\x1b") || raw.includes("\x9b") || raw.includes("\r")) return null;
  const body = raw.endsWith("\n") ? raw.length - 1 : raw.length;
  // Whole lines from the end while they fit, each costing what cleanedTail charges it.
  let budget = maxWireBytes;
  let from = body + 1; // start of the shown part; past the body while nothing fits
  let end = body;
  let count = 0;
  while (count < maxLines) {
    const lineStart = end === 0 ? 0 : raw.lastIndexOf("\n", end - 1) + 1;
    const cost = shownCost(raw.slice(lineStart, end), budget);
    if (cost > budget) break;
    budget -= cost;
    from = lineStart;
    count++;
    if (lineStart === 0) break;
    end = lineStart - 1;
  }
  if (from > body) return null;
  const shown = showControls(raw.slice(from, body));
  const shownRawBytes = utf8Bytes(raw.slice(from));
  return {
    text: shown.text,
    pictured: shown.replaced,
    cutLine: false,
    shownRawBytes,
    omittedInWindow: utf8Bytes(raw) - shownRawBytes,
    stats: { ansi: 0, redraws: 0, collapsed: 0 },
  };
}

/** Whether some COLLAPSE_MIN_RUN consecutive lines are identical (compared without copying). */
function hasRepeatRun(raw: string): boolean {
  let prevStart = -1;
  let prevEnd = -1;
  let run = 1;
  let lineStart = 0;
  while (lineStart <= raw.length) {
    let lineEnd = raw.indexOf("\n", lineStart);
    if (lineEnd === -1) lineEnd = raw.length;
    if (lineStart === raw.length) break;
    const same = prevStart !== -1 && lineEnd - lineStart === prevEnd - prevStart &&
      sameRange(raw, prevStart, lineStart, lineEnd - lineStart);
    run = same ? run + 1 : 1;
    if (run >= COLLAPSE_MIN_RUN) return true;
    prevStart = lineStart;
    prevEnd = lineEnd;
    lineStart = lineEnd + 1;
  }
  return false;
}

function sameRange(text: string, a: number, b: number, length: number): boolean {
  for (let i = 0; i < length; i++) {
    if (text.charCodeAt(a + i) !== text.charCodeAt(b + i)) return false;
  }
  return true;
}
