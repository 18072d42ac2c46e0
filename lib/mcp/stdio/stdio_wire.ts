// The stdio transport under serveStdio: reads stdin through our own framing (a byte cap per
// message, oversized messages dropped as they stream in, every malformed line answered) and
// writes one JSON message per line to stdout. Replaces the SDK's StdioServerTransport, whose
// read buffer throws past 10 MiB and so ended the whole session, and which dropped malformed
// lines without a reply. It can start before the SDK has loaded: lines are then checked, held,
// and the opening `initialize` answered early (early_initialize.ts) until `setParser`.

import type {
  JSONRPCMessage,
  MessageExtraInfo,
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/server";
import { AnchorError } from "../../core/errors.ts";
import { plural } from "../../core/plural.ts";
import {
  checkLine,
  type EnvelopeParse,
  errorReply,
  finishCheck,
  INVALID_REQUEST,
  type LineVerdict,
  messageLine,
} from "./jsonrpc_check.ts";
import type { EarlyInitialize } from "./early_initialize.ts";
import { type FrameEvent, LineFramer } from "./line_framer.ts";
import { LifecycleGate } from "./lifecycle_gate.ts";
import { OwedReplies } from "./owed_replies.ts";

/**
 * Default cap on one incoming message, in bytes of JSON (escapes included). A model writes at
 * most a few hundred KB in one tool call (output-token limits), so 4 MiB leaves ample room for
 * scripts; the largest message costs a few times its size while being parsed (line bytes,
 * string, parsed object, the file content it carries), so the cap bounds a call's memory at
 * tens of MB. Change it with `anchorfs mcp --max-message-bytes N`.
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
/** Below this even an `initialize` with a long client description could be refused. */
const MIN_MAX_MESSAGE_BYTES = 4096;

export interface StdioWireOptions {
  maxMessageBytes?: number;
  /** Default: Deno.stdin (read into one reused buffer: streaming garbage cost 30 MB of RSS). */
  input?: WireInput;
  /** Default: Deno.stdout.writable (the lock is released on close; stdout stays open). */
  output?: WritableStream<Uint8Array>;
  /** Where notes on rejected input go (default: nowhere); rate-limited by the wire. */
  log?: (line: string) => void;
  /**
   * The SDK's envelope parse. Without it, checked lines are held until `setParser` (and the
   * first one may be answered by `early`).
   */
  parse?: EnvelopeParse;
  /** Answers the opening `initialize` while the SDK is loading, and drops the SDK's duplicate. */
  early?: EarlyInitialize;
}

/** Where bytes come from: `read` fills the buffer like Deno.FsFile.read; `close` ends a read. */
export interface WireInput {
  read(buffer: Uint8Array): Promise<number | null>;
  close?(): void;
}

const READ_BUFFER_BYTES = 64 * 1024;
/**
 * How long the end of stdin waits for replies still owed before the wire closes (a signal closes
 * it at once): a view or an edit answers within it; a long shell call or search may not.
 */
export const EOF_REPLY_WAIT_MS = 10_000;
const encoder = new TextEncoder();

export class StdioWire implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?:
    | (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void)
    | undefined;

  readonly maxMessageBytes: number;
  private readonly framer: LineFramer;
  private readonly input: WireInput;
  private readonly output: WritableStream<Uint8Array>;
  private writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  private started = false;
  private closed = false;
  private readonly log: (line: string) => void;
  private parse: EnvelopeParse | undefined;
  private readonly early: EarlyInitialize | undefined;
  /** Lines that passed our checks before the SDK's parse was there, in arrival order. */
  private held: Record<string, unknown>[] = [];
  private parserSet!: () => void;
  private readonly parserReady = new Promise<void>((resolve) => this.parserSet = resolve);
  private inputSeen!: () => void;
  /** Resolves once the first line was handled (or stdin ended): the client has spoken. */
  readonly firstInput = new Promise<void>((resolve) => this.inputSeen = resolve);
  /** Malformed or oversized lines answered so far (for logs and tests). */
  rejectedLines = 0;
  /** Refuses requests that arrive before `initialize` (2025 era). */
  private readonly gate = new LifecycleGate();
  /** Requests delivered and not answered yet (waited for at the end of stdin). */
  private readonly owed = new OwedReplies();

  constructor(options: StdioWireOptions = {}) {
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.framer = new LineFramer(this.maxMessageBytes);
    this.input = options.input ?? Deno.stdin;
    this.output = options.output ?? Deno.stdout.writable;
    this.log = options.log ?? (() => {});
    this.parse = options.parse;
    this.early = options.early;
    if (this.parse) this.parserSet();
  }

  /** Starts reading (and answering malformed lines) before the SDK's `start`; idempotent. */
  open(): void {
    if (this.started) return;
    this.started = true;
    this.writer = this.output.getWriter();
    this.readLoop().catch((e) => this.fail(e));
  }

  start(): Promise<void> {
    this.open();
    return Promise.resolve();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Gives the wire the SDK's envelope parse: held lines are judged and delivered in arrival
   * order, and later lines go straight through.
   */
  setParser(parse: EnvelopeParse): void {
    if (this.parse) return;
    this.parse = parse;
    const held = this.held;
    this.held = [];
    // Synchronous (replies are queued on the writer in call order): no line read meanwhile can
    // overtake the held ones.
    for (const value of held) void this.settle(finishCheck(value, parse));
    this.parserSet();
  }

  send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    return this.sendEncoded(message);
  }

  /** send, with the message's line already encoded (OutboundQueue's EncodedSender). */
  sendEncoded(message: JSONRPCMessage, line?: Uint8Array): Promise<void> {
    // The SDK's reply to an `initialize` answered before it loaded: already sent.
    if (this.early?.claim(message)) {
      this.owed.sent(message);
      return Promise.resolve();
    }
    return this.write(message, line);
  }

  private async write(message: JSONRPCMessage, line?: Uint8Array): Promise<void> {
    if (this.closed || !this.writer) throw new Error("the stdio transport is closed");
    try {
      await this.writer.write(line ?? encoder.encode(messageLine(message)));
      this.owed.sent(message);
    } catch (e) {
      // stdout is gone (the client exited): nothing can be answered any more.
      this.fail(e);
      throw e;
    }
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.owed.release();
    // Ends a pending read (it rejects, and the read loop stops quietly).
    try {
      this.input.close?.();
    } catch {
      // already closed
    }
    this.writer?.releaseLock();
    this.onclose?.();
    return Promise.resolve();
  }

  private async readLoop(): Promise<void> {
    const buffer = new Uint8Array(READ_BUFFER_BYTES);
    while (!this.closed) {
      const n = await this.input.read(buffer);
      if (n === null) break;
      for (const event of this.framer.push(buffer.subarray(0, n))) {
        // Awaited: a client flooding bad lines without reading the replies is slowed, not buffered.
        await this.handle(event);
        // After the handling: an early reply has been written before anything else may load.
        this.inputSeen();
        if (this.closed) return;
      }
    }
    // A last message without its newline is still a message: answered like the others.
    const last = this.framer.finish();
    if (last && !this.closed) await this.handle(last);
    this.inputSeen();
    // Messages read before the SDK loaded are delivered before the close, as they would have been.
    if (this.held.length > 0) await this.parserReady;
    // Replies still owed go out before the close (which would drop them), within a bound.
    if (!(await this.owed.whenPaid(EOF_REPLY_WAIT_MS))) {
      this.log(
        `stdin ended with ${plural(this.owed.count, "request")} unanswered after ` +
          `${EOF_REPLY_WAIT_MS / 1000} s; closing`,
      );
    }
    await this.close();
  }

  private async handle(event: FrameEvent): Promise<void> {
    if (event.kind === "oversized") {
      this.note(`a message of ${plural(event.bytes, "byte")} passed the limit and was dropped`);
      await this.reply(oversizedReply(event, this.maxMessageBytes));
      return;
    }
    const verdict = checkLine(event.bytes, this.parse);
    if (verdict.kind === "checked") {
      // The SDK is still loading: hold the message; the opening `initialize` is answered now.
      const early = this.held.length === 0 ? this.early?.answer(verdict.value) : undefined;
      this.held.push(verdict.value);
      if (early) await this.write(early as unknown as JSONRPCMessage).catch(() => {});
      return;
    }
    await this.settle(verdict);
  }

  private async settle(verdict: LineVerdict): Promise<void> {
    if (verdict.kind === "skip" || verdict.kind === "checked") return;
    if (verdict.kind === "deliver") {
      const early = this.gate.judge(verdict.message as unknown as Record<string, unknown>);
      if (early) {
        this.note(early.error.message);
        await this.reply(early);
        return;
      }
      this.owed.delivered(verdict.message);
      this.onmessage?.(verdict.message);
      return;
    }
    this.note(verdict.reason);
    // Each reply is queued on the writer at once, in order; awaiting them slows a flood of bad
    // lines to the pace the client reads.
    await Promise.all(verdict.replies.map((reply) => this.reply(reply)));
  }

  private async reply(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    await this.send(message).catch(() => {});
  }

  private note(line: string): void {
    this.rejectedLines++;
    // The first few say what happened; then one line per thousand keeps stderr from flooding.
    if (this.rejectedLines <= 10 || this.rejectedLines % 1000 === 0) {
      this.log(`rejected input #${this.rejectedLines}: ${line}`);
    }
  }

  private fail(error: unknown): void {
    if (this.closed) return;
    this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    this.close();
  }
}

