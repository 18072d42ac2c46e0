// What the job manager needs to keep jobs durable: one record and one output log per job, shared
// by every server and by `anchorfs jobs` in another terminal. Only the interface lives here;
// lib/backends/local/disk_job_store.ts keeps jobs under the state dir, and
// lib/backends/memory/memory_job_store.ts keeps them in memory (one contract suite runs both:
// tests/backends/_job_store_contract.ts).

import type { JobRecord } from "../../core/jobs/job_state.ts";
import {
  defaultStateDir as platformStateDir,
  describePlatform,
  type PlatformDescription,
} from "../../core/platform/platform.ts";

export interface TailRead {
  text: string;
  /** Bytes of output not in `text`: earlier bytes in the log plus bytes dropped by the cap. */
  omittedBytes: number;
  /** Current size of the log file. */
  logBytes: number;
}

/** Where a job's files are on this machine's disk. */
export interface LocalJobFiles {
  /** The output log (on Windows a local child writes into it directly). */
  log: string;
  /** Where a command line too long for argv is written as a script. */
  script: string;
  /** The record (record.json), for messages about writing it. */
  record?: string;
}

/**
 * A running job's log, held by its server while the job runs: output is appended to it (a local
 * job's pipe, a remote job's stream; on Windows a local child writes into the file itself) and
 * it is kept under its cap.
 * Past the cap the log keeps its head, a marker, and the newest output; every drop is counted
 * so the record can say how much output is missing. Synchronous, so the window between
 * measuring and cutting is as short as possible.
 */
export interface JobLog {
  readonly capBytes: number;
  /** Bytes of command output removed from the log so far. */
  readonly droppedBytes: number;
  /**
   * Appends command output (throws when the log is gone, the job was removed, or closed: the
   * job has ended, and nothing is appended after its terminal status).
   */
  append(bytes: Uint8Array): void;
  /**
   * Checks the size and cuts the log if it passed the cap (less `reserve` bytes kept free for
   * a note); returns the size after.
   */
  enforce(reserve?: number): { size: number; cut: boolean };
  /**
   * Appends a note of ours on a line of its own, counted apart from the command's output. Only
   * once nothing writes any more: a later cut would count it as dropped output.
   */
  appendNote(note: string): void;
  /** Bytes of command output written so far, given the current log size. */
  outputBytes(logSize: number): number;
  /** Releases what `append` holds open. Safe to call twice. */
  close(): void;
}

export interface JobStore {
  /** The state dir, for messages (where a person finds the jobs; what --state-dir names). */
  readonly stateDir: string;
  /** Where the records are, for messages about reading or writing them. */
  readonly root: string;
  /** Creates the job's record place and empty log; false if the id is taken. */
  reserve(id: string): Promise<boolean>;
  /** Writes the record atomically: readers see the old or the new record, never half of one. */
  write(record: JobRecord): Promise<void>;
  /** The record, or undefined (unknown id, malformed id, unreadable record). */
  read(id: string): Promise<JobRecord | undefined>;
  /** The ids of every record (nothing is read). Throws STATE_DIR_UNREADABLE. */
  ids(): Promise<string[]>;
  /** Every record, newest first. Throws STATE_DIR_UNREADABLE. */
  list(): Promise<JobRecord[]>;
  /** Deletes the record and its log; nothing happens for an unknown id. */
  remove(id: string): Promise<void>;
  /** Current size of the log (0 when there is none). */
  logSize(id: string): Promise<number>;
  /**
   * The last `maxBytes` of the log, cut to start at a character boundary; `droppedBytes` (what
   * the cap removed) is counted as omitted. Costs O(maxBytes).
   */
  readTail(id: string, maxBytes: number, droppedBytes?: number): Promise<TailRead>;
  /** At most `length` bytes of the log from `offset` (fewer at its end; none if it is missing). */
  readRange(id: string, offset: number, length: number): Promise<Uint8Array>;
  /** Leaves a note that someone asked for the job to be killed (its server records "killed"). */
  requestKill(id: string): Promise<void>;
  killRequested(id: string): Promise<boolean>;
  /** Opens a reserved job's log for appending and capping while the job runs. */
  openLog(id: string, capBytes: number): JobLog;
  /** The job's files on this machine's disk; undefined when the store keeps none. */
  localFiles(id: string): LocalJobFiles | undefined;
}

/**
 * `$ANCHORFS_STATE_DIR`, else the platform's place (lib/core/platform.ts): Linux
 * `$XDG_STATE_HOME/anchorfs` or `~/.local/state/anchorfs`, macOS
 * `~/Library/Application Support/anchorfs`, Windows `%LOCALAPPDATA%\anchorfs`.
 */
export function defaultStateDir(
  env: (key: string) => string | undefined,
  platform: PlatformDescription = describePlatform("linux"),
): string {
  return platformStateDir(platform, env);
}

/** Records newest first (start time, then id), the order every store lists them in. */
export function newestFirst(records: JobRecord[]): JobRecord[] {
  return records.sort((a, b) => b.startedAt - a.startedAt || compareIds(b.id, a.id));
}

function compareIds(a: string, b: string): number {
  const [ap, an] = a.split("-").map(Number);
  const [bp, bn] = b.split("-").map(Number);
  return (ap! - bp!) || (an! - bn!);
}
