// How a job reads to a model or a person: status lines, list rows, and the output tail with the
// omitted-byte count and the exact call that reads more, kept as a step each adapter writes in
// its own syntax. Shared by the MCP tools, the job resources and `anchorfs jobs`. Tails are capped
// by their size on the wire (JSON-escaped UTF-8) and show control bytes as visible symbols, so
// NUL- or ESC-flooded output stays within its cap.

import {
  durationMs,
  endReasonAddsToStatus,
  isTerminal,
  type JobRecord,
} from "../../core/jobs/job_state.ts";
import { maskedStatusNote } from "../../core/shell/pipeline_note.ts";
import { formatDuration } from "../../core/jobs/progress_text.ts";
import type { TailRead } from "../ports/job_store.ts";
import type { KillResult } from "./job_manager_options.ts";
import { formatJobUri } from "../../core/jobs/job_uri.ts";
import { describeProcesses } from "../../core/jobs/job_processes.ts";
import {
  type Guide,
  guide,
  joinGuide,
  joinGuides,
  type NextStep,
  step,
  type ToolArgs,
} from "../../core/next_step.ts";
import type { ListedJob } from "./host_probe.ts";
import { plural } from "../../core/plural.ts";
import { CONTROL_PICTURES_NOTE, showControls, tailForWire } from "../../core/text/wire_text.ts";
import {
  cleanTerminalText,
  describeCleaning,
  renderCleanLines,
} from "../../core/text/terminal_text.ts";
import type { JobOutput } from "./job_output.ts";
import { unsavedRecordText } from "./job_messages.ts";
import { isFailureLine, WARNING_SEARCH } from "../../core/jobs/failure_lines.ts";
import { displayCommand } from "../../core/jobs/command_display.ts";
import { DEFAULT_MAX_FILE_BYTES } from "../read_limits.ts";
import { VIEWABLE_LOG_BYTES } from "./job_log_files.ts";

import { DEFAULT_TAIL_BYTES } from "./output_defaults.ts";
export { DEFAULT_TAIL_BYTES };
/** What `anchorfs jobs tail` prints by default (a person's terminal, raw bytes). */
export const PERSON_TAIL_BYTES = 30 * 1024;

/** "succeeded (exit 0)", "failed (exit 2)", "killed (SIGTERM)", "running", ... */
export function statusPhrase(record: JobRecord): string {
  const how = record.signal !== undefined
    ? record.signal
    : record.exitCode !== undefined
    ? `exit ${record.exitCode}`
    : undefined;
  switch (record.status) {
    case "running":
      return "still running";
    case "succeeded":
      return "succeeded (exit 0)";
    case "failed":
      return `FAILED (${how ?? "unknown"})`;
    case "killed":
      return `KILLED on request${how ? ` (${how})` : ""}: cut off, not a success`;
    case "interrupted":
      return `INTERRUPTED: the anchorfs server shut down and terminated it${
        how ? ` (${how})` : ""
      }; cut off, not a success`;
    case "output_capped":
      return `exit 0 but OUTPUT CAPPED: ${
        plural(record.droppedBytes, "byte")
      } of output dropped at the log cap; incomplete, not a clean success`;
    case "lost":
      // A remote job's connection can drop while its server lives on (see finishLost).
      return `LOST: ${
        /^the (connection|channel) to /.test(record.endReason ?? "")
          ? "the connection to its host dropped before its end was seen"
          : "its server died before recording an end"
      }; outcome unknown, not a success`;
  }
}

export function shortCommand(command: string, max = 80): string {
  // Quoted whitespace is kept visible: `grep "a  b"` and `grep "a b"` must not look the same.
  return displayCommand(command, max);
}

/**
 * One line of `jobs list`. A job whose host did not answer the listing's probe says so, when it
 * was asked, and the call that tries again (it waits for the host, up to --ssh-timeout).
 */
function formatJobRow(record: ListedJob, now: number): Guide {
  const when = isTerminal(record.status)
    ? `took ${formatDuration(durationMs(record, now))}`
    : `running ${formatDuration(durationMs(record, now))}`;
  const row = `${record.id}  ${record.status.padEnd(13)}  ${when.padEnd(14)}  ${
    shortCommand(record.command)
  }  (in ${record.cwd})`;
  const down = record.unreachable;
  if (record.unsaved) {
    // The whole story (where, why, the fix) is in its report: the row stays a row.
    return guide`${row}  [RECORD NOT SAVED (${record.unsaved.code}): only this server knows ${
      isTerminal(record.status) ? "its end" : "its latest state"
    }; why and the fix: ${step("jobs", { action: "read", id: record.id })}]`;
  }
  if (!down) return joinGuide(row);
  return guide`${row}  [host unreachable: ${down.reason} (checked ${
    new Date(down.checkedAt).toISOString().slice(11, 19)
  } UTC); its server is gone, so its state there is unknown: retry with ${
    step("jobs", { action: "read", id: record.id })
  }]`;
}

