// A real in-memory job store, for tests and the shared contract suite: records and logs in maps,
// nothing on disk. Records are copied in and out, so a caller's object never aliases the
// stored one (as with the disk store). It has no files on disk, so a local process cannot
// write into its logs: jobs kept here run where output arrives through JobLog.append.

import type { JobRecord } from "../../core/jobs/job_state.ts";
import {
  type JobLog,
  type JobStore,
  newestFirst,
  type TailRead,
} from "../../ops/ports/job_store.ts";
import { isJobId } from "../../core/jobs/job_uri.ts";
import { LogCap, type LogFile } from "../log_cap.ts";

interface MemoryJob {
  record?: string;
  log: Uint8Array;
  logBytes: number;
  killRequested: boolean;
}

// Exported for tests.
export class MemoryJobStore implements JobStore {
  readonly stateDir = "(memory)";
  readonly root = "(memory)/jobs";
  private readonly jobs = new Map<string, MemoryJob>();

  reserve(id: string): Promise<boolean> {
    if (this.jobs.has(id)) return Promise.resolve(false);
    this.jobs.set(id, { log: new Uint8Array(1024), logBytes: 0, killRequested: false });
    return Promise.resolve(true);
  }

  write(record: JobRecord): Promise<void> {
    const job = this.jobs.get(record.id);
    if (!job) return Promise.reject(new Error(`no job ${record.id} was reserved`));
    job.record = JSON.stringify(record);
    return Promise.resolve();
  }

  read(id: string): Promise<JobRecord | undefined> {
    const text = isJobId(id) ? this.jobs.get(id)?.record : undefined;
    return Promise.resolve(text === undefined ? undefined : JSON.parse(text) as JobRecord);
  }

  ids(): Promise<string[]> {
    return Promise.resolve([...this.jobs.keys()].filter(isJobId));
  }

  async list(): Promise<JobRecord[]> {
    const records: JobRecord[] = [];
    for (const id of await this.ids()) {
      const record = await this.read(id);
      if (record) records.push(record);
    }
    return newestFirst(records);
  }

  remove(id: string): Promise<void> {
    this.jobs.delete(id);
    return Promise.resolve();
  }

  logSize(id: string): Promise<number> {
    return Promise.resolve(this.jobs.get(id)?.logBytes ?? 0);
  }

  readTail(id: string, maxBytes: number, droppedBytes = 0): Promise<TailRead> {
    const job = this.jobs.get(id);
    if (!job) return Promise.resolve({ text: "", omittedBytes: droppedBytes, logBytes: 0 });
    const size = job.logBytes;
    const want = Math.max(0, Math.min(maxBytes, size));
    const bytes = job.log.subarray(size - want, size);
    let start = 0;
    // Skip UTF-8 continuation bytes so the text starts on a whole character.
    if (size > want) {
      while (start < want && start < 4 && (bytes[start]! & 0xc0) === 0x80) start++;
    }
    const text = new TextDecoder().decode(bytes.subarray(start));
    return Promise.resolve({
      text,
      omittedBytes: size - want + start + droppedBytes,
      logBytes: size,
    });
  }

  readRange(id: string, offset: number, length: number): Promise<Uint8Array> {
    const job = this.jobs.get(id);
    if (!job) return Promise.resolve(new Uint8Array());
    const end = Math.min(job.logBytes, offset + Math.max(0, length));
    return Promise.resolve(job.log.slice(Math.min(offset, end), end));
  }

  requestKill(id: string): Promise<void> {
    const job = this.jobs.get(id);
    if (job) job.killRequested = true;
    return Promise.resolve();
  }

  killRequested(id: string): Promise<boolean> {
    return Promise.resolve(this.jobs.get(id)?.killRequested ?? false);
  }

  openLog(id: string, capBytes: number): JobLog {
    return new LogCap(new MemoryLogFile(() => this.jobs.get(id)), capBytes);
  }

  localFiles(): undefined {
    return undefined;
  }
}

/** A job's log in memory; the job is looked up on every call, so a removed job's log is gone. */
class MemoryLogFile implements LogFile {
  constructor(private readonly job: () => MemoryJob | undefined) {}

  private need(): MemoryJob {
    const job = this.job();
    if (!job) throw new Error("the job's log is gone (the job was removed)");
    return job;
  }

  size(): number | undefined {
    return this.job()?.logBytes;
  }

  readAt(offset: number, buffer: Uint8Array): number {
    const job = this.need();
    const bytes = job.log.subarray(Math.min(offset, job.logBytes), job.logBytes);
    const n = Math.min(bytes.length, buffer.length);
    buffer.set(bytes.subarray(0, n));
    return n;
  }

  truncate(length: number): void {
    const job = this.need();
    if (length < job.logBytes) job.log.fill(0, length, job.logBytes);
    job.logBytes = Math.min(job.logBytes, length);
  }

  append(bytes: Uint8Array): void {
    const job = this.need();
    const needed = job.logBytes + bytes.length;
    if (needed > job.log.length) {
      const grown = new Uint8Array(Math.max(needed, job.log.length * 2));
      grown.set(job.log.subarray(0, job.logBytes));
      job.log = grown;
    }
    job.log.set(bytes, job.logBytes);
    job.logBytes = needed;
  }

  close(): void {}
}
