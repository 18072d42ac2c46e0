// Cuts the stdio byte stream into newline-delimited messages with a byte cap per message. A
// message past the cap is never held whole: its bytes are dropped as they arrive, and a
// streaming scan of them recovers the top-level "id" and "method" so the sender can be answered.
// Pure: no I/O; the transport feeds chunks in and acts on the events.

const NEWLINE = 0x0a;

export type FrameEvent =
  | { kind: "line"; bytes: Uint8Array }
  | {
    kind: "oversized";
    /** Bytes of the message, newline excluded. */
    bytes: number;
    /** The message's top-level id, when it was a well-formed JSON object carrying one. */
    id: string | number | undefined;
    method: string | undefined;
  };

export class LineFramer {
  /** Chunks of the current (so far within the cap) line. */
  private held: Uint8Array[] = [];
  private heldBytes = 0;
  /** Set while the current line is past the cap and being dropped. */
  private discarding: TopLevelScanner | undefined;
  private discardedBytes = 0;

  constructor(readonly maxLineBytes: number) {
    if (!Number.isInteger(maxLineBytes) || maxLineBytes <= 0) {
      throw new RangeError(`maxLineBytes must be a positive integer, got ${maxLineBytes}`);
    }
  }

  /** Bytes currently held for an unfinished line (never more than the cap). */
  get pendingBytes(): number {
    return this.heldBytes;
  }

  /** Feeds one chunk; returns the complete lines and oversized-message reports it finished. */
  push(chunk: Uint8Array): FrameEvent[] {
    const events: FrameEvent[] = [];
    let at = 0;
    while (at < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, at);
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(at, end);
      if (this.discarding) {
        this.discarding.feed(piece);
        this.discardedBytes += piece.length;
      } else if (this.heldBytes + piece.length > this.maxLineBytes) {
        // Past the cap: scan what was held, then drop it and everything up to the newline.
        this.discarding = new TopLevelScanner();
        for (const held of this.held) this.discarding.feed(held);
        this.discarding.feed(piece);
        this.discardedBytes = this.heldBytes + piece.length;
        this.held = [];
        this.heldBytes = 0;
      } else if (piece.length > 0) {
        // Copy: the caller reuses its read buffer once push returns.
        this.held.push(piece.slice());
        this.heldBytes += piece.length;
      }
      if (nl === -1) break;
      events.push(this.finishLine());
      at = nl + 1;
    }
    return events;
  }

  /**
   * End of input: the unfinished line as a last message (a client may end its last message with
   * the stream instead of a newline, and is owed an answer like any other), or undefined when
   * nothing is held.
   */
  finish(): FrameEvent | undefined {
    if (this.heldBytes === 0 && !this.discarding) return undefined;
    return this.finishLine();
  }

  private finishLine(): FrameEvent {
    if (this.discarding) {
      const scan = this.discarding.result();
      const event: FrameEvent = {
        kind: "oversized",
        bytes: this.discardedBytes,
        id: scan.id,
        method: scan.method,
      };
      this.discarding = undefined;
      this.discardedBytes = 0;
      return event;
    }
    const bytes = this.held.length === 1 ? this.held[0]! : concat(this.held, this.heldBytes);
    this.held = [];
    this.heldBytes = 0;
    return { kind: "line", bytes };
  }
}

