// The 2025-era HTTP session table: which sessions are open, for which token, and how busy each
// is (calls in flight, an open GET stream, running jobs); decides whether a new session may open
// (each token's share of --max-sessions), which idle session makes room, and which have expired.
// No I/O: closing a session's transport and jobs is the server's.

import type {
  McpServer,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { Agent } from "../../ops/agent.ts";
import type { SessionEventStore } from "./event_store.ts";

export interface LegacySession {
  id: string;
  tokenIndex: number;
  agent: Agent;
  mcp: McpServer;
  transport: WebStandardStreamableHTTPServerTransport;
  /** What a reconnecting client can replay (Last-Event-ID). */
  events: SessionEventStore;
  lastSeen: number;
  /** JSON-RPC requests received and not yet answered: a session busy with a call is not idle. */
  inflight: number;
  /** The request ids of `inflight`: a reused one would never be answered (see reusedId). */
  pending: Set<string | number>;
  /** Open GET streams: a client listening for notifications is not gone. */
  streams: number;
  /** Whether a GET stream was ever opened: one-shot clients never open one. */
  everStreamed: boolean;
}

export interface SessionLimits {
  maxSessions: number;
  idleTimeoutMs: number;
  unstreamedTimeoutMs: number;
  /** How many tokens share --max-sessions. */
  tokens: number;
}

export type EndReason = "deleted" | "idle" | "unstreamed" | "evicted" | "shutdown";

/** What admit() decided for a new session of a token. */
export type Admission =
  | { kind: "open" }
  /** Open, after ending `victim` (that token's least recently used idle session). */
  | { kind: "evict"; victim: LegacySession }
  /** Refused: every one of the token's `open` sessions is busy (`cap` is its share). */
  | { kind: "full"; open: number; cap: number };

/** How many ended sessions are remembered, so their next request hears why they ended. */
const ENDED_MEMORY = 4096;

export class SessionTable {
  private readonly sessions = new Map<string, LegacySession>();
  /** Per token: sessions being opened (initialize in flight), counted against its share. */
  private readonly openingCount = new Map<number, number>();
  /** Why recently ended sessions ended (oldest first), for their next request's 404. */
  private readonly ended = new Map<string, { tokenIndex: number; why: EndReason }>();

  constructor(private readonly limits: SessionLimits) {}

  /** Each token's share of --max-sessions: one token's load never refuses another's session. */
  get perToken(): number {
    return Math.max(1, Math.floor(this.limits.maxSessions / Math.max(1, this.limits.tokens)));
  }

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): LegacySession | undefined {
    return this.sessions.get(id);
  }

  has(id: string): boolean {
    return this.sessions.has(id);
  }

  ids(): string[] {
    return [...this.sessions.keys()];
  }

  add(session: LegacySession): void {
    this.sessions.set(session.id, session);
    trackInflight(session);
  }

  /** Takes the session out of the table; undefined when it was not (or no longer) in it. */
  remove(id: string, why: EndReason): LegacySession | undefined {
    const session = this.sessions.get(id);
    if (!session) return undefined;
    this.sessions.delete(id);
    if (why !== "shutdown") {
      this.ended.set(id, { tokenIndex: session.tokenIndex, why });
      if (this.ended.size > ENDED_MEMORY) this.ended.delete(this.ended.keys().next().value!);
    }
    return session;
  }

  /** Why session `id` of `tokenIndex` ended, if it did recently. */
  endedBecause(id: string, tokenIndex: number): EndReason | undefined {
    const ended = this.ended.get(id);
    return ended?.tokenIndex === tokenIndex ? ended.why : undefined;
  }

  /**
   * Whether `tokenIndex` may open a session now: within its share, or by ending its least
   * recently used idle session, or not at all (every one of its sessions is busy).
   */
  admit(tokenIndex: number): Admission {
    const mine = [...this.sessions.values()].filter((s) => s.tokenIndex === tokenIndex);
    const cap = this.perToken;
    if (mine.length + (this.openingCount.get(tokenIndex) ?? 0) < cap) return { kind: "open" };
    const idle = mine.filter((s) => !isBusy(s)).sort((a, b) => a.lastSeen - b.lastSeen);
    if (idle[0]) return { kind: "evict", victim: idle[0] };
    return { kind: "full", open: mine.length, cap };
  }

  /** Runs `open` (an initialize), counting the session it opens against the token's share. */
  async opening<T>(tokenIndex: number, open: () => Promise<T>): Promise<T> {
    this.openingCount.set(tokenIndex, (this.openingCount.get(tokenIndex) ?? 0) + 1);
    try {
      return await open();
    } finally {
      const left = (this.openingCount.get(tokenIndex) ?? 1) - 1;
      if (left > 0) this.openingCount.set(tokenIndex, left);
      else this.openingCount.delete(tokenIndex);
    }
  }

  /**
   * The sessions that expired at `now`, and why: idle (no call in flight) longer than the idle
   * timeout, or, having never opened a GET stream and running no job, longer than the short
   * unstreamed timeout (a one-shot client that left without DELETE).
   */
  expired(now: number): { session: LegacySession; why: "idle" | "unstreamed" }[] {
    const { idleTimeoutMs, unstreamedTimeoutMs } = this.limits;
    const out: { session: LegacySession; why: "idle" | "unstreamed" }[] = [];
    for (const session of this.sessions.values()) {
      if (session.inflight > 0) continue;
      const quiet = now - session.lastSeen;
      if (quiet > idleTimeoutMs) out.push({ session, why: "idle" });
      else if (
        !session.everStreamed && quiet > unstreamedTimeoutMs && !hasRunningJobs(session)
      ) out.push({ session, why: "unstreamed" });
    }
    return out;
  }

  /**
   * The id of a request in `body` that is already in flight on the session, if any: the SDK
   * transport would route both answers to the second request's stream and never answer one.
   */
  reusedId(session: LegacySession, body: unknown): string | number | undefined {
    for (const m of Array.isArray(body) ? body : [body]) {
      if (typeof m !== "object" || m === null || !("method" in m) || !("id" in m)) continue;
      const id = (m as { id: unknown }).id;
      if ((typeof id === "string" || typeof id === "number") && session.pending.has(id)) return id;
    }
    return undefined;
  }
}

/** A session is busy while it has a call in flight, an open GET stream, or a running job. */
export function isBusy(session: LegacySession): boolean {
  return session.inflight > 0 || session.streams > 0 || hasRunningJobs(session);
}

function hasRunningJobs(session: LegacySession): boolean {
  // The agent's view lists only its own running jobs.
  return session.agent.jobs.view.runningIds().length > 0;
}

/**
 * Counts a session's unanswered requests by watching what its transport delivers and sends
 * (after connect, which installed the server's own onmessage).
 */
function trackInflight(session: LegacySession): void {
  const transport = session.transport;
  const pending = session.pending;
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
