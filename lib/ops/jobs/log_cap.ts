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
  /** Bytes of end notes appended after the last cut (not command output). */
  private noteBytes = 0;
  private readonly headKeep: number;
  private readonly tailKeep: number;

  constructor(private readonly logPath: string, readonly capBytes: number) {
    this.headKeep = Math.floor(capBytes / 2);
    this.tailKeep = Math.min(64 * 1024, Math.floor(capBytes / 8));
  }

  /** Bytes of command output written so far, given the current file size. */
  outputBytes(fileSize: number): number {
    return fileSize - this.markerBytes - this.noteBytes + this.droppedBytes;
  }

  /**
   * Checks the size and cuts the log if it passed the cap (less `reserve` bytes kept free for a
   * note); returns the file size after.
   */
  enforce(reserve = 0): { size: number; cut: boolean } {
    let size: number;
    try {
      size = Deno.statSync(this.logPath).size;
    } catch {
      return { size: 0, cut: false };
    }
    if (size <= this.capBytes - reserve) return { size, cut: false };
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

  /**
   * Appends a note of ours on a line of its own, counted apart from the command's output. Only
   * once nothing writes any more: a later cut would count it as dropped output.
   */
  appendNote(note: string): void {
    const file = Deno.openSync(this.logPath, { read: true, append: true });
    try {
      const size = file.statSync().size;
      let lastByte = 0x0a;
      if (size > 0) {
        const one = new Uint8Array(1);
        file.seekSync(size - 1, Deno.SeekMode.Start);
        if (file.readSync(one) === 1) lastByte = one[0]!;
      }
      const bytes = new TextEncoder().encode(`${lastByte === 0x0a ? "" : "\n"}${note}\n`);
      writeAllSync(file, bytes);
      this.noteBytes += bytes.length;
    } finally {
      file.close();
    }
  }
}

function writeAllSync(file: Deno.FsFile, bytes: Uint8Array): void {
  let rest = bytes;
  while (rest.length > 0) rest = rest.subarray(file.writeSync(rest));
}
