// A bounded in-memory event store for one 2025-era HTTP session: lets a client that lost its SSE
// stream reconnect with Last-Event-ID and get what it missed. Bounded in bytes, per session and
// across sessions (a shared ReplayBudget), oldest first; an id older than the window is known
// as dropped, so the server can say so instead of replaying nothing in silence.

import type { EventStore, JSONRPCMessage } from "@modelcontextprotocol/server";

/** Per-session and total bounds of what is kept for replay (bytes of the events' JSON text). */
export const REPLAY_SESSION_BYTES = 8 * 1024 * 1024;
export const REPLAY_TOTAL_BYTES = 64 * 1024 * 1024;
/** Also a bound on the count: priming events weigh nothing but take an entry each. */
const MAX_EVENTS = 4096;

interface StoredEvent {
  id: string;
  counter: number;
  /** Across every store of the budget: lower is older. */
  seq: number;
  streamId: string;
  /** The message's JSON (a string is far smaller than the parsed object); "" for a priming event. */
  json: string;
}

/** The total bound shared by every session's store: the oldest event anywhere goes first. */
export class ReplayBudget {
  private readonly stores = new Set<SessionEventStore>();
  private seq = 0;
  bytes = 0;

  constructor(readonly totalBytes = REPLAY_TOTAL_BYTES) {}

  /** @internal */ join(store: SessionEventStore): void {
    this.stores.add(store);
  }

  /** @internal */ leave(store: SessionEventStore): void {
    this.stores.delete(store);
  }

  /** @internal */ nextSeq(): number {
    return ++this.seq;
  }

  /** @internal */ trim(): void {
    while (this.bytes > this.totalBytes) {
      let oldest: SessionEventStore | undefined;
      for (const store of this.stores) {
        const seq = store.oldestSeq();
        if (seq !== undefined && (!oldest || seq < oldest.oldestSeq()!)) oldest = store;
      }
      if (!oldest) return;
      oldest.dropOldest();
    }
  }
}

export interface ReplayStats {
  events: number;
  bytes: number;
  /** Events no longer kept (over a bound). */
  dropped: number;
}

export class SessionEventStore implements EventStore {
  private readonly events: StoredEvent[] = [];
  private counter = 0;
  private bytes = 0;
  private dropped = 0;
  /** Counters up to this one were dropped (or never kept); a resume from them missed events. */
  private droppedThrough = 0;
  /** The session ended: nothing more is kept (a late send must not count against the budget). */
  private released = false;

  constructor(
    private readonly budget = new ReplayBudget(),
    private readonly sessionBytes = REPLAY_SESSION_BYTES,
  ) {
    budget.join(this);
  }

  get stats(): ReplayStats {
    return { events: this.events.length, bytes: this.bytes, dropped: this.dropped };
  }

  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const counter = ++this.counter;
    const id = `${streamId}_${counter}`;
    // The SDK stores `{}` for its priming events: nothing to replay, only an id to resume from.
    const json = Object.keys(message).length === 0 ? "" : JSON.stringify(message);
    if (this.released) return Promise.resolve(id);
    if (json.length > this.sessionBytes) {
      this.dropped++;
      this.droppedThrough = counter;
      return Promise.resolve(id);
    }
    this.events.push({ id, counter, seq: this.budget.nextSeq(), streamId, json });
    this.bytes += json.length;
    this.budget.bytes += json.length;
    while (this.bytes > this.sessionBytes || this.events.length > MAX_EVENTS) this.dropOldest();
    this.budget.trim();
    return Promise.resolve(id);
  }

  /** An id for a stream's priming event (nothing to replay; only a point to resume from). */
  prime(streamId: string): Promise<string> {
    return this.storeEvent(streamId, {} as JSONRPCMessage);
  }

  /** @internal */ oldestSeq(): number | undefined {
    return this.events[0]?.seq;
  }

  /** @internal */ dropOldest(): void {
    const event = this.events.shift();
    if (!event) return;
    this.bytes -= event.json.length;
    this.budget.bytes -= event.json.length;
    this.dropped++;
    this.droppedThrough = event.counter;
  }

  /** Whether a resume from `eventId` would miss events this store no longer keeps. */
  missed(eventId: string): boolean {
    const counter = Number(eventId.slice(eventId.lastIndexOf("_") + 1));
    if (!Number.isSafeInteger(counter) || counter < 1 || counter > this.counter) return false;
    return counter <= this.droppedThrough && !this.events.some((e) => e.id === eventId);
  }

  /** Frees this store's share of the budget (the session ended). */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.budget.bytes -= this.bytes;
    this.bytes = 0;
    this.events.length = 0;
    this.budget.leave(this);
  }

  getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return Promise.resolve(this.events.find((e) => e.id === eventId)?.streamId);
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const at = this.events.findIndex((e) => e.id === lastEventId);
    if (at < 0) return "";
    const streamId = this.events[at]!.streamId;
    for (const event of this.events.slice(at + 1)) {
      if (event.streamId === streamId && event.json !== "") {
        await send(event.id, JSON.parse(event.json));
      }
    }
    return streamId;
  }
}
