// io_turn.ts, installed as the event turn (as the composition root does): the turns
// `Budget.breathe` gives a long loop let I/O complete and timers fire. In Deno 2.9.6 a chain of
// setImmediate turns lets an async operation's completion through only now and then (a pipe read
// got 2 of ~45 lines in half a second of 10 ms slices), so a walk of a huge directory left pings
// and cancellations unread for hundreds of milliseconds (docs/benchmarks.md, issue 26, eleventh
// round).

import { assert } from "../../_assert.ts";
import { Budget } from "../../../lib/ops/budget.ts";
import { setEventTurn } from "../../../lib/core/event_turn.ts";
import { ioTurn } from "../../../lib/backends/platform/io_turn.ts";

setEventTurn(ioTurn);

/** Keeps this thread busy for `ms`, as a walk's step does. */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) { /* work */ }
}

Deno.test("breathe: round trips through a pipe go on while a busy loop breathes", async () => {
  // An echo process: each line written comes back, two I/O completions per round trip, as a
  // ping's read and reply are.
  const echo = new Deno.Command(Deno.execPath(), {
    args: ["eval", "for await (const c of Deno.stdin.readable) await Deno.stdout.write(c)"],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const writer = echo.stdin.getWriter();
  const reader = echo.stdout.getReader();
  const line = new TextEncoder().encode("x\n");
  // One round trip before the loop: the child is up.
  await writer.write(line);
  await reader.read();
  let trips = 0;
  const pinging = (async () => {
    for (; trips < 20; trips++) {
      await writer.write(line);
      await reader.read();
    }
  })();
  // A timer ticking meanwhile: the turns let timers fire too.
  let ticks = 0;
  let ticking = true;
  const tick = () => {
    ticks++;
    if (ticking) setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  const budget = new Budget();
  let slices = 0;
  // 12 ms slices, as long as the round trips take; each needs a turn or two when turns poll
  // I/O (~40 slices for 20), ~20 slices each when they do not (setImmediate: over 300).
  while (trips < 20 && slices < 150) {
    busy(12);
    await budget.breathe();
    slices++;
  }
  assert(trips === 20, `${trips} of 20 round trips in ${slices} slices of busy work`);
  assert(ticks >= 5, `${ticks} timer ticks in ${slices} slices of busy work`);
  ticking = false;
  await pinging;
  await writer.close();
  await echo.status;
});

Deno.test("ioTurn: a turn completes on its own, many times over", async () => {
  for (let i = 0; i < 100; i++) await ioTurn();
});
