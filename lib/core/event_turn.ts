// The turn of the event loop that long loops give way with (ops/budget.ts breathe, the walk, the
// directory reader), installed by the composition root with the runtime's own
// (backends/platform/io_turn.ts). It must let I/O complete, not only timers: a `ping` and a
// `notifications/cancelled` arrive as the completion of a read of stdin. In Deno 2.9.6 a chain of
// setImmediate turns lets such a completion through only now and then (docs/benchmarks.md, issue
// 26, eleventh round). Until one is installed (tests of the use cases alone), setTimeout(0): it
// lets I/O through, at ~2 ms a turn.

type Turn = () => Promise<void>;

let turn: Turn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** One turn of the event loop in which I/O completes and timers fire. */
export function eventTurn(): Promise<void> {
  return turn();
}

/** Installs the runtime's turn (process-wide, as the event loop is). */
export function setEventTurn(next: Turn): void {
  turn = next;
}
