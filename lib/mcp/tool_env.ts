// What every tool registrar receives: the process-wide services and this connection's session.

import type { McpServer } from "@modelcontextprotocol/server";
import type { Services } from "../ops/services.ts";
import type { Session } from "../ops/session.ts";

export interface ServerOptions {
  /** Seconds a shell command runs in the foreground before it becomes a background job. */
  foregroundWindowSeconds: number;
}

export interface ToolEnv {
  services: Services;
  session: Session;
  options: ServerOptions;
}

export type ToolRegistrar = (mcp: McpServer, env: ToolEnv) => void;
