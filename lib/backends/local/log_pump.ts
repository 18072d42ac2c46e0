// Moves a local job's output from its pipe into its log: the server, not the job, writes the log.
// Each chunk read (at most CHUNK_BYTES, into one reused buffer, so memory stays flat) is appended
// at once and the cap enforced on it, so the log is durable from the first byte and never passes
// its cap. At the job's end the pipe is drained until every writer is gone (or it goes quiet) and
// then closed: a process still holding it gets EPIPE/SIGPIPE, and nothing grows the log after.

/** What the pump writes into (the job's capped log, lib/backends/log_cap.ts). */
export interface PumpSink {
  readonly capBytes: number;
  append(bytes: Uint8Array): void;
  /** Cuts the log if it passed the cap; returns its size after. */
  enforce(): { size: number };
}

/** Largest read: what a `kill -9` of the server can lose beyond the pipe's own buffer. */
const CHUNK_BYTES = 64 * 1024;

export class LogPump {
  /** Bytes read from the pipe so far. */
  bytes = 0;
  /** Resolves once the pipe has no writer left (EOF), or the pump was closed. */
  readonly ended: Promise<void>;
  private eof = false;
  private closed = false;
  private lastData = Date.now();
  /** Bytes the log can take before the cap must be checked (the size is read only then). */
  private room = 0;
  private reader: ReadableStreamBYOBReader | undefined;

  constructor(stream: ReadableStream<Uint8Array>, private readonly sink: PumpSink) {
    this.ended = this.run(stream);
  }

  private async run(stream: ReadableStream<Uint8Array>): Promise<void> {
    const reader = this.reader = stream.getReader({ mode: "byob" });
    let buffer = new Uint8Array(CHUNK_BYTES);
    try {
      while (!this.closed) {
        const { value, done } = await reader.read(buffer);
        if (done || value === undefined) break;
        this.lastData = Date.now();
        if (!this.closed) this.write(value);
        // The read transferred the buffer into `value`: read into it again.
        buffer = new Uint8Array(value.buffer);
      }
    } catch {
      // the pipe was closed under a pending read (close()), or the stream failed: nothing to keep
    } finally {
      this.eof = !this.closed;
    }
  }

  private write(chunk: Uint8Array): void {
    this.bytes += chunk.length;
    try {
      this.sink.append(chunk);
      this.room -= chunk.length;
      // Only this pump appends output while the job runs; notes come after it has stopped.
      if (this.room < 0) this.room = this.sink.capBytes - this.sink.enforce().size;
    } catch {
      // the log is gone (the job was removed): drop the bytes, keep the job running
    }
  }

  /**
   * Waits for EOF (every process holding the pipe has exited), or until it has been quiet for
   * `quietMs`, at most `maxMs` in all; true at EOF. The caller has already ended the job's
   * processes, so what is left in the pipe is theirs and arrives at once.
   */
  async settle(quietMs = 100, maxMs = 2000): Promise<boolean> {
    const deadline = Date.now() + maxMs;
    while (!this.eof && !this.closed) {
      const wait = Math.min(quietMs, deadline - Date.now());
      if (wait <= 0) break;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([this.ended, new Promise((r) => timer = setTimeout(r, wait))]);
      clearTimeout(timer);
      if (!this.eof && Date.now() - this.lastData >= quietMs) break;
    }
    return this.eof;
  }

  /** Stops reading and closes the pipe's read end; later output is never written. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.reader?.cancel().catch(() => {});
  }
}
