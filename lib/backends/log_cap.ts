// Keeps a job's log under its cap while output is appended to it: past the cap the log keeps its
// head, a marker, and the newest output, and every drop is counted. Written once over a few
// synchronous file operations, which the disk and the memory job stores supply. Once closed (the
// job has its terminal status) nothing more is appended. Where a child writes into the file
// itself (Windows) its fd is O_APPEND, so truncating the file under it is safe: its next write
// lands at the new end.

import { plural } from "../core/plural.ts";
import type { JobLog } from "../ops/ports/job_store.ts";

/** The synchronous operations on one log that the cap needs. */
export interface LogFile {
  /** Current size; undefined when the log is gone. */
  size(): number | undefined;
  /** Reads from `offset` into `buffer` until it is full or the log ends; returns bytes read. */
  readAt(offset: number, buffer: Uint8Array): number;
  truncate(length: number): void;
  /** Appends at the end, whatever the size was when it was measured. */
  append(bytes: Uint8Array): void;
  /** Releases what `append` holds open. */
  close(): void;
}

export class LogCap implements JobLog {
  /** Bytes of command output removed from the file so far. */
  droppedBytes = 0;
  /** Bytes of our own marker currently in the file (not command output). */
  private markerBytes = 0;
  /** Bytes of end notes appended after the last cut (not command output). */
  private noteBytes = 0;
  private readonly headKeep: number;
  private readonly tailKeep: number;
  private closed = false;

  constructor(private readonly file: LogFile, readonly capBytes: number) {
    this.headKeep = Math.floor(capBytes / 2);
    this.tailKeep = Math.min(64 * 1024, Math.floor(capBytes / 8));
  }

  append(bytes: Uint8Array): void {
    // Output that arrives after the end (a late chunk of a remote channel) is not the job's any
    // more: the record already counts what the log holds.
    if (this.closed) throw new Error("the job's log is closed: the job has ended");
    this.file.append(bytes);
  }

  outputBytes(fileSize: number): number {
    return fileSize - this.markerBytes - this.noteBytes + this.droppedBytes;
  }

  enforce(reserve = 0): { size: number; cut: boolean } {
    const size = this.file.size();
    if (size === undefined) return { size: 0, cut: false };
    if (size <= this.capBytes - reserve) return { size, cut: false };
    const tail = new Uint8Array(this.tailKeep);
    const filled = this.file.readAt(Math.max(0, size - this.tailKeep), tail);
    const sizeNow = this.file.size() ?? size;
    this.file.truncate(this.headKeep);
    // Output written between the tail read and the truncation is counted but not kept.
    this.droppedBytes += sizeNow - this.headKeep - this.markerBytes - filled;
    const marker = new TextEncoder().encode(
      `\n[anchorfs: output passed the log cap of ${plural(this.capBytes, "byte")}; ${
        plural(this.droppedBytes, "byte")
      } dropped so far; newest output follows]\n`,
    );
    const kept = new Uint8Array(marker.length + filled);
    kept.set(marker);
    kept.set(tail.subarray(0, filled), marker.length);
    this.file.append(kept);
    this.markerBytes = marker.length;
    return { size: this.headKeep + marker.length + filled, cut: true };
  }

  appendNote(note: string): void {
    const size = this.file.size() ?? 0;
    let lastByte = 0x0a;
    if (size > 0) {
      const one = new Uint8Array(1);
      if (this.file.readAt(size - 1, one) === 1) lastByte = one[0]!;
    }
    const bytes = new TextEncoder().encode(`${lastByte === 0x0a ? "" : "\n"}${note}\n`);
    this.file.append(bytes);
    this.noteBytes += bytes.length;
  }

  close(): void {
    this.closed = true;
    this.file.close();
  }
}
