// Jobs as MCP resources: list (newest first, bounded), the job URI template (core/jobs/job_uri.ts), read
// (status, exit, duration, output tail), legacy subscribe/unsubscribe, and the notifications:
// resources/updated when a job ends, list_changed when one starts or ends, and replays for
// subscriptions (legacy) and listens (2026-07-28) that arrive after the job already ended.

import {
  type JSONRPCMessage,
  type McpServer,
  ResourceNotFoundError,
  ResourceTemplate,
  SUBSCRIPTION_ID_META_KEY,
} from "@modelcontextprotocol/server";
import { isAnchorError } from "../core/errors.ts";
import { isTerminal } from "../core/jobs/job_state.ts";
import type { JobManager } from "../ops/jobs/job_manager.ts";
import {
  formatJobUri as jobUri,
  JOB_URI_TEMPLATE,
  jobIdOfResource as jobIdFromUri,
} from "../core/jobs/job_uri.ts";
import { formatJobReport, shortCommand } from "../ops/jobs/job_text.ts";
import { DEFAULT_PASSING_LINES, readJobOutput } from "../ops/jobs/job_output.ts";
import type { ObservedTransport } from "./stdio/stdio_transport.ts";
import type { ToolEnv } from "./tool_env.ts";
import { modelText } from "./render.ts";

const LIST_LIMIT = 50;

export function registerJobResources(mcp: McpServer, env: ToolEnv): void {
  const jobs = env.services.jobs;
  mcp.registerResource(
    "job",
    new ResourceTemplate(JOB_URI_TEMPLATE, {
      list: async () => ({
        resources: (await jobs.list(LIST_LIMIT)).map((record) => ({
          uri: jobUri(record.id),
          name: `${shortCommand(record.command, 100)} (job ${record.id})`,
          description: `${record.status} · in ${record.cwd}`,
          mimeType: "text/plain",
        })),
      }),
    }),
    {
      title: "Shell job",
      description: "A command started by the shell tool: status, exit code or signal, duration, " +
        "the cleaned end of its output and, if it failed, the failure-looking lines before it.",
      mimeType: "text/plain",
    },
    async (uri, variables) => {
      const id = String(variables.id ?? "");
      let read;
      try {
        read = await readJobOutput(jobs, id, env.options.tailBytes, {
          passingLines: env.options.passingLines ?? DEFAULT_PASSING_LINES,
        });
      } catch (e) {
        // An unknown job is the client's mistake (resource not found), not an internal error.
        if (isAnchorError(e) && e.code === "JOB_NOT_FOUND") {
          throw new ResourceNotFoundError(uri.href, `${e.message} ${e.hint ?? ""}`.trim());
        }
        throw e;
      }
      return {
        contents: [{
          uri: uri.href,
          mimeType: "text/plain",
          text: modelText(formatJobReport(read, Date.now(), env.options.tailBytes)),
        }],
      };
    },
  );

  // McpServer declares the capability but does not handle these: legacy clients subscribe here.
  // A job that already ended gets its notification replayed, after the response goes out.
  mcp.server.setRequestHandler("resources/subscribe", async (request) => {
    const uri = request.params.uri;
    const id = jobIdFromUri(uri);
    const record = id === undefined ? undefined : await jobs.get(id);
    if (record && isTerminal(record.status)) {
      setTimeout(() => {
        mcp.server.sendResourceUpdated({ uri }).catch(() => {});
      }, 0);
    }
    return {};
  });
  mcp.server.setRequestHandler("resources/unsubscribe", () => ({}));

  const unsubscribe = jobs.subscribe((event) => {
    if (!mcp.isConnected()) return;
    if (event.kind === "end") {
      mcp.server.sendResourceUpdated({ uri: jobUri(event.record.id) }).catch(() => {});
    }
    // A 2026-07-28 client cannot name a job before it exists: list changes tell it one did.
    mcp.sendResourceListChanged();
  });
  const previous = mcp.server.onclose;
  mcp.server.onclose = () => {
    unsubscribe();
    previous?.();
  };
}

/**
 * Replays `resources/updated` for jobs that had already ended when a `subscriptions/listen`
 * naming them was acknowledged: the SDK only routes notifications sent after the listen opened,
 * so without this a late listener would wait forever.
 */
export function installListenReplay(transport: ObservedTransport, jobs: JobManager): void {
  transport.onOutbound((message, send) => {
    if (!("method" in message) || message.method !== "notifications/subscriptions/acknowledged") {
      return;
    }
    const params = message.params as {
      notifications?: { resourceSubscriptions?: string[] };
      _meta?: Record<string, unknown>;
    } | undefined;
    const subscriptionId = params?._meta?.[SUBSCRIPTION_ID_META_KEY];
    const uris = params?.notifications?.resourceSubscriptions ?? [];
    if (subscriptionId === undefined) return;
    (async () => {
      for (const uri of uris) {
        const id = jobIdFromUri(uri);
        const record = id === undefined ? undefined : await jobs.get(id);
        if (!record || !isTerminal(record.status)) continue;
        const note = {
          jsonrpc: "2.0",
          method: "notifications/resources/updated",
          params: { uri, _meta: { [SUBSCRIPTION_ID_META_KEY]: subscriptionId } },
        } as JSONRPCMessage;
        await send(note).catch(() => {});
      }
    })().catch(() => {});
  });
}
