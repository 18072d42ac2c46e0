// `anchorfs mcp --http`: MCP over Streamable HTTP at /mcp with Deno.serve. In front: Host/Origin
// checks (403) and bearer tokens (401). Then by era: 2025-era traffic is sessionful (one SDK
// transport and one agent per Mcp-Session-Id; GET stream, DELETE, idle expiry); 2026-07-28
// traffic goes to a per-request handler per token, whose agent state is keyed on the token.

import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  type McpHttpHandler,
  readRequestBody,
  validateHostHeader,
  validateOriginHeader,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { type Agent, createAgent } from "../../ops/agent.ts";
import { formatJobUri as jobUri } from "../../core/jobs/job_uri.ts";
import type { Location } from "../../ops/location.ts";
import type { Services } from "../../ops/services.ts";
import { logError, logLine } from "../log.ts";
import { createServerFactory } from "../server.ts";
import type { ServerOptions } from "../tool_env.ts";
import { ReplayBudget, SessionEventStore } from "./event_store.ts";
import { withListenReplay } from "./listen_replay.ts";
import type { HttpOptions } from "./http_options.ts";
import { type EndReason, type LegacySession, SessionTable } from "./session_table.ts";
import {
  idInFlight,
  sessionGone,
  type SessionLimitsText,
  sessionsBusy,
} from "./session_messages.ts";
import { droppedNote, primingEvent, RETRY_MS, streamWatcher } from "./session_streams.ts";
import { TokenChecker } from "./tokens.ts";
import { listen, sizeConnections } from "./listener.ts";
import { serveWithBigIds } from "./big_ids.ts";
import { answerOAuthProbe } from "./oauth_probe.ts";

export const MCP_PATH = "/mcp";

interface TokenAgent {
  agent: Agent;
  handler: McpHttpHandler;
  unsubscribe: () => void;
}

export interface HttpServeParams {
  services: Services;
  root: Location;
  serverOptions: ServerOptions;
  http: HttpOptions;
  tokens: string[];
}

/** A JSON-RPC error body with an HTTP status; what every refusal here looks like. */
function refuse(
  status: number,
  message: string,
  headers: Record<string, string> = {},
  code = -32000,
): Response {
  return Response.json(
    { jsonrpc: "2.0", error: { code, message }, id: null },
    { status, headers: { "Content-Type": "application/json", ...headers } },
  );
}

export class HttpMcpServer {
  private readonly sessions: SessionTable;
  /** Replay memory of every session together (bounded in bytes; see event_store.ts). */
  readonly replay = new ReplayBudget();
  private readonly tokenAgents = new Map<number, TokenAgent>();
  private readonly checker: TokenChecker;
  private readonly sweeper: ReturnType<typeof setInterval>;
  private closing = false;

  constructor(private readonly params: HttpServeParams) {
    this.checker = new TokenChecker(params.tokens);
    this.sessions = new SessionTable({ ...params.http, tokens: params.tokens.length });
    const idle = Math.min(params.http.idleTimeoutMs, params.http.unstreamedTimeoutMs);
    this.sweeper = setInterval(
      () => this.sweepIdle(),
      Math.max(50, Math.min(idle / 4, 30_000)),
    );
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  readonly fetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (url.pathname !== MCP_PATH) {
      const probe = answerOAuthProbe(url.pathname);
      if (probe) return probe;
      return refuse(404, `Not found: ${url.pathname}. anchorfs serves MCP at ${MCP_PATH}.`);
    }
    const rejected = this.checkHostAndOrigin(request);
    if (rejected) return rejected;
    const tokenIndex = await this.checker.match(request.headers.get("authorization"));
    if (tokenIndex === undefined) {
      const given = request.headers.has("authorization");
      return refuse(
        401,
        given
          ? "Unauthorized: the bearer token is not one of this server's tokens."
          : "Unauthorized: send Authorization: Bearer <token> (the token file's path is " +
            "printed when the server starts).",
        {
          "WWW-Authenticate": given
            ? 'Bearer realm="anchorfs", error="invalid_token"'
            : 'Bearer realm="anchorfs"',
        },
      );
    }
    if (this.closing) return refuse(503, "The server is shutting down.");
    const declared = Number(request.headers.get("content-length") ?? "0");
    if (declared > this.params.http.maxBodyBytes) return this.tooLarge(declared);
    const authInfo = {
      token: this.params.tokens[tokenIndex]!,
      clientId: `agent-${tokenIndex + 1}`,
      scopes: [],
    };
    const legacy = await isLegacyRequest(request, undefined, {
      maxRequestBodySize: this.params.http.maxBodyBytes,
    }).catch(() => true);
    if (legacy) return await this.serveLegacy(request, tokenIndex, authInfo);
    const { agent, handler } = this.tokenAgent(tokenIndex);
    return withListenReplay(await handler.fetch(request, { authInfo }), agent.jobs.view);
  };

