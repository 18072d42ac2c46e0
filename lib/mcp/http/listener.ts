// The HTTP server's connection layer: our own accept loop (Deno.listen) so that unauthenticated
// connections cannot take the server down. Deno.serve ends its whole server on one EMFILE from
// accept and never closes a connection that stops mid-headers; here EMFILE pauses accepting,
// connections beyond a cap (sized below the open-file limit) are refused with a 503, and one that
// does not finish its headers or body in time is closed. Each accepted connection is served by
// the runtime's own HTTP stack (the per-connection entry node:http uses). No MCP logic here.

import { logLine } from "../log.ts";
import { raiseFdLimit } from "../../backends/local/fd_limit.ts";
import {
  connectionCap,
  connectionsLine,
  FD_LIMIT_TARGET,
  NO_CONNECTION_GUARDS,
} from "./connection_options.ts";

/** How the connection layer treats a connection (parsed from flags in connection_options.ts). */
export interface ConnectionLimits {
  /** A connection must deliver a request's headers this soon after opening, or after its last
   * response (keep-alive idle), else it is closed. */
  headerTimeoutMs: number;
  /** A request body must arrive whole this soon after the handler starts reading it. */
  bodyTimeoutMs: number;
  /** Connections served at once; more are answered 503 and closed. */
  maxConnections: number;
}

export interface ServeInfo {
  /** Settles when the response has been sent (resolves) or could not be (rejects). */
  completed: Promise<void>;
}

export type Handler = (request: Request, info: ServeInfo) => Response | Promise<Response>;

export interface ListenParams {
  hostname: string;
  port: number;
  limits: ConnectionLimits;
  onListen(addr: Deno.NetAddr): void;
  onError(error: unknown): Response;
}

export interface ConnectionCounts {
  open: number;
  /** Refused because `maxConnections` were open. */
  refused: number;
  /** Closed for not finishing headers or a body in time. */
  timedOut: number;
  /** Accept failures for want of file descriptors (each one paused accepting). */
  fdPauses: number;
}

export interface Listening {
  addr: Deno.NetAddr;
  counts: ConnectionCounts;
  /** Resolves when the accept loop has ended (after close()). */
  finished: Promise<void>;
  /** Stops accepting; open connections finish their responses within `graceMs`, then are cut. */
  close(graceMs: number): Promise<void>;
}

interface ServedConnection {
  finished: Promise<void>;
  shutdown(): Promise<void>;
}

type ServeOnConnection = (
  conn: Deno.Conn,
  signal: AbortSignal,
  handler: (request: Request, info: ServeInfo) => Response | Promise<Response>,
  onError: (error: unknown) => Response | Promise<Response>,
  onListen: (scheme: string) => void,
) => ServedConnection;

/**
 * The runtime's serve-one-connection entry (what node:http builds on), when this Deno has it:
 * it is not public API, so its absence is an answer, not an error.
 */
function serveOnConnection(): ServeOnConnection | undefined {
  const deno = Deno as unknown as Record<symbol | string, unknown>;
  const internal = deno[deno.internal as symbol] as Record<string, unknown> | undefined;
  const fn = internal?.serveHttpOnConnection;
  return typeof fn === "function" ? fn as ServeOnConnection : undefined;
}

/** True when this runtime lets the listener serve each connection itself (else Deno.serve). */
export const connectionGuardsAvailable = (): boolean => serveOnConnection() !== undefined;

/**
 * The connection limits in force: the soft open-file limit raised first (where allowed), then the
 * cap sized below it; one start-up line says what holds.
 */
export function sizeConnections(asked: ConnectionLimits): ConnectionLimits {
  if (!connectionGuardsAvailable()) {
    logLine(`anchorfs: http: ${NO_CONNECTION_GUARDS}`);
    return asked;
  }
  const fd = raiseFdLimit(FD_LIMIT_TARGET);
  const limits = { ...asked, maxConnections: connectionCap(asked.maxConnections, fd.soft) };
  logLine(`anchorfs: http: ${connectionsLine(limits, asked.maxConnections, fd)}`);
  return limits;
}

