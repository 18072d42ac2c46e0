// A job store whose every awaited operation answers within a deadline. The disk store reads and
// writes the state dir, and on a network file system that stops answering (a hung NFS mount)
// or a failing device an operation never settles: without this, the jobs call waiting on it
// (a list, a read, a shell call recording its job) would hang for good, and so would every
// later one. The operation itself cannot be cancelled and goes on in the background; the call
// gets STATE_DIR_NOT_ANSWERING, naming the state dir and the fix. The synchronous parts (a
// running job's log) are left as they are.

import { AnchorError } from "../../core/errors.ts";
import type { JobRecord } from "../../core/jobs/job_state.ts";
import type { JobLog, JobStore, LocalJobFiles, TailRead } from "../ports/job_store.ts";

/**
 * How long a state-dir operation may take. A local disk answers in milliseconds even under load
 * (the whole test suite beside it); a mount that has not answered in 20 s is hung.
 */
const STORE_DEADLINE_MS = 20_000;

/** `store`, each awaited operation failing with STATE_DIR_NOT_ANSWERING after `deadlineMs`. */
export function withStoreDeadline(store: JobStore, deadlineMs = STORE_DEADLINE_MS): JobStore {
  return new DeadlineJobStore(store, deadlineMs);
}

class DeadlineJobStore implements JobStore {
  constructor(private readonly inner: JobStore, private readonly deadlineMs: number) {}

  get stateDir(): string {
    return this.inner.stateDir;
  }

  get root(): string {
    return this.inner.root;
  }

  reserve(id: string): Promise<boolean> {
    return this.within(`create job ${id}'s files`, () => this.inner.reserve(id));
  }

  write(record: JobRecord): Promise<void> {
    return this.within(`write job ${record.id}'s record`, () => this.inner.write(record));
  }

  read(id: string): Promise<JobRecord | undefined> {
    return this.within(`read job ${id}'s record`, () => this.inner.read(id));
  }

  ids(): Promise<string[]> {
    return this.within("list the jobs", () => this.inner.ids());
  }

  list(): Promise<JobRecord[]> {
    return this.within("list the jobs", () => this.inner.list());
  }

  remove(id: string): Promise<void> {
    return this.within(`remove job ${id}`, () => this.inner.remove(id));
  }

  logSize(id: string): Promise<number> {
    return this.within(`read job ${id}'s output`, () => this.inner.logSize(id));
  }

  readTail(id: string, maxBytes: number, droppedBytes?: number): Promise<TailRead> {
    return this.within(
      `read job ${id}'s output`,
      () => this.inner.readTail(id, maxBytes, droppedBytes),
    );
  }

  readRange(id: string, offset: number, length: number): Promise<Uint8Array> {
    return this.within(`read job ${id}'s output`, () => this.inner.readRange(id, offset, length));
  }

  requestKill(id: string): Promise<void> {
    return this.within(`ask for job ${id}'s kill`, () => this.inner.requestKill(id));
  }

  killRequested(id: string): Promise<boolean> {
    return this.within(`read job ${id}'s kill request`, () => this.inner.killRequested(id));
  }

  openLog(id: string, capBytes: number): JobLog {
    return this.inner.openLog(id, capBytes);
  }

  localFiles(id: string): LocalJobFiles | undefined {
    return this.inner.localFiles(id);
  }

  private within<T>(what: string, operation: () => Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.notAnswering(what)), this.deadlineMs);
    });
    return Promise.race([operation(), late]).finally(() => clearTimeout(timer));
  }

  private notAnswering(what: string): AnchorError {
    const seconds = this.deadlineMs / 1000;
    return new AnchorError({
      code: "STATE_DIR_NOT_ANSWERING",
      message: `The job state dir ${JSON.stringify(this.inner.root)} did not answer within ` +
        `${seconds} s when asked to ${what} (a hung network file system or a failing disk); ` +
        "the operation may still finish on its own.",
      hint: "Ask the user to check the disk or mount that holds it, or to restart anchorfs with " +
        "a local state dir: --state-dir DIR (or ANCHORFS_STATE_DIR). Retrying waits as long again.",
      fault: "environment",
    });
  }
}
