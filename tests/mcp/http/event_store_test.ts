// SessionEventStore: replay memory bounded in bytes per session and across sessions (oldest
// first), priming events replay nothing, and a resume from a dropped id is known as one.

import { assert, assertEquals } from "../../_assert.ts";
import {
  REPLAY_SESSION_BYTES,
  REPLAY_TOTAL_BYTES,
  ReplayBudget,
  SessionEventStore,
} from "../../../lib/mcp/http/event_store.ts";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";

const MiB = 1024 * 1024;

function result(id: number, bytes: number): JSONRPCMessage {
  return { jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "a".repeat(bytes) }] } };
}

Deno.test("SessionEventStore: 120 answers of 1 MiB keep at most 8 MiB, the newest", async () => {
  const budget = new ReplayBudget();
  const store = new SessionEventStore(budget);
  const first = await store.storeEvent("s1", result(0, MiB));
  let last = "";
  for (let i = 1; i < 120; i++) last = await store.storeEvent("s1", result(i, MiB));
  assert(store.stats.bytes <= REPLAY_SESSION_BYTES, `${store.stats.bytes}`);
  assert(store.stats.bytes > REPLAY_SESSION_BYTES - 2 * MiB, `${store.stats.bytes}`);
  assertEquals(budget.bytes, store.stats.bytes);
  assertEquals(store.stats.dropped, 120 - store.stats.events);
  assert(store.missed(first), "the oldest answer should be known as dropped");
  assert(!store.missed(last), "the newest answer is still kept");
  assert(!store.missed("s1_999999"), "an id never given is not a dropped one");
  store.release();
  assertEquals(budget.bytes, 0);
  // A send after the session ended (its server closing) is not kept, nor counted.
  await store.storeEvent("s1", result(200, MiB));
  assertEquals([budget.bytes, store.stats.bytes], [0, 0]);
});

Deno.test("SessionEventStore: many sessions together keep at most the total, dropping the oldest anywhere", async () => {
  const budget = new ReplayBudget();
  const stores = Array.from({ length: 20 }, () => new SessionEventStore(budget));
  const firsts: string[] = [];
  for (const [n, store] of stores.entries()) {
    firsts.push(await store.storeEvent("s", result(n, MiB)));
    for (let i = 0; i < 6; i++) await store.storeEvent("s", result(i, MiB));
  }
  const sum = stores.reduce((total, s) => total + s.stats.bytes, 0);
  assertEquals(budget.bytes, sum);
  assert(sum <= REPLAY_TOTAL_BYTES, `${sum}`);
  // The first stores lost their oldest events; the last store still has all of its own.
  assert(stores[0]!.missed(firsts[0]!));
  assert(!stores[19]!.missed(firsts[19]!));
  assertEquals(stores[19]!.stats.dropped, 0);
});

Deno.test("SessionEventStore: a priming event is a point to resume from, and replays nothing itself", async () => {
  const store = new SessionEventStore();
  const primed = await store.prime("_GET_stream");
  await store.storeEvent("_GET_stream", { jsonrpc: "2.0", method: "notifications/x" });
  await store.prime("_GET_stream");
  const sent: unknown[] = [];
  const stream = await store.replayEventsAfter(primed, {
    send: (_id, message) => Promise.resolve(void sent.push(message)),
  });
  assertEquals(stream, "_GET_stream");
  assertEquals(sent, [{ jsonrpc: "2.0", method: "notifications/x" }]);
  assertEquals(store.stats.bytes, JSON.stringify(sent[0]).length);
});