/** The rows of `jobs list`. */
export function formatJobList(records: ListedJob[], now: number): Guide {
  if (records.length === 0) return joinGuide("No jobs recorded.");
  return joinGuides(records.map((r) => formatJobRow(r, now)), "\n");
}

/** A view call that reads a job's log (cleaned) like a file. */
function viewLogStep(id: string, args: Omit<ToolArgs["view"], "path"> = {}): NextStep {
  return step("view", { path: formatJobUri(id), ...args });
}

/**
 * Logs above this are not offered to view: view reads a log whole and refuses one over the
 * server's --max-file-bytes (16 MiB by default) or VIEWABLE_LOG_BYTES. `jobs read` reads any
 * log's end, so that is the call named for them (also right when the flag was raised).
 */
const VIEW_OFFER_LOG_BYTES = Math.min(DEFAULT_MAX_FILE_BYTES, VIEWABLE_LOG_BYTES);

/** The calls that read more of a job's log than its result shows, for the omitted-bytes note. */
function moreOfLog(output: JobOutput, passing: boolean): Guide {
  const id = output.record.id;
  if (output.logBytes > VIEW_OFFER_LOG_BYTES) {
    return guide`${
      step("jobs", { action: "read", id, bytes: 1000000 })
    } (its last 1,000,000 bytes: the log, ${
      plural(output.logBytes, "byte")
    }, is more than view reads whole)`;
  }
  return guide`${viewLogStep(id, { start: -200 })}${
    passing ? "" : " (the last 200 lines of the log)"
  }, or search it: ${viewLogStep(id, { content: "TEXT" })}`;
}

/** Wire bytes of a "latest output" snippet (kill, wait timeouts, promoted commands). */
const LATEST_LINES_BYTES = 2048;

/**
 * The last lines of a short tail for "latest output" snippets, cleaned (ANSI, redraws, repeats)
 * and at most `maxWireBytes` on the wire. A tail that starts mid-log usually starts mid-line
 * ("9" of "19739"), which reads as output of its own: drop that partial first line. Empty when
 * there is nothing to show.
 */
export function latestLines(tail: TailRead, maxWireBytes = LATEST_LINES_BYTES): string {
  const cleaned = renderCleanLines(cleanTerminalText(tail.text).lines);
  const fit = tailForWire(cleaned.trimEnd(), maxWireBytes);
  let text = fit.text;
  if (tail.omittedBytes > 0 || fit.droppedBytes > 0) {
    const nl = text.indexOf("\n");
    if (nl !== -1 && nl < text.length - 1) text = text.slice(nl + 1);
  }
  return fit.pictured > 0 && text !== "" ? `${text}\n[${CONTROL_PICTURES_NOTE}]` : text;
}

/**
 * The failure-looking lines of the omitted part, each excerpt headed by its log line; undefined
 * when there are none.
 */
function formatFailures(output: JobOutput): Guide | undefined {
  const f = output.failures;
  if (!f || f.matched === 0) return undefined;
  const id = output.record.id;
  const scope = f.scannedBytes < f.omittedLogBytes
    ? `the first ${plural(f.scannedBytes, "byte")} of the ${
      plural(f.omittedLogBytes, "byte")
    } before the tail`
    : `the ${plural(f.omittedLogBytes, "byte")} before the tail`;
  const viewable = output.logBytes <= VIEW_OFFER_LOG_BYTES;
  const numbers = viewable
    ? guide`line numbers as in ${viewLogStep(id, { start: f.excerpts[0]?.firstLine ?? 1 })}`
    : "line numbers of the log";
  const repeats = f.repeated > 0
    ? `; ${plural(f.repeated, "excerpt")} that repeat lines shown here left out`
    : "";
  const heading = `--- failure-looking lines from ${scope} (${f.shown} of ${f.matched} shown, ` +
    `with context${repeats}; `;
  const lines: (string | Guide)[] = [guide`${heading}${numbers}) ---`];
  for (const e of f.excerpts) {
    lines.push(`[line ${e.firstLine}${e.lastLine > e.firstLine ? `-${e.lastLine}` : ""}]`);
    lines.push(showControls(renderCleanLines(e.lines)).text);
  }
  if (f.shown < f.matched) {
    lines.push(
      guide`[${plural(f.matched - f.shown, "more failure-looking line")}${
        viewable
          ? guide`: ${viewLogStep(id, { content: FAILURE_SEARCH, regex: true })}`
          : " (the log is too big to search with view)"
      }]`,
    );
  }
  return joinGuides(lines, "\n");
}

