// Job endings pushed to the model: Claude Code does not wake the model on resources/updated, but
// it does on its experimental `claude/channel` notification. On connections older than
// 2026-07-28 a job's end is announced there, only for a job whose call had already returned
// "still running" (a shell call promoted to a job, a jobs wait that timed out) and whose end no
// call has reported since; and briefly: status, failure lines, the call that reads the report.
// resources/updated is sent for every job as before (job_resources.ts).

import type { McpServer } from "@modelcontextprotocol/server";
import { jobEndNote } from "../ops/jobs/job_text.ts";
import { endedBadly, readJobOutput } from "../ops/jobs/job_output.ts";
import type { Session } from "../ops/session.ts";
import type { ToolEnv } from "./tool_env.ts";
import { modelText } from "./render.ts";

export { CHANNEL_CAPABILITY } from "./server_info.ts";
export const CHANNEL_METHOD = "notifications/claude/channel";
/** The first revision without it: those clients get notifications over subscriptions/listen. */
const LISTEN_ERA = "2026-07-28";
/** Tail bytes read for the note's last line (the failure lines are read from the whole log). */
const NOTE_TAIL_BYTES = 512;

/** One session's jobs the model was told are still running, and the waits in progress. */
interface Followed {
  /** Ids in the order they were told "still running" (oldest first, bounded). */
  awaiting: Set<string>;
  waits: Map<string, number>;
  /**
   * Jobs that ended unannounced lately (newest last, bounded): a promotion answered just as the
   * job ended is announced when it is noted.
   */
  ended: Set<string>;
  /** Sends the note for a job (set by the connection's registerJobChannel). */
  announce?: (id: string) => void;
}

const FOLLOWED = new WeakMap<Session, Followed>();
/** Jobs remembered per session at most (the oldest is forgotten: it gets no notification). */
const MAX_AWAITED = 1000;
/** Unannounced ends remembered per session (a promotion racing its job's end). */
const MAX_ENDED = 64;

function followed(session: Session): Followed {
  let f = FOLLOWED.get(session);
  if (!f) FOLLOWED.set(session, f = { awaiting: new Set(), waits: new Map(), ended: new Set() });
  return f;
}

/** A call of this session answered that job `id` is still running: its end will be announced. */
export function noteStillRunning(session: Session, id: string): void {
  const f = followed(session);
  if (f.ended.delete(id)) {
    // It ended between the answer and this note: nothing else will announce it.
    f.announce?.(id);
    return;
  }
  f.awaiting.delete(id);
  f.awaiting.add(id);
  if (f.awaiting.size > MAX_AWAITED) f.awaiting.delete(f.awaiting.values().next().value!);
}

/** A call of this session reported job `id`'s end (or killed it): no notification repeats it. */
export function noteEndReported(session: Session, id: string): void {
  followed(session).awaiting.delete(id);
}

/** Runs a wait for job `id`: an end that happens meanwhile is the wait's answer, not a notice. */
export async function whileWaiting<T>(
  session: Session,
  id: string,
  body: () => Promise<T>,
): Promise<T> {
  const { waits } = followed(session);
  waits.set(id, (waits.get(id) ?? 0) + 1);
  try {
    return await body();
  } finally {
    const left = (waits.get(id) ?? 1) - 1;
    if (left > 0) waits.set(id, left);
    else waits.delete(id);
  }
}

export function registerJobChannel(mcp: McpServer, env: ToolEnv): void {
  const jobs = env.services.jobs;
  const f = followed(env.session);
  const announce = (id: string) => {
    (async () => {
      const record = await jobs.get(id);
      if (!record || !mcp.isConnected()) return;
      const output = await readJobOutput(jobs, id, NOTE_TAIL_BYTES, {
        failures: endedBadly(record),
        passingLines: 1,
      });
      await mcp.server.notification({
        method: CHANNEL_METHOD,
        params: { content: modelText(jobEndNote(output, Date.now())), meta: { job: id } },
      });
    })().catch(() => {});
  };
  const unsubscribe = jobs.subscribe((event) => {
    if (event.kind !== "end" || !mcp.isConnected()) return;
    const version = mcp.server.getNegotiatedProtocolVersion();
    if (version === undefined || version >= LISTEN_ERA) return;
    const id = event.record.id;
    if ((f.waits.get(id) ?? 0) > 0) return; // the wait answers with its end
    if (!f.awaiting.delete(id)) {
      f.ended.add(id);
      if (f.ended.size > MAX_ENDED) f.ended.delete(f.ended.values().next().value!);
      return;
    }
    announce(id);
  });
  f.announce = announce;
  const previous = mcp.server.onclose;
  mcp.server.onclose = () => {
    unsubscribe();
    if (f.announce === announce) delete f.announce;
    previous?.();
  };
}
