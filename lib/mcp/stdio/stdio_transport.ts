// A thin wrapper around the stdio transport (StdioWire) that lets anchorfs observe the connection:
// who wants to know when stdin closes (shutdown), and what goes out (outbound hooks, e.g. to
// replay finished jobs after a `subscriptions/listen` is acknowledged). serveStdio owns it.

import type {
  JSONRPCMessage,
  MessageExtraInfo,
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/server";

/** Called after each message is written; may send more messages through `send`. */
export type OutboundHook = (
  message: JSONRPCMessage,
  send: (m: JSONRPCMessage) => Promise<void>,
) => void;

export class ObservedTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?:
    | (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void)
    | undefined;
  sessionId?: string | undefined;
  setProtocolVersion?: ((version: string) => void) | undefined;

  private readonly closeListeners: (() => void)[] = [];
  private readonly outboundHooks: OutboundHook[] = [];
  private readonly inboundHooks: ((message: JSONRPCMessage) => void)[] = [];

  constructor(private readonly inner: Transport) {
    inner.onclose = () => {
      this.onclose?.();
      for (const listener of this.closeListeners) listener();
    };
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      for (const hook of this.inboundHooks) hook(message);
      this.onmessage?.(message, extra);
    };
    this.setProtocolVersion = (version) => inner.setProtocolVersion?.(version);
  }

  onClosed(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  onOutbound(hook: OutboundHook): void {
    this.outboundHooks.push(hook);
  }

  onInbound(hook: (message: JSONRPCMessage) => void): void {
    this.inboundHooks.push(hook);
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    await this.inner.send(message, options);
    for (const hook of this.outboundHooks) hook(message, (m) => this.inner.send(m));
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
