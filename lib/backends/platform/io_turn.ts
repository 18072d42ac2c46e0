// The runtime's turn of the event loop for long loops (core/event_turn.ts): an awaited lstat of
// the root, then a setImmediate. Measured over half a second of 10 ms slices of work, in Deno
// 2.9.6, with a pipe read waiting and a setTimeout(0) ticking (docs/benchmarks.md, issue 26):
// - setImmediate alone: 12 µs a turn, 2 reads got through, 50 timer ticks
// - lstat alone: 42 µs a turn, 9 reads, 13 timer ticks
// - lstat then setImmediate: 42 µs a turn, 23 reads, 49 timer ticks
// - setTimeout(0): ~2.1 ms a turn
// The lstat's completion is an I/O completion, so the loop polls I/O for it. The setImmediate
// after it lets the timers run.

import { lstat } from "node:fs";
import { setImmediate } from "node:timers";

/** One turn in which I/O completes and timers fire (~40 µs). */
export function ioTurn(): Promise<void> {
  return new Promise<void>((resolve) => lstat("/", () => setImmediate(resolve)));
}
