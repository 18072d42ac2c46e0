// TurnQueue (core/turn_queue.ts): one holder at a time, in the order the turns were taken, and a
// turn ended twice lets only one more go.

import { assertEquals } from "../_assert.ts";
import { TurnQueue } from "../../lib/core/turn_queue.ts";

const turn = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("turns are held one at a time, first come first served, across awaits", async () => {
  const queue = new TurnQueue();
  const log: string[] = [];
  const worker = async (name: string, steps: number) => {
    const end = await queue.take();
    try {
      for (let i = 0; i < steps; i++) {
        log.push(`${name}${i}`);
        await turn();
      }
    } finally {
      end();
    }
  };
  const all = Promise.all([worker("a", 3), worker("b", 2), worker("c", 1)]);
  assertEquals(queue.queued, 3);
  await all;
  assertEquals(log, ["a0", "a1", "a2", "b0", "b1", "c0"]);
  assertEquals(queue.queued, 0);
});

Deno.test("ending a turn twice lets one waiter go, not two", async () => {
  const queue = new TurnQueue();
  const first = await queue.take();
  let secondIn = false;
  let thirdIn = false;
  const second = queue.take().then((end) => (secondIn = true, end));
  void queue.take().then(() => (thirdIn = true));
  first();
  first();
  const endSecond = await second;
  await turn();
  assertEquals([secondIn, thirdIn], [true, false]);
  endSecond();
  await turn();
  assertEquals(thirdIn, true);
});

Deno.test("a waiter whose signal aborts leaves at once, and its turn, when it comes, passes on", async () => {
  const queue = new TurnQueue();
  const endFirst = await queue.take();
  const controller = new AbortController();
  const waiting = queue.take(controller.signal);
  const after = queue.take();
  controller.abort(new Error("cancelled"));
  // Rejected while the first turn is still held.
  const why = await waiting.then(() => "granted", (e: Error) => e.message);
  assertEquals(why, "cancelled");
  assertEquals(queue.queued, 3);
  endFirst();
  // The aborted turn ended itself: the one after it gets its turn.
  const endAfter = await after;
  assertEquals(queue.queued, 1);
  endAfter();
  assertEquals(queue.queued, 0);
});

Deno.test("a signal aborted after the turn was granted changes nothing", async () => {
  const queue = new TurnQueue();
  const controller = new AbortController();
  const end = await queue.take(controller.signal);
  controller.abort();
  assertEquals(queue.queued, 1);
  end();
  assertEquals(queue.queued, 0);
  await (await queue.take())();
});
