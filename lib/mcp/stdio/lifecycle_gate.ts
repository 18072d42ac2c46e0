// The MCP lifecycle on one stdio connection of the 2025 era: a session starts with `initialize`,
// and until then only `ping` may be served (the SDK's legacy server serves any request at any
// time, so a `tools/call` before `initialize` used to be run). Requests that carry the 2026-07-28
// per-request envelope have no `initialize` and pass. Pure: no I/O, no SDK import.

import type { JSONRPCErrorResponse } from "@modelcontextprotocol/server";
import { errorReply, INVALID_REQUEST } from "./jsonrpc_check.ts";

/** The `_meta` key by which a 2026-07-28 request names its revision (no `initialize` there). */
const ENVELOPE_CLAIM = "io.modelcontextprotocol/protocolVersion";

/** Requests served before `initialize` (the spec allows pings at any time). */
const BEFORE_INITIALIZE = new Set(["initialize", "ping"]);

export class LifecycleGate {
  private initialized = false;

  /**
   * The error reply for `message` when it is a request that may not be served yet; undefined to
   * pass it on. An `initialize` opens the gate for the messages after it (the SDK handles them
   * in order, so they reach it after the initialize).
   */
  judge(message: Record<string, unknown>): JSONRPCErrorResponse | undefined {
    if (this.initialized || !("method" in message)) return undefined;
    const method = message.method as string;
    if (method === "initialize") {
      this.initialized = true;
      return undefined;
    }
    if (!("id" in message) || BEFORE_INITIALIZE.has(method) || hasEnvelopeClaim(message.params)) {
      return undefined;
    }
    return errorReply(
      message.id as string | number,
      INVALID_REQUEST,
      `Invalid Request: ${JSON.stringify(method)} arrived before "initialize". An MCP session ` +
        'starts with an "initialize" request (answered with the server\'s capabilities) and ' +
        'its "notifications/initialized"; only "ping" is served before it. Send "initialize" ' +
        "first, then retry this request (a 2026-07-28 client sends the per-request _meta " +
        "envelope instead).",
    );
  }
}

function hasEnvelopeClaim(params: unknown): boolean {
  if (params === null || typeof params !== "object") return false;
  const meta = (params as { _meta?: unknown })._meta;
  return meta !== null && typeof meta === "object" && ENVELOPE_CLAIM in meta;
}
