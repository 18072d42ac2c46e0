// The record writes of this server's jobs: in order per job (a late write never undoes the end),
// retried a few times with backoff, and when they still fail, remembered with why, so every
// answer about the job can say its record is not on disk and the next jobs call tries again.
// It never throws: a failed write is an answer's business, not the job's.

import type { JobRecord, RecordUnsaved } from "../../core/jobs/job_state.ts";
import type { JobStore } from "../ports/job_store.ts";

export interface RecordWriteOptions {
  /** Writes tried before a record counts as unsaved (default 4). */
  attempts?: number;
  /** Wait before the first retry, doubled for each next one (default 100 ms). */
  backoffMs?: number;
}

/** One job's write waiting its turn: it writes whatever is latest when it starts. */
interface Queued {
  done: Promise<RecordUnsaved | undefined>;
  attempts: number;
}

export class RecordWrites {
  /** The newest record asked for, per job, until it is on disk. */
  private readonly latest = new Map<string, JobRecord>();
  private readonly failures = new Map<string, RecordUnsaved>();
  /** The last write in each job's chain (dropped when it settles and nothing follows it). */
  private readonly tails = new Map<string, Promise<unknown>>();
  private readonly queued = new Map<string, Queued>();
  private readonly attempts: number;
  private readonly backoffMs: number;

  constructor(
    private readonly store: JobStore,
    private readonly now: () => number,
    options: RecordWriteOptions = {},
  ) {
    this.attempts = Math.max(1, options.attempts ?? 4);
    this.backoffMs = options.backoffMs ?? 100;
  }

  /**
   * Writes `record` after the job's earlier writes, retrying with backoff; resolves with why it
   * is not on disk, or undefined once it is. A write still waiting its turn takes `record` with
   * it instead of queueing another (a flood's cap updates must not pile up on a full disk).
   */
  write(record: JobRecord, attempts = this.attempts): Promise<RecordUnsaved | undefined> {
    const id = record.id;
    this.latest.set(id, record);
    const waiting = this.queued.get(id);
    if (waiting) {
      waiting.attempts = Math.max(waiting.attempts, attempts);
      return waiting.done;
    }
    const entry: Queued = { done: Promise.resolve(undefined), attempts };
    const before = this.tails.get(id) ?? Promise.resolve();
    entry.done = before.then(() => {
      this.queued.delete(id);
      return this.attempt(id, entry.attempts);
    });
    this.queued.set(id, entry);
    this.tails.set(id, entry.done);
    entry.done.then(() => {
      if (this.tails.get(id) === entry.done) this.tails.delete(id);
    });
    return entry.done;
  }

  /** Why the job's newest record is not on disk, or undefined when it is (or was never asked). */
  failure(id: string): RecordUnsaved | undefined {
    return this.failures.get(id);
  }

  /** The newest record of a job whose record could not be written, with why. */
  unsaved(id: string): JobRecord | undefined {
    const failure = this.failures.get(id);
    const record = this.latest.get(id);
    return failure && record && { ...record, unsaved: failure };
  }

  /** Every job whose newest record is not on disk, as unsaved() shows it. */
  allUnsaved(): JobRecord[] {
    return [...this.failures.keys()].map((id) => this.unsaved(id)!);
  }

  /**
   * One more try for every record that could not be written (the next call that touches jobs
   * makes it, so the disk catches up once it can). Resolves when they are done.
   */
  async retry(): Promise<void> {
    await Promise.all([...this.failures.keys()].map((id) => this.write(this.latest.get(id)!, 1)));
  }

  /** Resolves when every write in flight or queued now has settled (the caller bounds it). */
  async settle(): Promise<void> {
    await Promise.all([...this.tails.values()]);
  }

  private async attempt(id: string, attempts: number): Promise<RecordUnsaved | undefined> {
    let error: unknown;
    for (let tried = 1; tried <= attempts; tried++) {
      // Each try writes the newest record: one asked for during the backoff goes with it.
      const record = this.latest.get(id)!;
      // The note about the disk is this server's memory only: what is written is the record.
      const { unsaved: _, ...onDisk } = record;
      try {
        await this.store.write(onDisk);
        this.failures.delete(id);
        if (this.latest.get(id) === record) this.latest.delete(id);
        return undefined;
      } catch (e) {
        error = e;
        if (tried < attempts) await sleep(this.backoffMs * 2 ** (tried - 1));
      }
    }
    const before = this.failures.get(id);
    const failure = unsavedBecause(this.store, id, error, {
      attempts: (before?.attempts ?? 0) + attempts,
      since: before?.since ?? this.now(),
    });
    this.failures.set(id, failure);
    return failure;
  }
}

/** Why job `id`'s record is not on disk: where it was to go, the error, the tries so far. */
export function unsavedBecause(
  store: JobStore,
  id: string,
  error: unknown,
  tries: { attempts: number; since: number },
): RecordUnsaved {
  return {
    path: store.localFiles(id)?.record ?? store.root,
    code: errorCode(error),
    message: error instanceof Error ? error.message : String(error),
    ...tries,
  };
}

/** The errno name of a system error (Deno's `code`: EACCES, ENOSPC, ...), else its name. */
function errorCode(e: unknown): string {
  const code = (e as { code?: unknown } | undefined)?.code;
  if (typeof code === "string" && code !== "") return code;
  return e instanceof Error ? e.name : "unknown error";
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();
}
