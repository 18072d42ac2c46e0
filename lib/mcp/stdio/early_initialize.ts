// Answers the opening `initialize` before the MCP SDK has loaded (importing the SDK is most of the
// server's start-up) with exactly the reply the SDK gives. The same request is handed to the SDK
// once it has loaded, so its state is as if it had answered first; its own reply to that request
// is then dropped, after a comparison (a difference is logged: it would be our bug). Anything
// unusual (another method first, a _meta envelope, a version or shape the SDK might treat
// differently) is left to the SDK. Pure: no I/O, no SDK import.

import type { ServerInfo } from "../server_info.ts";

/**
 * The 2025-era protocol versions the SDK (2.4.0) negotiates in `initialize`, newest first: a
 * requested one is answered as is (tests/mcp/early_initialize_test.ts holds this to the SDK).
 */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
  "2024-10-07",
];

type Id = string | number;
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** Optional members that, when present, must be objects (the SDK's schema checks nothing finer). */
const OBJECT_CAPABILITIES = ["experimental", "sampling", "elicitation", "tasks", "extensions"];

/**
 * True when the SDK's schema surely accepts these client capabilities. Stricter than the SDK:
 * a false here only means the SDK answers this `initialize` itself.
 */
function plainCapabilities(capabilities: unknown): boolean {
  if (!isObject(capabilities)) return false;
  for (const [key, value] of Object.entries(capabilities)) {
    if (key === "roots") {
      if (!isObject(value)) return false;
      for (const [k, v] of Object.entries(value)) {
        if (k === "listChanged" ? typeof v !== "boolean" : true) return false;
      }
    } else if (OBJECT_CAPABILITIES.includes(key)) {
      // Every nested member an object too (records of objects, form/url, context/tools, ...).
      if (!isObject(value) || !Object.values(value).every(isObject)) return false;
      if (key === "tasks" || key === "elicitation") {
        // Deeper shapes (tasks.requests.sampling...) are the SDK's to judge.
        if (Object.values(value).some((v) => Object.keys(v as Json).length > 0)) return false;
      }
    } else return false;
  }
  return true;
}

/** The SDK's Implementation schema, stricter: name and version, optional title/description/URL. */
function plainClientInfo(info: unknown): boolean {
  if (!isObject(info) || typeof info.name !== "string" || typeof info.version !== "string") {
    return false;
  }
  return Object.entries(info).every(([k, v]) =>
    ["name", "version", "title", "description", "websiteUrl"].includes(k) && typeof v === "string"
  );
}

/**
 * The SDK's reply to `message` if it is an `initialize` this module can answer for it, else
 * undefined. `message` has passed the wire's JSON-RPC checks (jsonrpc "2.0", a string or integer
 * id, params an object, no other members).
 */
export function earlyInitializeReply(message: Json, info: ServerInfo): Json | undefined {
  if (message.method !== "initialize" || !("id" in message)) return undefined;
  const params = message.params;
  if (!isObject(params)) return undefined;
  // A _meta may carry a 2026-07-28 envelope claim: the SDK decides the era then.
  for (const key of Object.keys(params)) {
    if (!["protocolVersion", "capabilities", "clientInfo"].includes(key)) return undefined;
  }
  const version = params.protocolVersion;
  if (typeof version !== "string" || !LEGACY_PROTOCOL_VERSIONS.includes(version)) return undefined;
  if (!plainCapabilities(params.capabilities) || !plainClientInfo(params.clientInfo)) {
    return undefined;
  }
  // Key order as the SDK builds it (Server._oninitialize, then Protocol's response envelope).
  return {
    result: {
      protocolVersion: version,
      capabilities: info.capabilities,
      serverInfo: info.serverInfo,
      instructions: info.instructions,
    },
    jsonrpc: "2.0",
    id: message.id as Id,
  };
}

/**
 * The early answers of one connection: `answer` the first inbound message (before the SDK has
 * loaded), and `claim` each outbound message: true for the SDK's own reply to a request answered
 * early, which must not be sent twice.
 */
export class EarlyInitialize {
  private readonly answered = new Map<Id, string>();
  private decided = false;

  constructor(
    private readonly info: ServerInfo,
    private readonly log: (line: string) => void = () => {},
  ) {}

  /** The reply to send now for the connection's first message, or undefined (the SDK answers). */
  answer(message: Json): Json | undefined {
    if (this.decided) return undefined;
    this.decided = true;
    const reply = earlyInitializeReply(message, this.info);
    if (reply) this.answered.set(reply.id as Id, JSON.stringify(reply));
    return reply;
  }

  /** True when `message` is the SDK's reply to a request already answered (drop it). */
  claim(message: object): boolean {
    if (this.answered.size === 0 || "method" in message || !("id" in message)) return false;
    const id = (message as { id: Id }).id;
    const sent = this.answered.get(id);
    if (sent === undefined) return false;
    this.answered.delete(id);
    const own = JSON.stringify(message);
    if (own !== sent) {
      this.log(
        `internal: the early initialize reply differed from the SDK's (a bug; please report). ` +
          `Sent ${sent.slice(0, 400)} / SDK ${own.slice(0, 400)}`,
      );
    }
    return true;
  }
}
