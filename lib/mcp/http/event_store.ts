// A bounded in-memory event store for one 2025-era HTTP session: lets a client that lost its SSE
// stream reconnect with Last-Event-ID and get what it missed (the last `capacity` events of the
// session). Memory stays bounded; an id older than the window replays nothing.

import type { EventStore, JSONRPCMessage } from "@modelcontextprotocol/server";

interface StoredEvent {
  id: string;
  streamId: string;
  message: JSONRPCMessage;
}

export class SessionEventStore implements EventStore {
  private readonly events: StoredEvent[] = [];
  private counter = 0;

  constructor(private readonly capacity = 256) {}

  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}_${++this.counter}`;
    this.events.push({ id, streamId, message });
    if (this.events.length > this.capacity) this.events.shift();
    return Promise.resolve(id);
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
      if (event.streamId === streamId) await send(event.id, event.message);
    }
    return streamId;
  }
}
