// What every tool registrar receives: the process-wide services and this connection's session.

import type { McpServer } from "@modelcontextprotocol/server";
import type { Services } from "../ops/services.ts";
import type { Session } from "../ops/session.ts";

/**
 * Seconds a search or listing may run. Under the 60 s request timeout of the SDK clients, so the
 * partial result arrives before the client gives up.
 */
export const DEFAULT_DEADLINE_SECONDS = 50;

/** How the servers a {@linkcode ServerFactory} builds behave (the `anchorfs mcp` flags). */
export interface ServerOptions {
  /** Seconds a shell command runs in the foreground before it becomes a background job. */
  foregroundWindowSeconds: number;
  /** Wire bytes of output tail shell and jobs results show (--tail-bytes). */
  tailBytes: number;
  /** Lines of that tail a passing run shows (--passing-tail-lines; 0: the whole tail). */
  passingLines?: number;
  /** False with --no-shell: no shell and jobs tools, no job resources. */
  shell: boolean;
  /** --allow or --roots given: the shell's description says it is not confined. */
  confined: boolean;
  /** For the instructions: where the file tools may go, e.g. `"/srv/app" (--allow)`. */
  confinedTo?: string;
  /**
   * For the instructions: the edit tools refuse files tools run as commands (.git, hooks...).
   * Default: without the shell (--no-shell), as the guard's default.
   */
  protectsExecFiles?: boolean;
  /**
   * Resolves once the reply to request `id` has been written (the outbound queue): big replies
   * hold their share of the read budget until then. Absent: released when the handler returns.
   */
  replySent?: (id: string | number) => Promise<void>;
  /** Seconds a search or listing runs before it stops and returns a partial result. */
  deadlineSeconds?: number;
}

export interface ToolEnv {
  services: Services;
  session: Session;
  options: ServerOptions;
}

export type ToolRegistrar = (mcp: McpServer, env: ToolEnv) => void;
