// --roots: asks the client for its roots (roots/list) once initialized and again on
// notifications/roots/list_changed, and hands each answer, numbered by its request, to the
// confinement (which applies answers in request order and refuses file paths while the newest
// is out or failed: lib/ops/roots_state.ts). Only 2025-era connections have this server→client
// request; on 2026-07-28 (no roots) the fallback applies.

import type { McpServer } from "@modelcontextprotocol/server";
import { formatError, toAnchorError } from "../core/errors.ts";
import { logLine } from "./log.ts";
import type { ToolEnv } from "./tool_env.ts";

export function installRootsListener(mcp: McpServer, env: ToolEnv): void {
  const confinement = env.services.confinement;
  if (!confinement?.rootsMode) return;
  const server = mcp.server;
  const refresh = () => {
    const seq = confinement.rootsRequested();
    server.listRoots().then(async ({ roots }) => {
      const refused = await confinement.answerRoots(seq, roots.map((r) => r.uri));
      if (refused === null) return; // a later request's answer is already in force
      if (refused.length > 0) {
        logLine(
          `anchorfs mcp: refused roots that are not local file:// URIs: ${refused.join(", ")}`,
        );
      }
      await followRoots(env);
    }).catch((e) => {
      const text = formatError(toAnchorError(e));
      confinement.rootsFailed(seq, text.split("\n")[0]!);
      logLine(`anchorfs mcp: roots/list failed: ${text}`);
    });
  };
  // A file call that finds the newest request failed asks again.
  confinement.roots.retry = refresh;
  server.oninitialized = () => {
    // A client without the roots capability keeps the fallback (--allow, else the start dir).
    if (server.getClientCapabilities()?.roots) refresh();
  };
  server.setNotificationHandler("notifications/roots/list_changed", () => refresh());
}

/** A working directory outside the new roots moves to the first root, so relative paths work. */
async function followRoots(env: ToolEnv): Promise<void> {
  const confinement = env.services.confinement!;
  const { session, services } = env;
  if (await confinement.contains(session.cwd)) return;
  const first = (await confinement.current())?.dirs[0];
  if (!first) return;
  const root = await services.locations.locate(first.url, session.cwd);
  session.cwd = root;
  session.root = root;
}