  private tooLarge(bytes: number): Response {
    return refuse(
      413,
      `Payload Too Large: the request body has ${bytes} bytes; this server takes at most ` +
        `${this.params.http.maxBodyBytes} (anchorfs mcp --max-body-bytes).`,
    );
  }

  private checkHostAndOrigin(request: Request): Response | undefined {
    const allowed = this.params.http.allowedHosts;
    const host = validateHostHeader(request.headers.get("host"), allowed);
    if (!host.ok) {
      return refuse(
        403,
        `Forbidden: Host ${
          JSON.stringify(request.headers.get("host") ?? "")
        } is not this server's (allowed: ${allowed.join(", ")}); restart with ` +
          "--allow-origin NAME to accept another name (e.g. a reverse proxy's).",
      );
    }
    const origin = validateOriginHeader(request.headers.get("origin"), allowed);
    if (!origin.ok) {
      return refuse(
        403,
        `Forbidden: Origin ${
          JSON.stringify(request.headers.get("origin") ?? "")
        } is not allowed (allowed host names: ${allowed.join(", ")}); restart with ` +
          "--allow-origin NAME to accept it.",
      );
    }
    return undefined;
  }

  // ---- 2025 era: one transport, one McpServer and one agent per Mcp-Session-Id ----

  private async serveLegacy(
    request: Request,
    tokenIndex: number,
    authInfo: { token: string; clientId: string; scopes: string[] },
  ): Promise<Response> {
    const id = request.headers.get("mcp-session-id");
    if (id !== null) {
      const session = this.sessions.get(id);
      // Another token's session is as unknown to this caller as one that never existed.
      if (!session || session.tokenIndex !== tokenIndex) {
        const why = this.sessions.endedBecause(id, tokenIndex);
        return refuse(404, sessionGone(id, why, this.limitsText()), {}, -32001);
      }
      session.lastSeen = Date.now();
      return await this.serveSession(session, request, authInfo);
    }
    if (request.method !== "POST") {
      return refuse(400, "Bad Request: Mcp-Session-Id header is required (initialize first).");
    }
    let body: unknown;
    try {
      body = await request.clone().json();
    } catch {
      return refuse(400, "Parse error: the request body is not JSON.", {}, -32700);
    }
    const messages = Array.isArray(body) ? body : [body];
    if (!messages.some((m) => isInitializeRequest(m))) {
      return refuse(
        400,
        "Bad Request: Mcp-Session-Id header is required; a session starts with initialize.",
      );
    }
    const admission = this.sessions.admit(tokenIndex);
    if (admission.kind === "full") {
      return refuse(
        503,
        sessionsBusy(admission.open, admission.cap, this.limitsText()),
        { "Retry-After": "5" },
      );
    }
    if (admission.kind === "evict") {
      this.endSession(admission.victim.id, "evicted").catch(() => {});
    }
    return await this.sessions.opening(
      tokenIndex,
      () => this.openSession(request, body, tokenIndex, authInfo),
    );
  }

