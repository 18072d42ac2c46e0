// The bounded outgoing queue, against a transport whose writes stall like a full stdout pipe:
// results are never dropped and stay in order, heartbeats are coalesced and dropped.

import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/server";
import { assert, assertEquals } from "../_assert.ts";
import { type EncodedSender, OutboundQueue } from "../../lib/mcp/stdio/outbound_queue.ts";
import { messageLine } from "../../lib/mcp/stdio/jsonrpc_check.ts";

class StalledTransport implements Transport {
  sent: JSONRPCMessage[] = [];
  private release: (() => void)[] = [];
  start() {
    return Promise.resolve();
  }
  close() {
    return Promise.resolve();
  }
  send(message: JSONRPCMessage): Promise<void> {
    this.sent.push(message);
    return new Promise((resolve) => this.release.push(resolve));
  }
  /** Lets every pending write finish (the client read a chunk). */
  drain(): void {
    const pending = this.release;
    this.release = [];
    for (const r of pending) r();
  }
}

const progress = (token: string, n: number): JSONRPCMessage => ({
  jsonrpc: "2.0",
  method: "notifications/progress",
  params: { progressToken: token, progress: n, message: `beat ${n} ${"x".repeat(150)}` },
});
const result = (id: number): JSONRPCMessage => ({
  jsonrpc: "2.0",
  id,
  result: { content: [{ type: "text", text: `result ${id} ${"y".repeat(30_000)}` }] },
});

Deno.test("OutboundQueue keeps every result in order and bounds heartbeats while the pipe stalls", async () => {
  const inner = new StalledTransport();
  const queue = new OutboundQueue(inner, { maxQueuedBytes: 64 * 1024 });
  const sends: Promise<void>[] = [];
  for (let i = 0; i < 2000; i++) {
    sends.push(queue.send(progress(`t${i % 4}`, i)));
    if (i % 100 === 0) sends.push(queue.send(result(i)));
  }
  // Queue memory: 20 results of 30 KB are kept; heartbeats add at most one per token.
  assert(queue.pendingBytes < 20 * 31_000 + 4 * 400, `queued ${queue.pendingBytes} bytes`);
  assert(queue.droppedProgress > 1900, `only ${queue.droppedProgress} heartbeats dropped`);
  while (inner.sent.length < 1 || queue.pendingBytes > 0) {
    inner.drain();
    await new Promise((r) => setTimeout(r, 0));
  }
  await Promise.all(sends);
  const ids = inner.sent.filter((m) => "id" in m).map((m) => (m as { id: number }).id);
  assertEquals(ids, Array.from({ length: 20 }, (_, k) => k * 100));
});

Deno.test("OutboundQueue passes messages straight through when the pipe keeps up", async () => {
  const inner = new StalledTransport();
  const queue = new OutboundQueue(inner);
  const sent = queue.send(result(1));
  inner.drain();
  await sent;
  const beat = queue.send(progress("a", 1));
  await beat; // heartbeats never hold their sender up
  inner.drain();
  await new Promise((r) => setTimeout(r, 0));
  assertEquals(inner.sent.length, 2);
  assertEquals(queue.droppedProgress, 0);
});

Deno.test("OutboundQueue keeps one queued copy of a repeated list_changed notification", async () => {
  const inner = new StalledTransport();
  const queue = new OutboundQueue(inner);
  const changed: JSONRPCMessage = {
    jsonrpc: "2.0",
    method: "notifications/resources/list_changed",
  };
  const sends = [
    queue.send(result(1)),
    queue.send(changed),
    queue.send(changed),
    queue.send(changed),
  ];
  while (queue.pendingBytes > 0) {
    inner.drain();
    await new Promise((r) => setTimeout(r, 0));
  }
  await Promise.all(sends);
  assertEquals(inner.sent.length, 2);
});

Deno.test("OutboundQueue.whenReplySent resolves once that reply is written, or on close", async () => {
  const inner = new StalledTransport();
  const queue = new OutboundQueue(inner);
  let sent = false;
  queue.whenReplySent(7).then(() => sent = true);
  const write = queue.send(result(7));
  await new Promise((r) => setTimeout(r, 0));
  assert(!sent, "still in the pipe");
  inner.drain();
  await write;
  await new Promise((r) => setTimeout(r, 0));
  assert(sent);
  let closed = false;
  queue.whenReplySent(8).then(() => closed = true);
  await queue.close();
  await new Promise((r) => setTimeout(r, 0));
  assert(closed);
});

Deno.test("OutboundQueue hands a transport that takes lines the line it counted, made once", async () => {
  const lines: string[] = [];
  let plainSends = 0;
  const inner: Transport & EncodedSender = {
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
    send: () => {
      plainSends++;
      return Promise.resolve();
    },
    sendEncoded: (_message, line) => {
      lines.push(new TextDecoder().decode(line));
      return Promise.resolve();
    },
  };
  const queue = new OutboundQueue(inner);
  const reply = result(7);
  await queue.send(reply);
  // The bytes written are the line the stdio wire would have made from the message, no other.
  assertEquals(lines, [messageLine(reply)]);
  assertEquals(plainSends, 0);
  assertEquals(queue.pendingBytes, 0);
});
