// The one check every file tool's path goes through (Locations.resolve): lib/ops/confinement.ts
// implements it for --allow / --roots. Interface only.

import type { RemoteTarget } from "../../core/ssh/remote_url.ts";
import type { FileBackend } from "./file_backend.ts";
import type { Location } from "../location.ts";

/**
 * Decides whether a resolved location may be used (lib/ops/confinement.ts); throws to refuse,
 * else returns the real path it approved (undefined when nothing is confined).
 * Locations.resolve calls it for every path a file tool names.
 */
export interface PathGuard {
  /** Throws to refuse `location`; else the real path it approved (undefined: not confined). */
  check(location: Location): Promise<string | undefined>;
  /**
   * The backend an approved location is used through: a confined view that opens its paths
   * beneath the allowed directories (FileBackend.confine), or `backend` itself.
   */
  backendFor?(backend: FileBackend): FileBackend;
  /**
   * Called before a remote path opens a connection to its host: throws when no allowed directory
   * is on that host, so a refused path makes no connection (no DNS lookup, no key offered).
   */
  beforeConnect?(target: RemoteTarget, url: string): Promise<void>;
}
