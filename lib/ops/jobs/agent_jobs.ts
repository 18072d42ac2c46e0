// One agent's view of the process-wide JobManager: it lists, reads, waits for and kills only the
// jobs this agent started, and hears only their events. Served over HTTP, several agents share
// one server; none of them may see (or end) another's jobs.

import { AnchorError, isAnchorError } from "../../core/errors.ts";
import { formatDuration, truncateText } from "../../core/jobs/progress_text.ts";
import { isTerminal } from "../../core/jobs/job_state.ts";
import type { JobRecord } from "../../core/jobs/job_state.ts";
import { guide, step } from "../../core/next_step.ts";
import {
  DuplicateJobError,
  type JobEvent,
  type JobListener,
  type JobManager,
  waitOrKill,
} from "./job_manager.ts";

/** How long events of a job not (yet) known as ours are kept for start() to claim. */
const CLAIM_WINDOW_MS = 10_000;

export interface AgentJobs {
  /** Drop-in for Services.jobs: scoped to this agent's jobs, process-wide for the rest. */
  readonly view: JobManager;
  /** The ids this agent started (newest last). */
  ids(): string[];
  /** Ends this agent's running jobs, as a stdio disconnect ends the server's. */
  endAll(): Promise<void>;
}

export function scopeJobs(jobs: JobManager): AgentJobs {
  const owned = new Set<string>();
  const listeners = new Set<JobListener>();
  // The manager announces a job's start before start() returns its id: events of ids not yet
  // ours wait here briefly, and start() delivers those of the job it just claimed.
  let unclaimed: { at: number; event: JobEvent }[] = [];
  const deliver = (event: JobEvent) => {
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch {
        // a broken listener must not stop the others
      }
    }
  };
  let detach: (() => void) | undefined;
  const attach = () => {
    detach ??= jobs.subscribe((event) => {
      if (owned.has(event.record.id)) return deliver(event);
      const now = Date.now();
      unclaimed = unclaimed.filter((u) => now - u.at < CLAIM_WINDOW_MS);
      unclaimed.push({ at: now, event });
    });
  };
  const notMine = (id: string) =>
    new AnchorError({
      code: "JOB_NOT_FOUND",
      message: `No job with id ${JSON.stringify(id)} in this session.`,
      hint: guide`${
        owned.size > 0
          ? `Your jobs: ${[...owned].slice(-5).reverse().join(", ")}.`
          : "This session has started no jobs yet."
      } List them with ${step("jobs", { action: "list" })}.`,
    });
  // The duplicate guard and the job cap stay process-wide, but their refusals must not name
  // another agent's job (nor offer a wait or kill this agent cannot do).
  const othersNotNamed = (e: AnchorError): AnchorError => {
    if (
      e instanceof DuplicateJobError && !owned.has(e.record.id) && jobs.isRunningHere(e.record.id)
    ) {
      return othersDuplicate(e.record);
    }
    if (e.code === "TOO_MANY_JOBS") return tooManyJobs(jobs, [...owned]);
    return e;
  };
  const overrides: Partial<JobManager> = {
    async start(command, cwd, remote) {
      const record = await jobs.start(command, cwd, remote).catch((e) => {
        throw isAnchorError(e) ? othersNotNamed(e) : e;
      });
      if (!owned.has(record.id)) {
        owned.add(record.id);
        const mine = unclaimed.filter((u) => u.event.record.id === record.id);
        unclaimed = unclaimed.filter((u) => u.event.record.id !== record.id);
        for (const { event } of mine) deliver(event);
      }
      return record;
    },
    async get(id) {
      return owned.has(id) ? await jobs.get(id) : undefined;
    },
    async require(id) {
      if (!owned.has(id)) throw notMine(id);
      return await jobs.require(id);
    },
    async list(limit = 50) {
      const all = await jobs.list(Number.MAX_SAFE_INTEGER);
      return all.filter((record) => owned.has(record.id)).slice(0, limit);
    },
    async readTail(id, maxBytes) {
      if (!owned.has(id)) throw notMine(id);
      return await jobs.readTail(id, maxBytes);
    },
    async logInfo(id) {
      if (!owned.has(id)) throw notMine(id);
      return await jobs.logInfo(id);
    },
    async readLog(id, offset, length) {
      if (!owned.has(id)) throw notMine(id);
      return await jobs.readLog(id, offset, length);
    },
    async wait(id, timeoutMs, signal) {
      if (!owned.has(id)) throw notMine(id);
      return await jobs.wait(id, timeoutMs, signal);
    },
    async kill(id) {
      if (!owned.has(id)) throw notMine(id);
      return await jobs.kill(id);
    },
    isRunningHere(id) {
      return owned.has(id) && jobs.isRunningHere(id);
    },
    runningIds() {
      return jobs.runningIds().filter((id) => owned.has(id));
    },
    subscribe(listener: JobListener) {
      attach();
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) {
          detach?.();
          detach = undefined;
          unclaimed = [];
        }
      };
    },
  };
  // Everything not scoped (options, store, recover, shutdown, ...) is the shared manager's own,
  // called on it (not on the view) so its private state stays in one place.
  const view = new Proxy(jobs, {
    get(target, prop, receiver) {
      if (Object.hasOwn(overrides, prop)) return overrides[prop as keyof JobManager];
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return {
    view,
    ids: () => [...owned],
    async endAll() {
      const running = jobs.runningIds().filter((id) => owned.has(id));
      await Promise.all(running.map(async (id) => {
        const record = await jobs.get(id);
        if (record && !isTerminal(record.status)) await jobs.kill(id).catch(() => {});
      }));
    },
  };
}

/** DUPLICATE_JOB when another agent of this server runs the command: no id, no wait offered. */
function othersDuplicate(record: JobRecord): AnchorError {
  return new AnchorError({
    code: "DUPLICATE_JOB",
    message:
      `${JSON.stringify(truncateText(record.command, 120))} is already running in ${
        JSON.stringify(record.cwd)
      }, started ${formatDuration(Date.now() - record.startedAt)} ago by another agent of this ` +
      "server. Starting it again would run the same work twice (two runs fighting over the " +
      "same files give wrong results).",
    hint: "Run it again once that run has ended (its output goes to the agent that started it). " +
      "Independent (different) commands may run concurrently.",
  });
}

/** TOO_MANY_JOBS naming only this agent's running jobs (the cap counts every agent's). */
function tooManyJobs(jobs: JobManager, owned: string[]): AnchorError {
  const running = jobs.runningIds();
  const mine = running.filter((id) => owned.includes(id));
  const others = running.length - mine.length;
  return new AnchorError({
    code: "TOO_MANY_JOBS",
    message:
      `${running.length} jobs are already running on this server and the limit is ${jobs.maxRunning}: ${
        mine.length > 0 ? `yours are ${mine.join(", ")}` : "none of them is yours"
      }${others > 0 ? `, ${others} belong to other agents` : ""}.`,
    hint: mine.length > 0
      ? waitOrKill(mine[0]!)
      : "Retry in a while: the limit counts the jobs of every agent of this server, and " +
        "theirs end without you being notified.",
    fault: "environment",
  });
}
