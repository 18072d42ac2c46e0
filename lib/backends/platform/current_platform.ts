// The PlatformDescription of the machine anchorfs runs on (lib/core/platform/platform.ts holds the
// decisions; this file only asks Deno which OS it is).

import { describePlatform, type PlatformDescription } from "../../core/platform/platform.ts";

/** This machine's platform. */
export function currentPlatform(): PlatformDescription {
  return describePlatform(Deno.build.os);
}
