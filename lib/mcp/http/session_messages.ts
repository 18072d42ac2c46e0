// What the HTTP session layer tells a client in its refusals (one reviewable table): a session
// that ended and why, a token whose every session is busy, a request id already in flight.

import type { EndReason } from "./session_table.ts";

export interface SessionLimitsText {
  idleTimeoutMs: number;
  unstreamedTimeoutMs: number;
  maxSessions: number;
  tokens: number;
  perToken: number;
}

const seconds = (ms: number) => `${+(ms / 1000).toFixed(3)} s`;

function share(l: SessionLimitsText): string {
  return l.tokens > 1
    ? `${l.perToken} per token: --max-sessions ${l.maxSessions} shared by ${l.tokens} tokens`
    : `--max-sessions ${l.maxSessions}`;
}

/** The 404 for a session id this token does not (or no longer) have. */
export function sessionGone(
  id: string,
  why: EndReason | undefined,
  limits: SessionLimitsText,
): string {
  const again = "Start a new session with initialize (reconnecting the client does it); the " +
    "old session's working directory, shown lines and undo history are gone.";
  switch (why) {
    case "evicted":
      return `Session not found: ${JSON.stringify(id)} was ended to make room for a new ` +
        `session: this token's sessions were at their limit (${share(limits)}) and this one ` +
        "was the least recently used idle one (no call in flight, no open GET stream, no " +
        `running job). ${again}`;
    case "idle":
      return `Session not found: ${JSON.stringify(id)} ended after ${
        seconds(limits.idleTimeoutMs)
      } without requests (--idle-timeout). ${again}`;
    case "unstreamed":
      return `Session not found: ${JSON.stringify(id)} ended after ${
        seconds(limits.unstreamedTimeoutMs)
      } without requests, having never opened its GET stream (--unstreamed-timeout). ${again}`;
    case "deleted":
      return `Session not found: ${JSON.stringify(id)} was ended by a DELETE. ${again}`;
    default:
      return `Session not found: ${JSON.stringify(id)} ended (DELETE, idle timeout or restart) ` +
        "or never existed; start a new one with initialize.";
  }
}

/** The 503 when every session of the token is busy, so none could make room. */
export function sessionsBusy(open: number, cap: number, limits: SessionLimitsText): string {
  return `Too many sessions: this token has ${open} open (its limit: ${share(limits)}) and ` +
    "every one is busy (a call in flight, an open GET stream or a running job), so none was " +
    "ended to make room. End one you no longer use (DELETE /mcp with its Mcp-Session-Id), " +
    `retry after Retry-After seconds, or restart with a larger --max-sessions (now ${cap} ` +
    "for this token).";
}

/** The 409 for a request whose JSON-RPC id is already in flight on the session. */
export function idInFlight(id: string | number): string {
  return `Conflict: request id ${
    JSON.stringify(id)
  } is already in flight on this session; its answer is still to come. Send this request ` +
    "with an id not in use (each request of a session needs its own id until answered).";
}
