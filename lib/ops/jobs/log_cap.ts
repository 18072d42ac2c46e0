// Keeps a job's on-disk log under its cap while the child keeps writing into it directly. The
// child's fd is O_APPEND, so truncating the file under it is safe: its next write lands at the
// new end. Past the cap the log keeps its head, a marker, and the newest output; every drop is
// counted so the record can say how much output is missing.

import { plural } from "../../core/plural.ts";

/** Synchronous, so the window between measuring and truncating is as short as possible. */
export class LogCap {
  /** Bytes of command output removed from the file so far. */
  droppedBytes = 0;
  /** Bytes of our own marker currently in the file (not command output). */
  private markerBytes = 0;
  private readonly headKeep: number;
  private readonly tailKeep: number;

  constructor(private readonly logPath: string, readonly capBytes: number) {
    this.headKeep = Math.floor(capBytes / 2);
    this.tailKeep = Math.min(64 * 1024, Math.floor(capBytes / 8));
  }

  /** Bytes of command output written so far, given the current file size. */
  outputBytes(fileSize: number): number {
    return fileSize - this.markerBytes + this.droppedBytes;
  }

  /** Checks the size and cuts the log if it passed the cap; returns the file size after. */
  enforce(): { size: number; cut: boolean } {
    let size: number;
    try {
      size = Deno.statSync(this.logPath).size;
    } catch {
      return { size: 0, cut: false };
    }
    if (size <= this.capBytes) return { size, cut: false };
    const tail = new Uint8Array(this.tailKeep);
    let filled = 0;
    const file = Deno.openSync(this.logPath, { read: true, write: true });
    try {
      file.seekSync(size - this.tailKeep, Deno.SeekMode.Start);
      while (filled < tail.length) {
        const n = file.readSync(tail.subarray(filled));
        if (n === null) break;
        filled += n;
      }
      const sizeNow = file.statSync().size;
      file.truncateSync(this.headKeep);
      // Output written between the tail read and the truncation is counted but not kept.
      this.droppedBytes += sizeNow - this.headKeep - this.markerBytes - filled;
    } finally {
      file.close();
    }
    const marker = new TextEncoder().encode(
      `\n[anchorfs: output passed the log cap of ${plural(this.capBytes, "byte")}; ${
        plural(this.droppedBytes, "byte")
      } dropped so far; newest output follows]\n`,
    );
    const appender = Deno.openSync(this.logPath, { append: true });
    try {
      writeAllSync(appender, marker);
      writeAllSync(appender, tail.subarray(0, filled));
    } finally {
      appender.close();
    }
    this.markerBytes = marker.length;
    return { size: this.headKeep + marker.length + filled, cut: true };
  }
}

function writeAllSync(file: Deno.FsFile, bytes: Uint8Array): void {
  let rest = bytes;
  while (rest.length > 0) rest = rest.subarray(file.writeSync(rest));
}
