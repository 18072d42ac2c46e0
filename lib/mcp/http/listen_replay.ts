// Replay for late 2026-07-28 listeners over HTTP: the SDK only routes notifications published
// after a `subscriptions/listen` stream opened, so a listen naming a job that already ended would
// wait forever. This watches a listen response's SSE stream for the acknowledgement and appends a
// stamped `resources/updated` for each named job that has ended (as the stdio transport does).

import { isTerminal } from "../../core/jobs/job_state.ts";
import { jobIdOfResource } from "../../core/jobs/job_uri.ts";
import type { JobManager } from "../../ops/jobs/job_manager.ts";
import { SUBSCRIPTION_ID_META_KEY } from "@modelcontextprotocol/server";

const ACK = "notifications/subscriptions/acknowledged";

/** `response` unchanged unless it is an SSE stream; then the same stream plus the replays. */
export function withListenReplay(response: Response, jobs: JobManager): Response {
  const type = response.headers.get("content-type") ?? "";
  if (!response.body || !type.includes("text/event-stream")) return response;
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let pending = "";
  let acknowledged = false;
  const replay = new TransformStream<Uint8Array, Uint8Array>({
    async transform(chunk, controller) {
      controller.enqueue(chunk);
      if (acknowledged) return;
      pending += decoder.decode(chunk, { stream: true });
      const frames = pending.split("\n\n");
      pending = frames.pop() ?? "";
      for (const frame of frames) {
        const data = frame.split("\n").filter((l) => l.startsWith("data:"))
          .map((l) => l.slice(5).trimStart()).join("\n");
        if (!data.includes(ACK)) continue;
        acknowledged = true;
        pending = "";
        for (const note of await replaysFor(data, jobs)) {
          controller.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(note)}\n\n`));
        }
        return;
      }
    },
  });
  return new Response(response.body.pipeThrough(replay), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

async function replaysFor(data: string, jobs: JobManager): Promise<unknown[]> {
  let message;
  try {
    message = JSON.parse(data);
  } catch {
    return [];
  }
  if (message?.method !== ACK) return [];
  const subscriptionId = message.params?._meta?.[SUBSCRIPTION_ID_META_KEY];
  const uris: unknown = message.params?.notifications?.resourceSubscriptions ?? [];
  if (subscriptionId === undefined || !Array.isArray(uris)) return [];
  const notes = [];
  for (const uri of uris) {
    const id = typeof uri === "string" ? jobIdOfResource(uri) : undefined;
    if (id === undefined) continue;
    const record = await jobs.get(id).catch(() => undefined);
    if (!record || !isTerminal(record.status)) continue;
    notes.push({
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: { uri, _meta: { [SUBSCRIPTION_ID_META_KEY]: subscriptionId } },
    });
  }
  return notes;
}
