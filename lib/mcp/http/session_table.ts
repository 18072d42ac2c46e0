// The 2025-era HTTP session table: which sessions are open, for which token, and how busy each
// is (calls in flight); decides whether a new session may open (--max-sessions) and which
// sessions have expired. No I/O: closing a session's transport and jobs is the server's.

import type {
  McpServer,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { Agent } from "../../ops/agent.ts";

export interface LegacySession {
  id: string;
  tokenIndex: number;
  agent: Agent;
  mcp: McpServer;
  transport: WebStandardStreamableHTTPServerTransport;
  lastSeen: number;
  /** JSON-RPC requests received and not yet answered: a session busy with a call is not idle. */
  inflight: number;
}

export interface SessionLimits {
  maxSessions: number;
  idleTimeoutMs: number;
}

/** Why a new session was refused: the count and the cap, for the 503 text. */
export interface Refusal {
  open: number;
  cap: number;
}

export class SessionTable {
  private readonly sessions = new Map<string, LegacySession>();
  /** Sessions being opened (initialize in flight), counted against the cap. */
  private openingCount = 0;

  constructor(private readonly limits: SessionLimits) {}

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): LegacySession | undefined {
    return this.sessions.get(id);
  }

  ids(): string[] {
    return [...this.sessions.keys()];
  }

  add(session: LegacySession): void {
    this.sessions.set(session.id, session);
    trackInflight(session);
  }

  /** Takes the session out of the table; undefined when it was not (or no longer) in it. */
  remove(id: string): LegacySession | undefined {
    const session = this.sessions.get(id);
    if (session) this.sessions.delete(id);
    return session;
  }

  has(id: string): boolean {
    return this.sessions.has(id);
  }

  /** A Refusal when the cap allows no further session now; undefined when one may open. */
  full(): Refusal | undefined {
    const cap = this.limits.maxSessions;
    if (this.sessions.size + this.openingCount >= cap) return { open: this.sessions.size, cap };
    return undefined;
  }

  /** Runs `open` (an initialize), counting the session it opens against the cap meanwhile. */
  async opening<T>(open: () => Promise<T>): Promise<T> {
    this.openingCount++;
    try {
      return await open();
    } finally {
      this.openingCount--;
    }
  }

  /** The sessions idle (no call in flight) longer than the idle timeout at `now`. */
  expired(now: number): LegacySession[] {
    return [...this.sessions.values()].filter((session) =>
      session.inflight === 0 && now - session.lastSeen > this.limits.idleTimeoutMs
    );
  }
}

/**
 * Counts a session's unanswered requests by watching what its transport delivers and sends
 * (after connect, which installed the server's own onmessage).
 */
function trackInflight(session: LegacySession): void {
  const transport = session.transport;
  const pending = new Set<string | number>();
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if ("method" in message && "id" in message && message.id !== undefined) {
      pending.add(message.id);
      session.inflight = pending.size;
    }
    deliver?.(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    try {
      await send(message, options);
    } finally {
      if (!("method" in message) && "id" in message && message.id !== undefined) {
        pending.delete(message.id);
        session.inflight = pending.size;
        session.lastSeen = Date.now();
      }
    }
  };
}