/** A regex for the log search that finds what failure excerpts show. */
const FAILURE_SEARCH = "not ok|FAIL|Error|error:|Traceback|panicked|assert";

/**
 * The output section: failure lines of the omitted part (for a job that ended badly), the
 * omitted-bytes note with the calls that read more, then the cleaned tail, at most
 * `maxWireBytes` of it as sent (JSON escapes and control pictures counted).
 */
export function formatTail(output: JobOutput, maxWireBytes = DEFAULT_TAIL_BYTES): Guide {
  const { record } = output;
  const lines: (string | Guide)[] = [];
  const failures = formatFailures(output);
  if (failures) lines.push(failures, "--- output (tail) ---");
  if (output.omittedBytes > 0 && output.passingLines !== undefined && !output.cutLine) {
    // A passing run: its last lines carry the summary; the rest is one call away.
    lines.push(
      guide`[${plural(output.omittedBytes, "earlier byte")} omitted: a passing run shows its last ${
        plural(output.passingLines, "line")
      }; more: ${moreOfLog(output, true)}]`,
    );
  } else if (output.omittedBytes > 0) {
    const capped = output.cutLine
      ? ` (the tail is capped at ${plural(maxWireBytes, "byte")} as sent: escapes and control ` +
        "pictures count)"
      : "";
    lines.push(
      guide`[${plural(output.omittedBytes, "earlier byte")} omitted; showing the last ${
        plural(output.shownRawBytes, "byte")
      }${capped}; more: ${moreOfLog(output, false)}]`,
    );
  }
  const w = output.warnings;
  if (w) {
    const where = w.uncheckedBytes > 0
      ? `in the last ${plural(w.checkedBytes, "omitted byte")} (the ${
        plural(w.uncheckedBytes, "byte")
      } before them not checked)`
      : "in the omitted part";
    lines.push(
      guide`[${plural(w.count, "warning-looking line")} ${where}${
        output.logBytes > VIEW_OFFER_LOG_BYTES
          ? " (the log is too big to search with view: read its end with the call above)"
          : guide`: ${viewLogStep(record.id, { content: WARNING_SEARCH, regex: true })}`
      }]`,
    );
  }
  const cleaning = describeCleaning(output.stats);
  if (cleaning) lines.push(`[cleaned for reading: ${cleaning}; the log keeps the raw bytes]`);
  if (output.pictured > 0) {
    lines.push(
      `[${plural(output.pictured, "control byte")} in this output: ${CONTROL_PICTURES_NOTE}]`,
    );
  }
  if (record.droppedBytes > 0) {
    lines.push(
      `[the log passed its cap of ${plural(record.logCapBytes, "byte")}: ${
        plural(record.droppedBytes, "byte")
      } of output dropped]`,
    );
  }
  // A running job may still print: "(no output)" alone would read as its final result.
  const none = isTerminal(record.status) ? "(no output)" : "(no output yet)";
  lines.push(output.text === "" ? none : output.text.replace(/\n$/, ""));
  return joinGuides(lines, "\n");
}

/** The full report of resources/read and jobs read; the tail as in formatTail. */
export function formatJobReport(
  output: JobOutput,
  now: number,
  maxWireBytes = DEFAULT_TAIL_BYTES,
): Guide {
  const { record } = output;
  const header = [
    `job ${record.id}: ${shortCommand(record.command, 200)}`,
    `uri: ${formatJobUri(record.id)}`,
    `cwd: ${record.cwd}`,
    // What holds its processes: in a cgroup no process can leave, or on the process tree.
    ...(record.containment !== undefined ? [`containment: ${record.containment}`] : []),
    `status: ${statusPhrase(record)}`,
    `${isTerminal(record.status) ? "duration" : "running for"}: ${
      formatDuration(durationMs(record, now))
    } (started ${new Date(record.startedAt).toISOString()})`,
  ];
  // The status line already gives the exit code: the end's reason only when it says more.
  if (endReasonAddsToStatus(record)) header.push(`ended: ${record.endReason}`);
  const note = isTerminal(record.status)
    ? maskedStatusNote(record.command, record.exitCode ?? undefined)
    : undefined;
  if (note) header.push(note);
  const body = formatTail(output, maxWireBytes);
  const sep = output.failures?.matched ? "" : "--- output (tail) ---\n";
  const unsaved = unsavedRecordText(record);
  return joinGuide(`${header.join("\n")}\n`, ...(unsaved ? [unsaved, "\n"] : []), sep, body);
}

/** Failure-looking lines a job-end notification quotes at most, and the characters of each. */
const END_NOTE_FAILURES = 5;
const END_NOTE_LINE_CHARS = 160;

