// The GET streams of 2025-era HTTP sessions: counts one as open while it lasts (an open stream
// makes a session busy, never evicted), starts it with a priming event (an id and a `retry:`, so
// a client can resume with Last-Event-ID), and tells a client resuming from past the replay
// window that events were dropped.

import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import { step, toolCallSyntax } from "../../core/next_step.ts";
import { REPLAY_SESSION_BYTES, REPLAY_TOTAL_BYTES, type SessionEventStore } from "./event_store.ts";
import type { LegacySession } from "./session_table.ts";

/** The `retry:` a priming event gives an SSE client: how soon to reconnect a dropped stream. */
export const RETRY_MS = 2000;
/** The SDK transport's id for a session's GET stream (its events are stored under it). */
const GET_STREAM_ID = "_GET_stream";

const encoder = new TextEncoder();

/**
 * A priming event for a new GET stream, or undefined for a client older than 2025-11-25 (the
 * first revision whose clients accept an event with empty data, as the SDK's own check).
 */
export async function primingEvent(
  events: SessionEventStore,
  protocolVersion: string | null,
): Promise<Uint8Array | undefined> {
  const version = protocolVersion ?? "";
  if (!SUPPORTED_PROTOCOL_VERSIONS.includes(version) || version < "2025-11-25") return undefined;
  const id = await events.prime(GET_STREAM_ID);
  return encoder.encode(`id: ${id}\nretry: ${RETRY_MS}\ndata: \n\n`);
}

/** A `notifications/message` warning (the MCP logging shape) that events were dropped. */
export function droppedNote(lastEventId: string, dropped: number): Uint8Array {
  const mib = (n: number) => `${n / 1024 / 1024} MiB`;
  const note = {
    jsonrpc: "2.0",
    method: "notifications/message",
    params: {
      level: "warning",
      logger: "anchorfs",
      data:
        `Events were dropped: the stream resumed from Last-Event-ID ${
          JSON.stringify(lastEventId)
        }, but events after it are no longer kept (replay keeps at most ${
          mib(REPLAY_SESSION_BYTES)
        } per session and ${mib(REPLAY_TOTAL_BYTES)} in all; ${dropped} dropped in this ` +
        `session). Notifications sent meanwhile are lost: call ${
          toolCallSyntax(step("jobs", { action: "list" }))
        } to see your jobs' state, and send again any call whose answer did not arrive.`,
    },
  };
  return encoder.encode(`event: message\ndata: ${JSON.stringify(note)}\n\n`);
}

/** Wraps a session's GET responses: counted open while they last, `first` frames in front. */
export function streamWatcher(
  session: LegacySession,
): (response: Response, ...first: (Uint8Array | undefined)[]) => Response {
  return (response, ...first) =>
    watchStream(response, {
      opened() {
        session.streams++;
        session.everStreamed = true;
      },
      closed() {
        session.streams--;
        session.lastSeen = Date.now();
      },
    }, first.filter((f): f is Uint8Array => f !== undefined));
}

interface StreamHooks {
  opened(): void;
  closed(): void;
}

/** `response` unchanged unless it is an SSE stream; then the same frames, after `first`. */
function watchStream(response: Response, hooks: StreamHooks, first: Uint8Array[]): Response {
  const type = response.headers.get("content-type") ?? "";
  if (!response.body || !type.includes("text/event-stream")) return response;
  const reader = response.body.getReader();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    hooks.closed();
  };
  hooks.opened();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const frame of first) controller.enqueue(frame);
    },
    async pull(controller) {
      try {
        const { value, done } = await reader.read();
        if (done) {
          end();
          controller.close();
        } else controller.enqueue(value);
      } catch (e) {
        end();
        controller.error(e);
      }
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
