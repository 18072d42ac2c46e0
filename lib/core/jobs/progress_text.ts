// The text of a liveness heartbeat: elapsed time and the last output line, never more than
// PROGRESS_MAX_CHARS characters, because progress messages are shown in one line by clients and
// must not carry unbounded output.

// Exported for tests.
export const PROGRESS_MAX_CHARS = 200;

/** "4.2s", "3m05s", "1h02m". */
export function formatDuration(ms: number): string {
  const totalSeconds = Math.max(0, ms) / 1000;
  if (totalSeconds < 60) return `${totalSeconds.toFixed(1)}s`;
  const s = Math.floor(totalSeconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, "0")}m`;
  return `${m}m${String(sec).padStart(2, "0")}s`;
}

// Exported for tests.
/** The last non-empty line of a chunk of output, control characters stripped. */
export function lastOutputLine(text: string): string {
  const lines = text.split(/\r\n|\r|\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    // deno-lint-ignore no-control-regex
    const line = lines[i]!.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").replace(/[\x00-\x1f\x7f]/g, "")
      .trim();
    if (line !== "") return line;
  }
  return "";
}

/** Cuts text to at most `max` characters (code points), marking the cut with "…". */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text; // never more code points than code units
  // Split only a head that surely holds max + 1 code points (each is at most 2 code units).
  const head = text.length > 2 * max + 2 ? text.slice(0, 2 * max + 2) : text;
  const chars = Array.from(head);
  if (chars.length <= max) return text;
  return `${chars.slice(0, Math.max(0, max - 1)).join("")}…`;
}

/** The heartbeat message: `running 12.3s · <last line>`, ≤ PROGRESS_MAX_CHARS. */
export function formatProgress(elapsedMs: number, outputTail: string, label = "running"): string {
  const head = `${label} ${formatDuration(elapsedMs)}`;
  const line = lastOutputLine(outputTail);
  return truncateText(line === "" ? head : `${head} · ${line}`, PROGRESS_MAX_CHARS);
}
