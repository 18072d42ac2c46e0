// How a job reads to a model or a person: status lines, list rows, and the output tail with the
// omitted-byte count and the exact call that reads more. Shared by the MCP tools, the job
// resources and `anchorfs jobs`. Tails are capped by their size on the wire (JSON-escaped UTF-8)
// and show control bytes as visible symbols, so NUL- or ESC-flooded output stays within its cap.

import { durationMs, isTerminal, type JobRecord } from "../../core/job_state.ts";
import { maskedStatusNote } from "../../core/pipeline_note.ts";
import { formatDuration, truncateText } from "../../core/progress_text.ts";
import type { TailRead } from "./job_store.ts";
import { jobUri } from "./job_manager.ts";
import { plural } from "../../core/plural.ts";
import { CONTROL_PICTURES_NOTE, tailForWire, utf8Bytes } from "../../core/wire_text.ts";

export const DEFAULT_TAIL_BYTES = 30 * 1024;

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
      return "LOST: its server died before recording an end; outcome unknown, not a success";
  }
}

export function shortCommand(command: string, max = 80): string {
  return truncateText(command.replace(/\s+/g, " ").trim(), max);
}

/** One line of `jobs list`. */
export function formatJobRow(record: JobRecord, now: number): string {
  const when = isTerminal(record.status)
    ? `took ${formatDuration(durationMs(record, now))}`
    : `running ${formatDuration(durationMs(record, now))}`;
  return `${record.id}  ${record.status.padEnd(13)}  ${when.padEnd(14)}  ${
    shortCommand(record.command)
  }  (in ${record.cwd})`;
}

export function formatJobList(records: JobRecord[], now: number): string {
  if (records.length === 0) return "No jobs recorded.";
  return records.map((r) => formatJobRow(r, now)).join("\n");
}

export function readMoreHint(id: string, bytes: number): string {
  return `read more with jobs {"action":"read","id":"${id}","bytes":${bytes}} or ` +
    `\`anchorfs jobs tail ${id} --bytes ${bytes}\``;
}

/** Wire bytes of a "latest output" snippet (kill, wait timeouts, promoted commands). */
export const LATEST_LINES_BYTES = 2048;

/**
 * The last lines of a short tail for "latest output" snippets, at most `maxWireBytes` on the
 * wire. A tail that starts mid-log usually starts mid-line ("9" of "19739"), which reads as
 * output of its own: drop that partial first line. Empty when there is nothing to show.
 */
export function latestLines(tail: TailRead, maxWireBytes = LATEST_LINES_BYTES): string {
  const fit = tailForWire(tail.text.trimEnd(), maxWireBytes);
  let text = fit.text;
  if (tail.omittedBytes > 0 || fit.droppedBytes > 0) {
    const nl = text.indexOf("\n");
    if (nl !== -1 && nl < text.length - 1) text = text.slice(nl + 1);
  }
  return fit.pictured > 0 && text !== "" ? `${text}\n[${CONTROL_PICTURES_NOTE}]` : text;
}

/**
 * The output section: omitted-bytes note first (verdicts are at the end), then the tail, at
 * most `maxWireBytes` of it as sent (JSON escapes and control pictures counted).
 */
export function formatTail(
  record: JobRecord,
  tail: TailRead,
  maxWireBytes = DEFAULT_TAIL_BYTES,
): string {
  const lines: string[] = [];
  const fit = tailForWire(tail.text, maxWireBytes);
  const omitted = tail.omittedBytes + fit.droppedBytes;
  const shownBytes = utf8Bytes(tail.text) - fit.droppedBytes;
  if (omitted > 0) {
    const more = Math.min(omitted + shownBytes, 1024 * 1024);
    const capped = fit.droppedBytes > 0
      ? ` (the tail is capped at ${plural(maxWireBytes, "byte")} as sent: escapes and control ` +
        "pictures count)"
      : "";
    lines.push(
      `[${plural(omitted, "earlier byte")} omitted; showing the last ${
        plural(shownBytes, "byte")
      }${capped}; ${readMoreHint(record.id, more)}]`,
    );
  }
  if (fit.pictured > 0) {
    lines.push(
      `[${plural(fit.pictured, "control byte")} in this output: ${CONTROL_PICTURES_NOTE}]`,
    );
  }
  if (record.droppedBytes > 0) {
    lines.push(
      `[the log passed its cap of ${plural(record.logCapBytes, "byte")}: ${
        plural(record.droppedBytes, "byte")
      } of output dropped]`,
    );
  }
  lines.push(fit.text === "" ? "(no output)" : fit.text.replace(/\n$/, ""));
  return lines.join("\n");
}

/** The full report of resources/read and jobs read; the tail as in formatTail. */
export function formatJobReport(
  record: JobRecord,
  tail: TailRead,
  now: number,
  maxWireBytes = DEFAULT_TAIL_BYTES,
): string {
  const header = [
    `job ${record.id}: ${shortCommand(record.command, 200)}`,
    `uri: ${jobUri(record.id)}`,
    `cwd: ${record.cwd}`,
    `status: ${statusPhrase(record)}`,
    `${isTerminal(record.status) ? "duration" : "running for"}: ${
      formatDuration(durationMs(record, now))
    } (started ${new Date(record.startedAt).toISOString()})`,
  ];
  if (record.endReason) header.push(`ended: ${record.endReason}`);
  const note = isTerminal(record.status)
    ? maskedStatusNote(record.command, record.exitCode ?? undefined)
    : undefined;
  if (note) header.push(note);
  return `${header.join("\n")}\n--- output (tail) ---\n${formatTail(record, tail, maxWireBytes)}`;
}
