// Waiting for a job with a heartbeat: the shell call's foreground window, jobs wait (MCP) and
// `anchorfs jobs wait` all block on a job for a bounded time while saying it is still alive.
// Never kills: a wait that times out leaves the job running.

import { isTerminal, type JobRecord } from "../../core/jobs/job_state.ts";
import { formatProgress } from "../../core/jobs/progress_text.ts";
import type { JobManager } from "./job_manager.ts";

interface WaitForJobOptions {
  /** How long to wait at most (Infinity: until the job ends). */
  timeoutMs: number;
  /** How often `onHeartbeat` is called while the job runs (default 2 s). */
  heartbeatMs?: number;
  /** Stops waiting (the job keeps running). */
  signal?: AbortSignal;
  /**
   * Called between waits while the job is still running and time is left: `elapsedMs` since
   * the wait began, `record` as now. May be async (it is awaited).
   */
  onHeartbeat?: (record: JobRecord, elapsedMs: number) => void | Promise<void>;
  /** Clock, for tests. */
  now?: () => number;
}

interface WaitForJobResult {
  record: JobRecord;
  /** Whether the job ended (false: the timeout passed or the signal aborted). */
  done: boolean;
  elapsedMs: number;
}

/** The heartbeat interval when a call gives none: 2 s, unless a test run shortened it. */
let defaultHeartbeatMs = 2000;

/**
 * Sets the process-wide default heartbeat interval. Test-only: lib/compose.ts calls it from
 * `ANCHORFS_TEST_HEARTBEAT_MS` (lib/test_timing.ts) so job tests need not wait 2 s per beat.
 */
export function setDefaultHeartbeatMs(ms: number): void {
  defaultHeartbeatMs = ms;
}

/** Blocks until the job ends, `timeoutMs` passes or `signal` aborts, beating in between. */
export async function waitForJob(
  jobs: JobManager,
  id: string,
  options: WaitForJobOptions,
): Promise<WaitForJobResult> {
  const now = options.now ?? Date.now;
  const t0 = now();
  const heartbeatMs = options.heartbeatMs ?? defaultHeartbeatMs;
  let { record, done } = await jobs.wait(id, 0);
  while (!done && !options.signal?.aborted) {
    const left = options.timeoutMs - (now() - t0);
    if (left <= 0) break;
    ({ record, done } = await jobs.wait(id, Math.min(left, heartbeatMs), options.signal));
    // A wait that timed out just as the job ended may carry its final record: that is the end.
    if (isTerminal(record.status)) done = true;
    const elapsed = now() - t0;
    if (!done && options.onHeartbeat && elapsed < options.timeoutMs) {
      await options.onHeartbeat(record, elapsed);
    }
  }
  return { record, done, elapsedMs: now() - t0 };
}

/** Bytes of output tail a heartbeat looks at for its last line. */
const HEARTBEAT_TAIL_BYTES = 4096;

/** A heartbeat's text (≤ 200 chars): how long it has run and its latest output line. */
export async function heartbeatText(
  jobs: JobManager,
  id: string,
  runningMs: number,
): Promise<string> {
  const { tail } = await jobs.readTail(id, HEARTBEAT_TAIL_BYTES);
  return formatProgress(runningMs, tail.text);
}
