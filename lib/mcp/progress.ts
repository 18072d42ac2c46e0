// Progress notifications for one tool call (shell's foreground heartbeats, jobs wait): sent only
// when the client passed a progressToken, numbered from 1, and settled before the result.

import type { ServerContext } from "@modelcontextprotocol/server";

/** What a long tool call uses to tell the client it is still working. */
export interface ProgressReporter {
  /** Sends one progress message; undefined when the client asked for none (no progressToken). */
  report: ((message: string) => void) | undefined;
  /** Call before returning the result: see below. */
  settle(): Promise<void>;
}

/** The progress reporter of the call `ctx` belongs to. */
export function progressReporter(ctx: ServerContext): ProgressReporter {
  const token = ctx.mcpReq._meta?.progressToken;
  let progress = 0;
  return {
    report: token === undefined ? undefined : (message) => {
      ctx.mcpReq.notify({
        method: "notifications/progress",
        params: { progressToken: token, progress: ++progress, message },
      }).catch(() => {});
    },
    // Clients may drop a progress notification that shares a chunk with the result: one
    // macrotask after the last one lets it go out on its own.
    settle: async () => {
      if (progress > 0) await new Promise((r) => setTimeout(r, 0));
    },
  };
}
