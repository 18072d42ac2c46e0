// How ssh:// paths reach a machine: the opener hands out (and reuses) the Host of a remote
// target. lib/backends/ssh/ssh_pool.ts implements it; Locations calls it.

import type { RemoteTarget } from "../../core/ssh/remote_url.ts";
import type { Host } from "./host.ts";

/** Opens (or reuses) the host behind a remote target. Implemented by lib/backends/ssh. */
export interface RemoteOpener {
  /** The host for `target` (its files, its jobs where it runs commands); connects on first use. */
  open(target: RemoteTarget): Promise<Host>;
}
