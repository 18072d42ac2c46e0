// Process-wide services shared by every session: file backends, and (later) jobs and the undo
// history. Ops receive these as arguments; lib/compose.ts builds them.

import type { Locations } from "./location.ts";

export interface Services {
  locations: Locations;
}
