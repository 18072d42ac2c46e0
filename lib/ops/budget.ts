// How long one call may run: a caller's AbortSignal (MCP `notifications/cancelled`) and a
// server-side deadline. Long loops call `breathe()` between items: it lets the event loop run
// (so `ping` and other calls are answered meanwhile) and tells the loop when to stop.

import { eventTurn } from "../core/event_turn.ts";

/** Why a call stopped early: the client cancelled it, or it ran past the server's deadline. */
export type StopReason = "cancelled" | "deadline";

/** Longest stretch of synchronous work between two turns of the event loop. */
const SLICE_MS = 10;

/** Process-wide: every loop on the main thread shares one clock of when it last gave way. */
let lastYield = performance.now();

export class Budget {
  private readonly deadlineAt: number | undefined;

  constructor(
    readonly signal?: AbortSignal,
    /** Seconds from now; undefined for no deadline. */
    readonly deadlineSeconds?: number,
  ) {
    this.deadlineAt = deadlineSeconds === undefined
      ? undefined
      : performance.now() + deadlineSeconds * 1000;
  }

  /**
   * Calls `listener` once when the call stops (cancelled, or its deadline passes), even while this
   * thread waits for work done elsewhere (a search's workers); returns the function that stops
   * listening. Nothing is called for a budget that cannot stop.
   */
  onStop(listener: (reason: StopReason) => void): () => void {
    const already = this.stopped();
    if (already) {
      listener(already);
      return () => {};
    }
    let done = false;
    const fire = (reason: StopReason) => {
      if (done) return;
      done = true;
      off();
      listener(reason);
    };
    const onAbort = () => fire("cancelled");
    this.signal?.addEventListener("abort", onAbort);
    const timer = this.deadlineAt === undefined
      ? undefined
      : setTimeout(() => fire("deadline"), Math.max(0, this.deadlineAt - performance.now()));
    const off = () => {
      done = true;
      this.signal?.removeEventListener("abort", onAbort);
      if (timer !== undefined) clearTimeout(timer);
    };
    return off;
  }

  /** Why to stop now, or null to go on. */
  stopped(): StopReason | null {
    if (this.signal?.aborted) return "cancelled";
    if (this.deadlineAt !== undefined && performance.now() >= this.deadlineAt) return "deadline";
    return null;
  }

  /**
   * Gives the event loop a turn when this thread has worked for a while, then says whether to
   * stop. Promise continuations alone never let I/O (incoming messages) through, nor do chained
   * setImmediate turns in Deno (core/event_turn.ts); the composition root installs a turn that
   * does, at ~40 µs.
   */
  async breathe(): Promise<StopReason | null> {
    if (performance.now() - lastYield >= SLICE_MS) {
      await eventTurn();
      lastYield = performance.now();
    }
    return this.stopped();
  }

  /** The sentence after a partial result: what stopped it and how to narrow the call. */
  describe(reason: StopReason): string {
    return reason === "cancelled"
      ? "The call was cancelled"
      : `The call reached the server's ${formatSeconds(this.deadlineSeconds!)} deadline`;
  }
}

/** A budget that never stops a call (the CLI, tests). */
export const UNLIMITED = new Budget();

function formatSeconds(seconds: number): string {
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(3).replace(/0+$/, "")} s`;
}