function concat(parts: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CAPTURE_KEY_BYTES = 16;
const CAPTURE_VALUE_BYTES = 512;

type State =
  | "start" // before the top-level value
  | "key-or-end" // after "{": a key or "}"
  | "key-next" // after ",": a key
  | "key" // inside a key string
  | "colon"
  | "value" // before a member value
  | "string-value" // inside a member's string value
  | "scalar-value" // inside a number or literal
  | "nested" // inside a nested object/array (depth > 1)
  | "comma-or-end"
  | "done" // the top-level object closed
  | "broken"; // not a JSON object we can read

/**
 * Reads the members "id" and "method" of a top-level JSON object fed in pieces, in constant
 * memory. It checks only the structure it walks (strings, brackets, separators at the top
 * level); anything else makes the result empty. Strings are skipped with indexOf, so most bytes
 * cost no JavaScript work.
 */
export class TopLevelScanner {
  private state: State = "start";
  private depth = 0;
  private inNestedString = false;
  private escaped = false;
  private key: number[] = [];
  private capture: number[] | undefined;
  private captured = new Map<string, number[]>();
  private searched: Uint8Array | undefined;
  private quoteAt = -1;
  private backslashAt = -1;

  feed(bytes: Uint8Array): void {
    this.searched = undefined;
    let i = 0;
    const n = bytes.length;
    while (i < n) {
      switch (this.state) {
        case "done":
          // Anything but whitespace after the object: two values on one line.
          for (; i < n; i++) if (!isSpace(bytes[i]!)) return this.break();
          return;
        case "broken":
          return;
        case "start": {
          const b = bytes[i++]!;
          if (isSpace(b)) continue;
          if (b !== 0x7b) return this.break();
          this.state = "key-or-end";
          continue;
        }
        case "key-or-end":
        case "key-next":
        case "comma-or-end":
        case "colon":
        case "value": {
          const b = bytes[i++]!;
          if (isSpace(b)) continue;
          this.onStructural(b);
          continue;
        }
        case "key":
        case "string-value":
          i = this.inString(bytes, i);
          continue;
        case "scalar-value": {
          const b = bytes[i]!;
          if (b === 0x2c || b === 0x7d || isSpace(b)) {
            this.endValue();
            continue; // the delimiter is handled in comma-or-end
          }
          this.keep(b);
          i++;
          continue;
        }
        case "nested":
          i = this.inNested(bytes, i);
          continue;
      }
    }
  }

  result(): { id: string | number | undefined; method: string | undefined } {
    if (this.state !== "done") return { id: undefined, method: undefined };
    const id = parseCaptured(this.captured.get("id"));
    const method = parseCaptured(this.captured.get("method"));
    return {
      id: typeof id === "string" || (typeof id === "number" && Number.isInteger(id))
        ? id
        : undefined,
      method: typeof method === "string" ? method : undefined,
    };
  }

  private break(): void {
    this.state = "broken";
  }

  private onStructural(b: number): void {
    switch (this.state) {
      case "key-or-end":
      case "key-next":
        if (b === 0x7d && this.state === "key-or-end") {
          this.state = "done";
        } else if (b === QUOTE) {
          this.key = [];
          this.state = "key";
        } else this.break();
        return;
      case "comma-or-end":
        if (b === 0x2c) this.state = "key-next";
        else if (b === 0x7d) this.state = "done";
        else this.break();
        return;
      case "colon":
        if (b === 0x3a) this.state = "value";
        else this.break();
        return;
      case "value": {
        const name = String.fromCharCode(...this.key);
        this.capture = name === "id" || name === "method" ? [] : undefined;
        if (this.capture) this.captured.set(name, this.capture);
        if (b === QUOTE) {
          this.keep(b);
          this.state = "string-value";
        } else if (b === 0x7b || b === 0x5b) {
          this.capture = undefined;
          this.captured.delete(name);
          this.depth = 1;
          this.state = "nested";
        } else {
          this.keep(b);
          this.state = "scalar-value";
        }
        return;
      }
    }
  }

  /** Inside a key or a top-level string value: jump to the closing quote. */
  private inString(bytes: Uint8Array, i: number): number {
    const n = bytes.length;
    while (i < n) {
      if (this.escaped) {
        this.escaped = false;
        this.keep(bytes[i]!);
        i++;
        continue;
      }
      const stop = this.nextQuoteOrBackslash(bytes, i);
      this.keepRange(bytes, i, stop);
      if (stop === n) return n;
      const b = bytes[stop]!;
      if (b === BACKSLASH) {
        this.escaped = true;
        this.keep(b);
        i = stop + 1;
        continue;
      }
      // Closing quote.
      if (this.state === "key") {
        this.state = "colon";
      } else {
        this.keep(b);
        this.endValue();
      }
      return stop + 1;
    }
    return i;
  }

  /** Inside a nested object or array: count brackets outside strings. */
  private inNested(bytes: Uint8Array, i: number): number {
    const n = bytes.length;
    while (i < n) {
      if (this.inNestedString) {
        if (this.escaped) {
          this.escaped = false;
          i++;
          continue;
        }
        const stop = this.nextQuoteOrBackslash(bytes, i);
        if (stop === n) return n;
        if (bytes[stop] === BACKSLASH) this.escaped = true;
        else this.inNestedString = false;
        i = stop + 1;
        continue;
      }
      const b = bytes[i++]!;
      if (b === QUOTE) this.inNestedString = true;
      else if (b === 0x7b || b === 0x5b) this.depth++;
      else if (b === 0x7d || b === 0x5d) {
        if (--this.depth === 0) {
          this.state = "comma-or-end";
          return i;
        }
      }
    }
    return i;
  }

  /**
   * The next quote or backslash at or after `from` (or the chunk's length). Both positions are
   * remembered per chunk, so a string full of escapes costs one pass, not one pass per escape.
   */
  private nextQuoteOrBackslash(bytes: Uint8Array, from: number): number {
    if (this.searched !== bytes) {
      this.searched = bytes;
      this.quoteAt = -1;
      this.backslashAt = -1;
    }
    if (this.quoteAt < from) this.quoteAt = indexOr(bytes, QUOTE, from);
    if (this.backslashAt < from) this.backslashAt = indexOr(bytes, BACKSLASH, from);
    return Math.min(this.quoteAt, this.backslashAt);
  }

  private endValue(): void {
    this.capture = undefined;
    this.state = "comma-or-end";
  }

  private keep(b: number): void {
    if (this.state === "key") {
      if (this.key.length < CAPTURE_KEY_BYTES) this.key.push(b);
    } else if (this.capture && this.capture.length < CAPTURE_VALUE_BYTES) this.capture.push(b);
  }

  private keepRange(bytes: Uint8Array, from: number, to: number): void {
    const room = this.state === "key"
      ? CAPTURE_KEY_BYTES - this.key.length
      : this.capture
      ? CAPTURE_VALUE_BYTES - this.capture.length
      : 0;
    const end = Math.min(to, from + Math.max(0, room));
    for (let j = from; j < end; j++) this.keep(bytes[j]!);
  }
}

function indexOr(bytes: Uint8Array, byte: number, from: number): number {
  const at = bytes.indexOf(byte, from);
  return at === -1 ? bytes.length : at;
}

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0d || b === 0x0a;
}

function parseCaptured(bytes: number[] | undefined): unknown {
  if (bytes === undefined || bytes.length === 0 || bytes.length >= CAPTURE_VALUE_BYTES) {
    return undefined;
  }
  try {
    return JSON.parse(new TextDecoder().decode(new Uint8Array(bytes)));
  } catch {
    return undefined;
  }
}
