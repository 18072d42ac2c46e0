// What --roots knows of the client's roots, failing closed: every roots/list request gets a
// number; an answer counts only if no later request's answer was applied before it (a late,
// out-of-order answer never wins), and while the newest request is unanswered or failed the
// roots are unknown, so file tools wait (bounded) and then refuse, never using the roots from
// before a change. No I/O: the confinement resolves the directories, the MCP adapter asks.

import type { AllowedDir } from "../core/path/confinement.ts";

/** How a wait for the newest roots/list answer ended. */
export type RootsWait =
  | { kind: "known" }
  | { kind: "pending"; changed: boolean }
  | { kind: "failed"; reason: string };

export class RootsState {
  /** The number of the newest roots/list request (0: none asked). */
  private requested = 0;
  /** The number of the request whose answer is in force (0: none). */
  private applied = 0;
  /** The newest request failed (the client answered with an error, or the request timed out). */
  private failure: { seq: number; reason: string } | undefined;
  private waiters: (() => void)[] = [];
  /** The directories of the answer in force; undefined before the first one. */
  dirs: AllowedDir[] | undefined;
  /** The URIs of that answer that are not local file:// roots (refused). */
  refused: readonly string[] = [];
  /** Asks the client again (set by the MCP adapter): used when the newest request failed. */
  retry: (() => void) | undefined;

  /** A roots/list request goes out: its number, to hand back with its answer. */
  request(): number {
    // The newest request decides: an older one's failure no longer does.
    this.failure = undefined;
    return ++this.requested;
  }

  /** True while an answer newer than `seq` has not been applied (worth resolving it). */
  mayApply(seq: number): boolean {
    return seq > this.applied;
  }

  /** Applies the answer to request `seq`; false (ignored) when a later answer is in force. */
  apply(seq: number, dirs: AllowedDir[], refused: readonly string[]): boolean {
    if (seq <= this.applied) return false;
    this.applied = seq;
    this.dirs = dirs;
    this.refused = refused;
    if (this.failure && this.failure.seq <= seq) this.failure = undefined;
    this.wake();
    return true;
  }

  /** Request `seq` failed: when it is the newest, the roots are unknown until another answer. */
  fail(seq: number, reason: string): void {
    if (seq !== this.requested || seq <= this.applied) return;
    this.failure = { seq, reason };
    this.wake();
  }

  /** True when the newest request has not been answered: the roots in force may be stale. */
  get unsettled(): boolean {
    return this.applied < this.requested;
  }

  /**
   * Waits up to `ms` for the newest request's answer; a failed one is asked again first (once
   * per wait). Known: the answer in force is the newest.
   */
  async settle(ms: number): Promise<RootsWait> {
    if (!this.unsettled) return { kind: "known" };
    if (this.failure && this.retry) this.retry();
    const deadline = Date.now() + ms;
    while (this.unsettled && !this.failure) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    if (!this.unsettled) return { kind: "known" };
    if (this.failure) return { kind: "failed", reason: this.failure.reason };
    return { kind: "pending", changed: this.applied > 0 };
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
