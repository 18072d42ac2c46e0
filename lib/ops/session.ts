// Per-session state: the working directory and what the agent was shown. One Session per stdio
// MCP connection, or per agent on the HTTP server (agent.ts); process-wide services live in
// services.ts.

import type { LoggedEdit } from "../core/edit/edit_log.ts";
import { ShownLines } from "../core/edit/shown_lines.ts";
import { ViewMemory } from "../core/edit/view_memory.ts";
import type { Location } from "./location.ts";

/**
 * One agent's state across calls: where it is (`cwd`) and what it was shown, which the edit tools
 * check line ids against. Create one per MCP connection with {@linkcode createSession}.
 */
export interface Session {
  /**
   * Where the session started (`anchorfs mcp --path`); `workdir reset` returns here. Moves to the
   * first root when the client's roots (--roots) no longer hold it.
   */
  root: Location;
  /** The working directory relative paths resolve against (the workdir tool moves it). */
  cwd: Location;
  /**
   * Line hashes handed out in views and edit results, for batch_edit's range check.
   * @ignore
   */
  readonly shown: ShownLines;
  /**
   * This session's own edits per file (fileKey), newest last: ids survive them.
   * @ignore
   */
  readonly edits: Map<string, LoggedEdit[]>;
  /**
   * Files this session viewed whole, so a re-view sends only what changed.
   * @ignore
   */
  readonly views: ViewMemory;
}

/**
 * A fresh session starting (and with its working directory) at `root`. Results keep the calls
 * they suggest as steps; each adapter writes them in its own syntax.
 *
 * @example
 * ```ts
 * import { createSession, Locations, MemoryBackend } from "@anchorfs/anchorfs";
 *
 * const locations = new Locations(new MemoryBackend({ "/srv/app/README.md": "hi\n" }));
 * const session = createSession(locations.localAt("/srv/app"));
 * session.cwd.path; // "/srv/app": relative paths resolve against it
 * ```
 */
export function createSession(root: Location): Session {
  return {
    root,
    cwd: root,
    shown: new ShownLines(),
    edits: new Map(),
    views: new ViewMemory(),
  };
}

/**
 * The key under which a file's shown lines are remembered: backend plus absolute path (by the
 * backend's key: `C:\a.txt` and `c:\A.TXT` are one file on Windows).
 */
export function fileKey(location: Location): string {
  return `${location.backend.id}\u0000${location.backend.paths.key(location.path)}`;
}

const EDITS_PER_FILE = 20;
const FILES_LOGGED = 200;

/** Logs an edit this session wrote: `after` is the fingerprint of the bytes written. */
export function logOwnEdit(session: Session, key: string, edit: LoggedEdit): void {
  const log = session.edits.get(key) ?? [];
  session.edits.delete(key); // re-inserted last: the Map's order is least recently edited first
  log.push(edit);
  if (log.length > EDITS_PER_FILE) log.shift();
  session.edits.set(key, log);
  if (session.edits.size > FILES_LOGGED) {
    session.edits.delete(session.edits.keys().next().value!);
  }
}

/**
 * The session's own edits of a file, usable only while the file is exactly what the last of them
 * wrote (`current` is the fingerprint of its bytes now); else none: something else changed it.
 */
export function ownEditLog(session: Session, key: string, current: string): LoggedEdit[] {
  const log = session.edits.get(key) ?? [];
  return log.length > 0 && log[log.length - 1]!.after === current ? log : [];
}