  /**
   * A request of an open session: a POST whose id is already in flight gets 409 (the SDK would
   * never answer one of the two); a GET stream gets a priming event (an id and a retry interval
   * to resume from) and is counted as open while it lasts; a resume from past the replay window
   * is told what was dropped.
   */
  private async serveSession(
    session: LegacySession,
    request: Request,
    authInfo: { token: string; clientId: string; scopes: string[] },
  ): Promise<Response> {
    if (request.method === "POST") {
      const read = await readRequestBody(request.clone(), this.params.http.maxBodyBytes);
      if (read.tooLarge) return this.tooLarge(Number(request.headers.get("content-length") ?? 0));
      let parsedBody: unknown;
      try {
        parsedBody = JSON.parse(read.text ?? "");
      } catch {
        // The transport answers a body that is not JSON.
        return await session.transport.handleRequest(request, { authInfo });
      }
      const reused = this.sessions.reusedId(session, parsedBody);
      if (reused !== undefined) {
        return Response.json(
          { jsonrpc: "2.0", error: { code: -32600, message: idInFlight(reused) }, id: reused },
          { status: 409 },
        );
      }
      return await session.transport.handleRequest(request, { parsedBody, authInfo });
    }
    if (request.method !== "GET") {
      return await session.transport.handleRequest(request, { authInfo });
    }
    const watch = streamWatcher(session);
    const version = request.headers.get("mcp-protocol-version");
    const lastEventId = request.headers.get("last-event-id");
    if (lastEventId !== null && session.events.missed(lastEventId)) {
      // Past the window: the SDK would refuse the id (400); open a fresh stream that says so.
      const headers = new Headers(request.headers);
      headers.delete("last-event-id");
      const fresh = new Request(request.url, { method: "GET", headers, signal: request.signal });
      const first = await primingEvent(session.events, version);
      const note = droppedNote(lastEventId, session.events.stats.dropped);
      return watch(await session.transport.handleRequest(fresh, { authInfo }), first, note);
    }
    if (lastEventId !== null) {
      return watch(await session.transport.handleRequest(request, { authInfo }));
    }
    const first = await primingEvent(session.events, version);
    return watch(await session.transport.handleRequest(request, { authInfo }), first);
  }

  private limitsText(): SessionLimitsText {
    const { idleTimeoutMs, unstreamedTimeoutMs, maxSessions } = this.params.http;
    return {
      idleTimeoutMs,
      unstreamedTimeoutMs,
      maxSessions,
      tokens: this.params.tokens.length,
      perToken: this.sessions.perToken,
    };
  }