const isFdExhaustion = (e: unknown) =>
  /EMFILE|ENFILE|Too many open files/i.test(`${(e as { code?: string }).code ?? ""} ${e}`);

const BUSY_BODY = JSON.stringify({
  jsonrpc: "2.0",
  error: {
    code: -32000,
    message: "Service Unavailable: this server has as many connections open as it serves at " +
      "once; retry in a few seconds, close idle connections, or restart it with a larger " +
      "--max-connections.",
  },
  id: null,
});
const BUSY_RESPONSE = new TextEncoder().encode(
  "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 2\r\n" +
    `Connection: close\r\nContent-Length: ${new TextEncoder().encode(BUSY_BODY).length}\r\n\r\n` +
    BUSY_BODY,
);

/**
 * Listens on hostname:port and serves `handler` until close(). The handler gets a Request whose
 * body is bounded in time, and whose `signal` aborts when the response has been delivered or the
 * client went away (what Deno.serve's legacy signal did, without its warning).
 */
export function listen(params: ListenParams, handler: Handler): Listening {
  const serveOn = serveOnConnection();
  if (!serveOn) return listenWithDenoServe(params, handler);
  return new Acceptor(params, handler, serveOn).start();
}

interface LiveConnection {
  cut(): void;
  served: ServedConnection;
}

/** The accept loop, the connections it serves, and their clocks. */
class Acceptor {
  private readonly listener: Deno.Listener;
  private readonly counts: ConnectionCounts = { open: 0, refused: 0, timedOut: 0, fdPauses: 0 };
  private readonly live = new Set<LiveConnection>();
  private closing = false;
  private wake = () => {};

  constructor(
    private readonly params: ListenParams,
    private readonly handler: Handler,
    private readonly serveOn: ServeOnConnection,
  ) {
    this.listener = Deno.listen({ hostname: params.hostname, port: params.port });
  }

  start(): Listening {
    const addr = this.listener.addr as Deno.NetAddr;
    this.params.onListen(addr);
    const finished = this.acceptLoop();
    return {
      addr,
      counts: this.counts,
      finished,
      close: async (graceMs) => {
        this.closing = true;
        this.wake();
        try {
          this.listener.close();
        } catch { /* closed already */ }
        await finished;
        await this.closeConnections(graceMs);
      },
    };
  }

