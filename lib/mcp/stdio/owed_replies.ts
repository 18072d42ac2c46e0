// The requests a connection has delivered and not answered yet, so that the end of stdin can
// wait (bounded) for their replies instead of dropping them: a client that writes its requests
// and closes its end at once (`printf ... | anchorfs mcp`) is still answered. Pure: no I/O.

type Id = string | number;

export class OwedReplies {
  private readonly owed = new Set<Id>();
  private settled: (() => void) | undefined;

  /** A message went to the SDK: a request is owed a reply; a cancel releases its request. */
  delivered(message: object): void {
    const m = message as { id?: Id; method?: string; params?: { requestId?: Id } };
    if (m.method === undefined) return;
    if (m.id !== undefined) this.owed.add(m.id);
    // A cancelled request gets no reply (MCP): nothing is owed any more.
    else if (m.method === "notifications/cancelled" && m.params?.requestId !== undefined) {
      this.answered(m.params.requestId);
    }
  }

  /** A message went out (or was already sent): a response pays what its id owed. */
  sent(message: object): void {
    const m = message as { id?: Id; method?: string };
    if (m.method === undefined && m.id !== undefined) this.answered(m.id);
  }

  get count(): number {
    return this.owed.size;
  }

  /** Resolves once nothing is owed, or after `ms`; true when everything was answered. */
  async whenPaid(ms: number): Promise<boolean> {
    if (this.owed.size === 0) return true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const paid = new Promise<boolean>((resolve) => this.settled = () => resolve(true));
    const late = new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(false), ms));
    try {
      return await Promise.race([paid, late]);
    } finally {
      clearTimeout(timer);
      this.settled = undefined;
    }
  }

  /** The connection closed: stop waiting (nothing can be answered any more). */
  release(): void {
    this.settled?.();
  }

  private answered(id: Id): void {
    this.owed.delete(id);
    if (this.owed.size === 0) this.settled?.();
  }
}
