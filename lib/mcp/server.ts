// The server factory: one McpServer per serving unit, built from per-session state over
// process-wide services. Cheap and free of side effects, because serveStdio may call it more
// than once (once per protocol era, and for throw-away probes).

import { McpServer } from "@modelcontextprotocol/server";
import type { Services } from "../ops/services.ts";
import type { Session } from "../ops/session.ts";
import { VERSION } from "../version.ts";
import { FILE_TOOL_REGISTRARS, SHELL_TOOL_REGISTRARS } from "./tools/mod.ts";
import { installRootsListener } from "./roots.ts";
import { registerJobResources } from "./job_resources.ts";
import { CHANNEL_CAPABILITY, registerJobChannel } from "./job_channel.ts";
import type { ServerOptions, ToolEnv } from "./tool_env.ts";

export const SERVER_INSTRUCTIONS =
  "anchorfs gives you a file system and a shell. Every line is shown as N:hh|content: N is the " +
  "line number, hh a 2-hex hash of the content. Edits take these ids back and verify them, so " +
  "an edit never lands on a line that changed since you saw it; a stale id fails with fresh ids. " +
  "Use view (not cat/grep/ls/find) to read, search and list; text_editor and batch_edit to edit. " +
  "Paths may be local or ssh://host/path. A shell command still running after the foreground " +
  "window becomes a job (anchorfs://jobs/ID) and you are notified when it ends: never run it " +
  'again or sleep; use jobs {"action":"wait","id":"ID"} if you must block.';

/** With --no-shell: the same guidance without the shell and its jobs. */
export const SERVER_INSTRUCTIONS_NO_SHELL =
  "anchorfs gives you a file system (this server has no shell). Every line is shown as " +
  "N:hh|content: N is the line number, hh a 2-hex hash of the content. Edits take these ids " +
  "back and verify them, so an edit never lands on a line that changed since you saw it; a " +
  "stale id fails with fresh ids. Use view to read, search and list; text_editor and " +
  "batch_edit to edit. Paths may be local or ssh://host/path.";

export type ServerFactory = () => McpServer;

export function createServerFactory(
  services: Services,
  session: Session,
  options: ServerOptions,
): ServerFactory {
  const env: ToolEnv = { services, session, options };
  return () => {
    const mcp = new McpServer(
      { name: "anchorfs", version: VERSION },
      {
        capabilities: options.shell
          ? {
            tools: {},
            resources: { subscribe: true, listChanged: true },
            logging: {},
            experimental: { [CHANNEL_CAPABILITY]: {} },
          }
          : { tools: {}, logging: {} },
        instructions: (options.shell ? SERVER_INSTRUCTIONS : SERVER_INSTRUCTIONS_NO_SHELL) +
          (options.confinedTo === undefined
            ? ""
            : ` File tools may only use paths inside ${options.confinedTo}; others are refused.`),
      },
    );
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
