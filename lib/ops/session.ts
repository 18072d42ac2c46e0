// Per-session state: the working directory and what the agent was shown. One Session per MCP
// connection (or per HTTP session later); process-wide services live in services.ts.

import { ShownLines } from "../core/shown_lines.ts";
import type { Location } from "./location.ts";

export interface Session {
  /**
   * Where the session started (`anchorfs mcp --path`); `workdir reset` returns here. Moves to the
   * first root when the client's roots (--roots) no longer hold it.
   */
  root: Location;
  cwd: Location;
  /** Line hashes handed out in views and edit results, for batch_edit's range check. */
  readonly shown: ShownLines;
}

export function createSession(root: Location): Session {
  return { root, cwd: root, shown: new ShownLines() };
}

/** The key under which a file's shown lines are remembered: backend plus absolute path. */
export function fileKey(location: Location): string {
  return `${location.backend.id}\u0000${location.path}`;
}
