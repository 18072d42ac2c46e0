// How ssh:// paths reach a machine: the opener hands out (and reuses) the backend of a remote
// host. lib/backends/ssh/ssh_pool.ts implements it; Locations calls it.

import type { RemoteTarget } from "../../core/ssh/remote_url.ts";
import type { FileBackend } from "./file_backend.ts";

/** Opens (or reuses) a backend for a remote host. Implemented by lib/backends/ssh. */
export interface RemoteOpener {
  /** The backend for `target`, connecting on first use. */
  open(target: RemoteTarget): Promise<FileBackend>;
}