/** The reply to a message past the cap: the limit, what happened, and the ways forward. */
export function oversizedReply(
  event: { bytes: number; id: string | number | undefined; method: string | undefined },
  maxMessageBytes: number,
): JSONRPCMessage {
  const what = event.method === undefined ? "message" : `${event.method} message`;
  const text =
    `Request too large: the ${what} was ${
      plural(event.bytes, "byte")
    }; this server accepts at most ${
      plural(maxMessageBytes, "byte")
    } per message (JSON as sent, escapes included; anchorfs mcp --max-message-bytes). It was ` +
    "discarded unread; the session and its jobs continue. To write a large file, send it in " +
    'parts below the limit: text_editor {"command":"create"} with the first part, then ' +
    'batch_edit {"path":...,"operations":[{"op":"insert","anchor":-1,"content":"<next part>"}]} ' +
    "for each further part; or generate the file from the shell (e.g. a script that writes it).";
  return errorReply(event.id ?? null, INVALID_REQUEST, text, {
    maxMessageBytes,
    messageBytes: event.bytes,
  });
}

/** Reads `--max-message-bytes`: a whole number of bytes, or with a K or M suffix (KiB, MiB). */
export function parseMaxMessageBytes(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_MAX_MESSAGE_BYTES;
  const m = /^\s*(\d+)\s*([kKmM]?)i?[bB]?\s*$/.exec(raw);
  const value = m ? Number(m[1]) * (m[2] === "" ? 1 : /k/i.test(m[2]!) ? 1024 : 1024 * 1024) : NaN;
  if (!Number.isSafeInteger(value) || value < MIN_MAX_MESSAGE_BYTES) {
    throw new AnchorError({
      code: "INVALID_FLAG",
      message: `--max-message-bytes takes a number of bytes of at least ${
        plural(MIN_MAX_MESSAGE_BYTES, "byte")
      }, got ${JSON.stringify(raw)}.`,
      hint: "e.g. --max-message-bytes 16M (16 MiB; K and M suffixes are binary units).",
    });
  }
  return value;
}