/**
 * The short notice of a job's end for a model that was told it is still running: the status
 * line, its first failure-looking lines, its last line and the call that reads the report. Not
 * the report itself: a client that wakes the model on it would pay for the output twice.
 */
export function jobEndNote(output: JobOutput, now: number): Guide {
  const { record } = output;
  const lines: (string | Guide)[] = [
    `Job ${record.id} (\`${shortCommand(record.command)}\`) ended: ${statusPhrase(record)} after ${
      formatDuration(durationMs(record, now))
    }.`,
  ];
  const shown = [
    ...(output.failures?.excerpts ?? []).flatMap((e) => e.lines.map((l) => l.text)),
    ...output.text.split("\n"),
  ];
  const failing = shown.filter(isFailureLine).slice(0, END_NOTE_FAILURES);
  for (const line of failing) lines.push(`  ${clip(line.trim())}`);
  const last = output.text.trimEnd().split("\n").pop()?.trim() ?? "";
  if (last !== "" && !failing.some((l) => l.trim() === last)) {
    lines.push(`last line: ${clip(last)}`);
  }
  const unsaved = unsavedRecordText(record);
  if (unsaved) lines.push(unsaved);
  lines.push(guide`Its output: ${step("jobs", { action: "read", id: record.id })}`);
  return joinGuides(lines, "\n");
}

function clip(text: string): string {
  return text.length > END_NOTE_LINE_CHARS ? `${text.slice(0, END_NOTE_LINE_CHARS)}…` : text;
}

/**
 * What a kill did, in one line: the processes it terminated and the status now; for a job that
 * had already ended, what it had left running. Said the same way to a model and to a person.
 */
export function killText({ record, wasRunning, killed }: KillResult): string {
  // Said with the kill: whether a cgroup made sure nothing of it was missed.
  const held = record.containment !== undefined ? ` (held by ${record.containment})` : "";
  return killDone(record, wasRunning, killed, held) +
    (record.unsaved
      ? ` RECORD NOT SAVED: its end could not be written to ${
        JSON.stringify(record.unsaved.path)
      } (${record.unsaved.code}: ${record.unsaved.message}); only this server knows it; its ` +
        "report says how to fix it."
      : "");
}

function killDone(
  record: JobRecord,
  wasRunning: boolean,
  killed: KillResult["killed"],
  held: string,
): string {
  return wasRunning
    ? `Killed job ${record.id} (\`${shortCommand(record.command)}\`): ${
      killed.length > 0
        ? `terminated ${describeProcesses(killed)}${held}`
        : "no process of it was left to terminate"
    }; ${statusPhrase(record)}.`
    : `Job ${record.id} had already ended: ${statusPhrase(record)}. ${
      killed.length > 0
        ? `Terminated ${describeProcesses(killed)} it had left running.`
        : "No process of it is left; nothing to kill."
    }`;
}

/** jobs wait's answer when the job outlived the wait. */
export function stillRunningText(
  record: JobRecord,
  waitedMs: number,
  tail: TailRead,
  now: number,
): Guide {
  return guide`Job ${record.id} (\`${
    shortCommand(record.command)
  }\`) is still running after waiting ${formatDuration(waitedMs)} (running for ${
    formatDuration(durationMs(record, now))
  }). Waiting did not stop it. Continue with ${
    step("jobs", { action: "wait", id: record.id })
  } or carry on with other work: a notification for ${
    formatJobUri(record.id)
  } arrives when it ends.\n--- latest output ---\n${latestLines(tail) || "(none yet)"}`;
}

/**
 * What a view of a job's empty log says instead of an empty file's "add lines" (the log is
 * read-only): the job has printed nothing yet, and how to wait for it; or it ended with no output.
 */
export function emptyLogText(record: JobRecord, now: number): Guide {
  const what = `${formatJobUri(record.id)} is empty: job ${record.id} (\`${
    shortCommand(record.command)
  }\`)`;
  const took = formatDuration(durationMs(record, now));
  if (isTerminal(record.status)) {
    return joinGuide(`${what} ended after ${took} with no output: ${statusPhrase(record)}.`);
  }
  const id = record.id;
  return guide`${what} has printed nothing yet (running for ${took}). Wait for it to end with ${
    step("jobs", { action: "wait", id })
  } (waiting never kills it), or view this log again later.`;
}

/**
 * The notice on a re-view of a running job's log (a model polling it): it may still grow, and
 * jobs wait follows it without more views.
 */
export function runningLogNotice(record: JobRecord, now: number): Guide {
  return guide`job ${record.id} is still running (for ${
    formatDuration(durationMs(record, now))
  }), so its log may grow: wait for its end with ${
    step("jobs", { action: "wait", id: record.id })
  } instead of viewing it again`;
}
