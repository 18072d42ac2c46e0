// The server factory: one McpServer per serving unit, built from per-session state over
// process-wide services. Cheap and free of side effects, because serveStdio may call it more
// than once (once per protocol era, and for throw-away probes).

import { McpServer } from "@modelcontextprotocol/server";
import type { Services } from "../ops/services.ts";
import type { Session } from "../ops/session.ts";
import { FILE_TOOL_REGISTRARS, SHELL_TOOL_REGISTRARS } from "./tools/mod.ts";
import { installRootsListener } from "./roots.ts";
import { registerJobResources } from "./job_resources.ts";
import { registerJobChannel } from "./job_channel.ts";
import { describeServer } from "./server_info.ts";
import type { ServerOptions, ToolEnv } from "./tool_env.ts";

export { SERVER_INSTRUCTIONS, SERVER_INSTRUCTIONS_NO_SHELL } from "./server_info.ts";

/**
 * Builds one fresh `McpServer` with the anchorfs tools registered; serveStdio (or an HTTP
 * transport) calls it once per protocol era and for probes.
 */
export type ServerFactory = () => McpServer;

/**
 * The MCP server factory behind `anchorfs mcp`: every server it builds shares `services`
 * (process-wide) and `session` (this connection's working directory and shown lines). Building
 * a server has no side effects. Serve it with `serveStdio` from `@modelcontextprotocol/server`.
 *
 * @example
 * ```ts
 * import { closeServices, createServerFactory, createServices, createSession } from "@anchorfs/anchorfs";
 *
 * const services = createServices();
 * const session = createSession(services.locations.localAt(Deno.cwd()));
 * const factory = createServerFactory(services, session, {
 *   foregroundWindowSeconds: 10,
 *   tailBytes: 4096,
 *   shell: false,
 *   confined: false,
 * });
 * const server = factory(); // an McpServer: connect it to a transport
 * await server.close();
 * await closeServices(services);
 * ```
 */
export function createServerFactory(
  services: Services,
  session: Session,
  options: ServerOptions,
): ServerFactory {
  const env: ToolEnv = { services, session, options };
  return () => {
    const info = describeServer(options);
    const mcp = new McpServer(info.serverInfo, {
      capabilities: info.capabilities,
      instructions: info.instructions,
    });
    for (const register of FILE_TOOL_REGISTRARS) register(mcp, env);
    if (options.shell) {
      // Jobs exist only through the shell: without it there are no job tools or resources.
      for (const register of SHELL_TOOL_REGISTRARS) register(mcp, env);
      registerJobResources(mcp, env);
      registerJobChannel(mcp, env);
    }
    installRootsListener(mcp, env);
    return mcp;
  };
}
