// Builds the process-wide services from the concrete backends. Called by the composition root
// (main.ts → lib/mcp/command.ts or lib/cli) once per process; the only place that wires
// backends to ops.

import { LocalBackend } from "./backends/local/local_backend.ts";
import { Locations } from "./ops/location.ts";
import type { Services } from "./ops/services.ts";

export interface ServiceOptions {
  /** Seconds to wait for an SSH connection. */
  sshTimeoutSeconds?: number;
}

export function createServices(_options: ServiceOptions = {}): Services {
  const locations = new Locations(new LocalBackend());
  return { locations };
}

/** Releases what the services hold (connections, jobs). Safe to call twice. */
export async function closeServices(services: Services): Promise<void> {
  await services.locations.local.close();
}
