// Job endings pushed to the model: Claude Code does not wake the model on resources/updated, but
// it does on its experimental `claude/channel` notification. On connections older than
// 2026-07-28 a finished job is announced there too, with the text that reading its resource
// (anchorfs://jobs/ID) returns; resources/updated is sent as before (job_resources.ts).

import type { McpServer } from "@modelcontextprotocol/server";
import { formatJobReport } from "../ops/jobs/job_text.ts";
import { DEFAULT_PASSING_LINES, readJobOutput } from "../ops/jobs/job_output.ts";
import type { ToolEnv } from "./tool_env.ts";
import { modelText } from "./render.ts";

export { CHANNEL_CAPABILITY } from "./server_info.ts";
export const CHANNEL_METHOD = "notifications/claude/channel";
/** The first revision without it: those clients get notifications over subscriptions/listen. */
const LISTEN_ERA = "2026-07-28";

export function registerJobChannel(mcp: McpServer, env: ToolEnv): void {
  const jobs = env.services.jobs;
  const unsubscribe = jobs.subscribe((event) => {
    if (event.kind !== "end" || !mcp.isConnected()) return;
    const version = mcp.server.getNegotiatedProtocolVersion();
    if (version === undefined || version >= LISTEN_ERA) return;
    const id = event.record.id;
    (async () => {
      // The same text as reading the job resource (registerJobResources' read callback).
      const output = await readJobOutput(jobs, id, env.options.tailBytes, {
        passingLines: env.options.passingLines ?? DEFAULT_PASSING_LINES,
      });
      const content = modelText(formatJobReport(output, Date.now(), env.options.tailBytes));
      await mcp.server.notification({
        method: CHANNEL_METHOD,
        params: { content, meta: { job: id } },
      });
    })().catch(() => {});
  });
  const previous = mcp.server.onclose;
  mcp.server.onclose = () => {
    unsubscribe();
    previous?.();
  };
}
