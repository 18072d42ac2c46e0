// Following a job's output as it grows (`anchorfs jobs tail -f`): its tail first, then every new
// byte until the job ends. Reads through the job manager and its store, from any process that
// shares the state dir; survives the log cap cutting the file underneath.

import { isTerminal, type JobRecord } from "../../core/jobs/job_state.ts";
import type { JobManager } from "./job_manager.ts";

interface FollowJobOptions {
  /** Bytes of existing output shown first. */
  tailBytes: number;
  /** Each piece of output, decoded (a character split across reads waits for its rest). */
  onText: (text: string) => void;
  /** The log passed its cap and was cut: what follows skips ahead to the newest output. */
  onCut?: () => void;
  /** How often a running job's log is checked (default 200 ms). */
  pollMs?: number;
}

/** Largest read per step, so a big backlog arrives in pieces. */
const CHUNK_BYTES = 1024 * 1024;
/** After a cut, how far back from the new end following resumes. */
const RESUME_BYTES = 4096;

/** Streams the job's output until it ends; resolves with its final record. */
export async function followJob(
  jobs: JobManager,
  id: string,
  options: FollowJobOptions,
): Promise<JobRecord> {
  const { record: first, tail } = await jobs.readTail(id, options.tailBytes);
  options.onText(tail.text);
  let offset = tail.logBytes;
  let record = first;
  const decoder = new TextDecoder();
  while (true) {
    const ended = isTerminal(record.status);
    const size = await jobs.store.logSize(id);
    if (size < offset) {
      options.onCut?.();
      offset = Math.max(0, size - RESUME_BYTES);
    }
    if (size > offset) {
      const chunk = await jobs.store.readRange(id, offset, Math.min(size - offset, CHUNK_BYTES));
      offset += chunk.length;
      options.onText(decoder.decode(chunk, { stream: true }));
      continue;
    }
    if (ended) return record;
    await new Promise((r) => setTimeout(r, options.pollMs ?? 200));
    record = (await jobs.get(id)) ?? record;
  }
}