  private async acceptLoop(): Promise<void> {
    let pauseMs = 10;
    while (!this.closing) {
      let conn: Deno.Conn;
      try {
        conn = await this.listener.accept();
        pauseMs = 10;
      } catch (e) {
        if (this.closing || e instanceof Deno.errors.BadResource) return;
        this.reportAcceptFailure(e);
        // The pending connections wait in the kernel's queue; as timed-out ones close,
        // descriptors free up and accepting resumes.
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, pauseMs);
          this.wake = () => (clearTimeout(t), resolve());
        });
        pauseMs = Math.min(pauseMs * 2, 1000);
        continue;
      }
      if (this.counts.open >= this.params.limits.maxConnections) this.refuse(conn);
      else this.serve(conn);
    }
  }

  private reportAcceptFailure(e: unknown): void {
    if (!isFdExhaustion(e)) {
      logLine(`anchorfs: http: accept failed: ${e}; retrying`);
    } else if (this.counts.fdPauses++ === 0) {
      logLine(
        `anchorfs: http: out of file descriptors while accepting (${this.counts.open} ` +
          "connections open); pausing accepts and retrying. Raise the open-file limit " +
          "(ulimit -n) or lower --max-connections if this repeats.",
      );
    }
  }

  private refuse(conn: Deno.Conn): void {
    this.counts.refused++;
    // A fresh socket's send buffer takes this small answer at once; never wait on it.
    conn.write(BUSY_RESPONSE).catch(() => {}).finally(() => {
      try {
        conn.close();
      } catch { /* closed by the peer already */ }
    });
  }

  /**
   * Serves one connection. Its clock runs while it owes us headers (from opening, and again
   * after each response: keep-alive idle) and stops while a request is being handled.
   */
  private serve(conn: Deno.Conn): void {
    const { limits } = this.params;
    this.counts.open++;
    const abort = new AbortController();
    let ended = false;
    // Aborting a connection the runtime has closed already throws from inside its listener.
    const cut = () => {
      if (!ended && !abort.signal.aborted) abort.abort();
    };
    let active = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expire = () => {
      this.counts.timedOut++;
      cut();
    };
    const arm = () => (timer = setTimeout(expire, limits.headerTimeoutMs));
    arm();
    const served = this.serveOn(
      conn,
      abort.signal,
      (request, info) => {
        active++;
        clearTimeout(timer);
        const done = info.completed.then(() => {}, () => {});
        done.then(() => {
          if (--active === 0 && !ended && !abort.signal.aborted) arm();
        });
        return this.handler(guardRequest(request, done, limits.bodyTimeoutMs, expire), info);
      },
      this.params.onError,
      () => {},
    );
    const entry = { cut, served };
    this.live.add(entry);
    served.finished.catch(() => {}).finally(() => {
      ended = true;
      clearTimeout(timer);
      this.live.delete(entry);
      this.counts.open--;
    });
  }

  /** Open connections finish their responses within `graceMs`; then the rest are cut. */
  private async closeConnections(graceMs: number): Promise<void> {
    const all = [...this.live];
    const graceful = Promise.all(all.map((c) => c.served.shutdown().catch(() => {})));
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([graceful, new Promise((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
    // One macrotask: connections that just finished have marked themselves ended (cut skips
    // them) before the rest are cut.
    await new Promise((r) => setTimeout(r, 0));
    for (const c of all) c.cut();
    await Promise.all(all.map((c) => c.served.finished.catch(() => {})));
  }
}

/**
 * The request as the MCP handler sees it: the same method, URL and headers, a body that fails
 * (and cuts the connection) when it is not all there `bodyTimeoutMs` after the first read, and a
 * signal of our own that aborts once the exchange is `done`. The runtime's request.signal is never
 * touched: reading it is what prints Deno.serve's legacy-abort warning.
 */
function guardRequest(
  request: Request,
  done: Promise<void>,
  bodyTimeoutMs: number,
  cut: () => void,
): Request {
  const signal = new AbortController();
  done.then(() => signal.abort());
  const init: RequestInit & { duplex?: "half" } = {
    method: request.method,
    headers: request.headers,
    signal: signal.signal,
  };
  if (request.body) {
    const reader = request.body.getReader();
    let deadline: ReturnType<typeof setTimeout> | undefined;
    let late: (e: Error) => void = () => {};
    const expired = new Promise<never>((_, reject) => (late = reject));
    expired.catch(() => {});
    init.body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        deadline ??= setTimeout(() => {
          late(new Error(`request body not complete within ${bodyTimeoutMs / 1000} s`));
          cut();
        }, bodyTimeoutMs);
        try {
          const { done, value } = await Promise.race([reader.read(), expired]);
          if (done) {
            clearTimeout(deadline);
            controller.close();
          } else controller.enqueue(value);
        } catch (e) {
          clearTimeout(deadline);
          controller.error(e);
        }
      },
      cancel(reason) {
        clearTimeout(deadline);
        return reader.cancel(reason);
      },
    });
    init.duplex = "half";
  }
  return new Request(request.url, init);
}

/**
 * Runtimes without the per-connection entry: Deno.serve as before (no connection cap or header
 * timeout; the start-up log says so), with the same request guard.
 */
function listenWithDenoServe(params: ListenParams, handler: Handler): Listening {
  const stop = new AbortController();
  let addr: Deno.NetAddr | undefined;
  const server = Deno.serve({
    hostname: params.hostname,
    port: params.port,
    signal: stop.signal,
    onListen: (a) => {
      addr = a;
      params.onListen(a);
    },
    onError: params.onError,
  }, (request, info) => {
    const done = info.completed.then(() => {}, () => {});
    return handler(guardRequest(request, done, params.limits.bodyTimeoutMs, () => {}), info);
  });
  return {
    addr: addr!,
    counts: { open: 0, refused: 0, timedOut: 0, fdPauses: 0 },
    finished: server.finished.catch(() => {}),
    async close(graceMs) {
      stop.abort();
      await Promise.race([server.finished, new Promise((r) => setTimeout(r, graceMs))]);
    },
  };
}
