// A bounded outgoing queue in front of the stdio transport: one message is written at a time
// (waiting for the pipe to drain), so a client that reads stdout slowly cannot make the server
// buffer without limit. Progress heartbeats are coalesced per token and dropped when the queue is
// full; identical list_changed notifications are coalesced; results, errors and every other
// message are always kept, in order.

import type {
  JSONRPCMessage,
  MessageExtraInfo,
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/server";
import { messageLine } from "./jsonrpc_check.ts";

interface Item {
  message: JSONRPCMessage;
  options: TransportSendOptions | undefined;
  /** The message's line as written (messageLine, UTF-8): made once, counted and sent as is. */
  line: Uint8Array;
  bytes: number;
  /** Set for progress notifications: they may be replaced or dropped. */
  progressToken?: string | number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * A transport that writes a message's line as the queue already encoded it (the stdio wire): a
 * 60 KB listing reply was serialized twice and its bytes counted by a loop over its text.
 */
export interface EncodedSender {
  sendEncoded(message: JSONRPCMessage, line: Uint8Array): Promise<void>;
}

const encoder = new TextEncoder();

export interface OutboundQueueOptions {
  /** Above this many queued bytes, new progress notifications are dropped (default 256 KiB). */
  maxQueuedBytes?: number;
}

export class OutboundQueue implements Transport {
  private readonly items: Item[] = [];
  private queuedBytes = 0;
  private pumping = false;
  private readonly maxQueuedBytes: number;
  /** Progress notifications dropped or replaced so far (for tests and logs). */
  droppedProgress = 0;

  constructor(private readonly inner: Transport, options: OutboundQueueOptions = {}) {
    this.maxQueuedBytes = options.maxQueuedBytes ?? 256 * 1024;
  }

  get onclose() {
    return this.inner.onclose;
  }
  set onclose(handler: (() => void) | undefined) {
    this.inner.onclose = handler;
  }
  get onerror() {
    return this.inner.onerror;
  }
  set onerror(handler: ((error: Error) => void) | undefined) {
    this.inner.onerror = handler;
  }
  get onmessage() {
    return this.inner.onmessage;
  }
  set onmessage(
    handler:
      | (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void)
      | undefined,
  ) {
    this.inner.onmessage = handler;
  }
  get sessionId() {
    return this.inner.sessionId;
  }
  get setProtocolVersion() {
    return this.inner.setProtocolVersion;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  close(): Promise<void> {
    this.releaseAllWaiters();
    return this.inner.close();
  }

  /** Bytes waiting to be written. */
  get pendingBytes(): number {
    return this.queuedBytes;
  }

  private readonly sentWaiters = new Map<string | number, (() => void)[]>();

  /**
   * Resolves once the reply (result or error) to request `id` has been written, or the transport
   * closed: a big reply's memory can be counted until it has left the process.
   */
  whenReplySent(id: string | number): Promise<void> {
    return new Promise((resolve) => {
      const list = this.sentWaiters.get(id) ?? [];
      list.push(resolve);
      this.sentWaiters.set(id, list);
    });
  }

  private replySent(message: JSONRPCMessage): void {
    if (this.sentWaiters.size === 0) return;
    const m = message as { id?: string | number; result?: unknown; error?: unknown };
    if (m.id === undefined || (m.result === undefined && m.error === undefined)) return;
    const list = this.sentWaiters.get(m.id);
    if (!list) return;
    this.sentWaiters.delete(m.id);
    for (const resolve of list) resolve();
  }

  /** Wakes every reply waiter (the transport closed: nothing more will be written). */
  private releaseAllWaiters(): void {
    const lists = [...this.sentWaiters.values()];
    this.sentWaiters.clear();
    for (const list of lists) for (const resolve of list) resolve();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const token = progressTokenOf(message);
    const line = encoder.encode(messageLine(message));
    const bytes = line.length;
    if (isListChanged(message)) {
      // "The list changed" twice in a row says nothing more: keep one queued copy.
      const json = JSON.stringify(message);
      const same = this.items.some((i, n) =>
        (n > 0 || !this.pumping) && isListChanged(i.message) && JSON.stringify(i.message) === json
      );
      if (same) return Promise.resolve();
    }
    if (token !== undefined) {
      // A newer heartbeat replaces a queued one for the same call; past the bound, drop it.
      const queued = this.items.find((i, n) =>
        (n > 0 || !this.pumping) && i.progressToken === token
      );
      if (queued) {
        this.queuedBytes += bytes - queued.bytes;
        queued.message = message;
        queued.line = line;
        queued.bytes = bytes;
        this.droppedProgress++;
        return Promise.resolve();
      }
      if (this.queuedBytes + bytes > this.maxQueuedBytes) {
        this.droppedProgress++;
        return Promise.resolve();
      }
    }
    return new Promise<void>((resolve, reject) => {
      const item: Item = { message, options, line, bytes, resolve, reject };
      if (token !== undefined) item.progressToken = token;
      this.items.push(item);
      this.queuedBytes += bytes;
      this.pump();
      // Heartbeats never hold their sender up.
      if (token !== undefined) resolve();
    });
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.items.length > 0) {
        const item = this.items[0]!;
        try {
          const inner = this.inner as Transport & Partial<EncodedSender>;
          await (inner.sendEncoded
            ? inner.sendEncoded(item.message, item.line)
            : inner.send(item.message, item.options));
          item.resolve();
        } catch (e) {
          item.reject(e);
        } finally {
          this.items.shift();
          this.queuedBytes -= item.bytes;
          this.replySent(item.message);
        }
      }
    } finally {
      this.pumping = false;
    }
  }
}

function isListChanged(message: JSONRPCMessage): boolean {
  return "method" in message && message.method.endsWith("/list_changed");
}

function progressTokenOf(message: JSONRPCMessage): string | number | undefined {
  if (!("method" in message) || message.method !== "notifications/progress") return undefined;
  const token = (message.params as { progressToken?: string | number } | undefined)?.progressToken;
  return token;
}