  private async openSession(
    request: Request,
    body: unknown,
    tokenIndex: number,
    authInfo: { token: string; clientId: string; scopes: string[] },
  ): Promise<Response> {
    const { services, root, serverOptions, http } = this.params;
    const agent = createAgent(services, root);
    const mcp = createServerFactory(agent.services, agent.session, serverOptions)();
    const events = new SessionEventStore(this.replay);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      eventStore: events,
      retryInterval: RETRY_MS,
      maxRequestBodySize: http.maxBodyBytes,
      onsessioninitialized: (id) => {
        const session: LegacySession = {
          id,
          tokenIndex,
          agent,
          mcp,
          transport,
          events,
          lastSeen: Date.now(),
          inflight: 0,
          pending: new Set(),
          streams: 0,
          everStreamed: false,
        };
        this.sessions.add(session);
      },
      // The DELETE is answered first; ending the session closes the transport under it.
      onsessionclosed: (id) => void setTimeout(() => this.endSession(id, "deleted"), 0),
    });
    transport.onerror = (e) => logError("http session", e);
    await mcp.connect(transport);
    const response = await transport.handleRequest(request, { parsedBody: body, authInfo });
    if (transport.sessionId === undefined || !this.sessions.has(transport.sessionId)) {
      events.release();
      await mcp.close().catch(() => {});
    }
    return response;
  }

  /** Ends a session: its streams close, its jobs end as on a stdio disconnect. */
  async endSession(id: string, why: EndReason): Promise<void> {
    const session = this.sessions.remove(id, why);
    if (!session) return;
    session.events.release();
    if (why === "idle") logLine(`anchorfs: session ${id} ended after idle timeout`);
    if (why === "unstreamed") {
      logLine(`anchorfs: session ${id} ended: idle and it never opened its GET stream`);
    }
    if (why === "evicted") {
      logLine(`anchorfs: session ${id} ended to make room (least recently used idle session)`);
    }
    await session.mcp.close().catch(() => {});
    await session.transport.close().catch(() => {});
    await session.agent.jobs.endAll().catch((e) => logError("ending session jobs", e));
    session.agent.services.undo.clear();
  }

  private sweepIdle(): void {
    for (const { session, why } of this.sessions.expired(Date.now())) {
      this.endSession(session.id, why).catch(() => {});
    }
  }

  // ---- 2026-07-28: per-request serving; one agent (and one listen bus) per token ----

  private tokenAgent(index: number): TokenAgent {
    const known = this.tokenAgents.get(index);
    if (known) return known;
    const { services, root, serverOptions, http } = this.params;
    const agent = createAgent(services, root);
    const factory = createServerFactory(agent.services, agent.session, serverOptions);
    const handler = createMcpHandler(() => factory(), {
      legacy: "reject",
      maxRequestBodySize: http.maxBodyBytes,
      onerror: (e) => logError("http", e),
    });
    // Per-request instances are gone when a job ends: its notifications go through the bus to
    // this token's open subscriptions/listen streams.
    const unsubscribe = agent.jobs.view.subscribe((event) => {
      if (event.kind === "end") handler.notify.resourceUpdated(jobUri(event.record.id));
      handler.notify.resourcesChanged();
    });
    const created = { agent, handler, unsubscribe };
    this.tokenAgents.set(index, created);
    return created;
  }

  /** Ends every session and token agent (their jobs end too); refuses requests from now on. */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.sweeper);
    await Promise.all(this.sessions.ids().map((id) => this.endSession(id, "shutdown")));
    await Promise.all(
      [...this.tokenAgents.values()].map(async ({ agent, handler, unsubscribe }) => {
        unsubscribe();
        await handler.close().catch(() => {});
        await agent.jobs.endAll().catch(() => {});
        agent.services.undo.clear();
      }),
    );
    this.tokenAgents.clear();
  }
}

/**
 * Serves until SIGTERM/SIGINT (or `signal`): then stops accepting, ends every session and its
 * jobs, and resolves. The caller releases the services.
 */
export async function serveHttp(
  params: HttpServeParams,
  notice: string,
  signal?: AbortSignal,
): Promise<void> {
  const mcp = new HttpMcpServer(params);
  const { hostname, port, isPublic, allowedHosts } = params.http;
  const limits = sizeConnections(params.http.connections);
  const server = listen({
    hostname,
    port,
    limits,
    onListen: (addr) => {
      const host = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
      logLine(`anchorfs: serving MCP over HTTP at http://${host}:${addr.port}${MCP_PATH}`);
      logLine(`anchorfs: auth: ${notice}`);
      if (isPublic) {
        logLine(
          `anchorfs: warning: --http-public: listening on ${host}, reachable from the ` +
            `network; accepted host names: ${allowedHosts.join(", ") || "(none)"}.`,
        );
      }
    },
    onError: (e) => {
      logError("http", e);
      return refuse(500, "Internal error in anchorfs; see its stderr.", {}, -32603);
    },
  }, (request) => serveWithBigIds(request, mcp.fetch, params.http.maxBodyBytes));
  let finish = () => {};
  const ended = new Promise<void>((resolve) => (finish = () => resolve()));
  Deno.addSignalListener("SIGTERM", finish);
  Deno.addSignalListener("SIGINT", finish);
  signal?.addEventListener("abort", finish, { once: true });
  server.finished.then(finish, finish);
  await ended;
  Deno.removeSignalListener("SIGTERM", finish);
  Deno.removeSignalListener("SIGINT", finish);
  logLine("anchorfs: shutting down: ending sessions and their jobs");
  // Sessions first: their open GET streams would otherwise hold the server's shutdown forever.
  await mcp.close();
  await server.close(5000);
}
