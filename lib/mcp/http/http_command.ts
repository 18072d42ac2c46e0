// The HTTP branch of `anchorfs mcp`: checks the flags that mean nothing over HTTP, loads the
// tokens, then serves until a signal. Loaded only when --http is given, so stdio start-up does
// not pay for it.

import { AnchorError } from "../../core/errors.ts";
import type { Location } from "../../ops/location.ts";
import type { Services } from "../../ops/services.ts";
import type { ServerOptions } from "../tool_env.ts";
import type { HttpOptions } from "./http_options.ts";
import { serveHttp } from "./http_server.ts";
import { loadTokens } from "./tokens.ts";

export async function serveHttpCommand(
  services: Services,
  root: Location,
  serverOptions: ServerOptions,
  http: HttpOptions,
  flags: { roots?: boolean | undefined },
): Promise<void> {
  if (flags.roots) {
    // One confinement serves the whole process; one client's roots must not confine the others.
    throw new AnchorError({
      code: "INVALID_FLAG",
      message: "--roots confines the file tools to one client's roots; over --http one server " +
        "serves many clients, so it is not available there.",
      hint: "Use --allow DIR (repeatable) to confine every agent of the HTTP server.",
    });
  }
  const { tokens, notice } = await loadTokens({
    tokenFile: http.tokenFile,
    envToken: Deno.env.get("ANCHORFS_TOKEN"),
    // The same state dir the job store uses (--state-dir, else the platform's place), so the
    // generated token sits beside the job records whatever platform this runs on.
    stateDir: services.jobs.store.stateDir,
  });
  await serveHttp({ services, root, serverOptions, http, tokens }, notice);
}
