// The MCP SDK's half of `anchorfs mcp` on stdio: the server factory behind serveStdio, and the
// SDK's envelope parse for the wire. Imported only once the wire is reading (command.ts): loading
// the SDK is most of the start-up, and the opening `initialize` is answered without it.

import { parseJSONRPCMessage } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import type { Services } from "../../ops/services.ts";
import type { Session } from "../../ops/session.ts";
import { installListenReplay } from "../job_resources.ts";
import { logError } from "../log.ts";
import { createServerFactory } from "../server.ts";
import type { ObservedTransport } from "./stdio_transport.ts";
import type { StdioWire } from "./stdio_wire.ts";
import type { ServerOptions } from "../tool_env.ts";

/** Serves MCP through `transport` (which wraps `wire`) until the connection closes. */
export function serveOnWire(
  services: Services,
  session: Session,
  options: ServerOptions,
  wire: StdioWire,
  transport: ObservedTransport,
): void {
  const factory = createServerFactory(services, session, options);
  installListenReplay(transport, services.jobs);
  serveStdio(factory, { transport, onerror: (e) => logError("transport", e) });
  // serveStdio has started the transport: the messages held while the SDK loaded go in now.
  wire.setParser(parseJSONRPCMessage);
}
