// One agent's view of the process-wide JobManager: it lists, reads, waits for and kills only the
// jobs this agent started, and hears only their events. Served over HTTP, several agents share
// one server; none of them may see (or end) another's jobs.

import { AnchorError, isAnchorError } from "../../core/errors.ts";
import { isTerminal } from "../../core/jobs/job_state.ts";
import { guide, step } from "../../core/next_step.ts";
import type { JobManager } from "./job_manager.ts";
import type { JobEvent, JobListener } from "./job_manager_options.ts";
import { DuplicateJobError, waitOrKill } from "./job_messages.ts";

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
  const scope = new AgentScope(jobs);
  const overrides: Partial<JobManager> = { ...scopedCalls(scope), ...scopedEvents(scope) };
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
    ids: () => [...scope.owned],
    async endAll() {
      const running = jobs.runningIds().filter((id) => scope.owned.has(id));
      await Promise.all(running.map(async (id) => {
        const record = await jobs.get(id);
        if (record && !isTerminal(record.status)) await jobs.kill(id).catch(() => {});
      }));
    },
  };
}

/** What one agent's view knows: the jobs it started, its listeners, events not yet claimed. */
class AgentScope {
  readonly owned = new Set<string>();
  readonly listeners = new Set<JobListener>();
  /**
   * The manager announces a job's start before start() returns its id: events of ids not yet
   * ours wait here briefly, and claim() delivers those of the job start() just got.
   */
  private unclaimed: { at: number; event: JobEvent }[] = [];
  private detach: (() => void) | undefined;

  constructor(readonly jobs: JobManager) {}

  deliver(event: JobEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch {
        // a broken listener must not stop the others
      }
    }
  }

  /** Hears the manager's events while this view has listeners. */
  attach(): void {
    this.detach ??= this.jobs.subscribe((event) => {
      if (this.owned.has(event.record.id)) return this.deliver(event);
      const now = Date.now();
      this.unclaimed = this.unclaimed.filter((u) => now - u.at < CLAIM_WINDOW_MS);
      this.unclaimed.push({ at: now, event });
    });
  }

  /** Stops hearing events once the last listener is gone. */
  release(): void {
    if (this.listeners.size > 0) return;
    this.detach?.();
    this.detach = undefined;
    this.unclaimed = [];
  }

  /** Makes a job this agent started its own, and delivers the events it missed. */
  claim(id: string): void {
    if (this.owned.has(id)) return;
    this.owned.add(id);
    const mine = this.unclaimed.filter((u) => u.event.record.id === id);
    this.unclaimed = this.unclaimed.filter((u) => u.event.record.id !== id);
    for (const { event } of mine) this.deliver(event);
  }

  /** Throws JOB_NOT_FOUND (naming this agent's jobs only) unless `id` is this agent's. */
  mustOwn(id: string): void {
    if (this.owned.has(id)) return;
    throw new AnchorError({
      code: "JOB_NOT_FOUND",
      message: `No job with id ${JSON.stringify(id)} in this session.`,
      hint: this.owned.size > 0
        ? guide`Your jobs: ${[...this.owned].slice(-5).reverse().join(", ")}. List them with ${
          step("jobs", { action: "list" })
        }.`
        : "This session has started no jobs yet: every shell call starts one, and its result " +
          "names the id.",
    });
  }

  /**
   * The duplicate guard and the job cap stay process-wide, but their refusals must not name
   * another agent's job (nor offer a wait or kill this agent cannot do).
   */
  othersNotNamed(e: AnchorError): AnchorError {
    const { jobs, owned } = this;
    if (
      e instanceof DuplicateJobError && !owned.has(e.record.id) && jobs.isRunningHere(e.record.id)
    ) {
      return othersDuplicate();
    }
    if (e.code === "TOO_MANY_JOBS") return tooManyJobs(jobs, [...owned]);
    return e;
  }
}

/** The calls that name a job: answered for this agent's jobs only. */
function scopedCalls(scope: AgentScope): Partial<JobManager> {
  const { jobs, owned } = scope;
  return {
    async get(id) {
      return owned.has(id) ? await jobs.get(id) : undefined;
    },
    async require(id) {
      scope.mustOwn(id);
      return await jobs.require(id);
    },
    async list(limit = 50) {
      const all = await jobs.list(Number.MAX_SAFE_INTEGER);
      return all.filter((record) => owned.has(record.id)).slice(0, limit);
    },
    async readTail(id, maxBytes) {
      scope.mustOwn(id);
      return await jobs.readTail(id, maxBytes);
    },
    async logInfo(id) {
      scope.mustOwn(id);
      return await jobs.logInfo(id);
    },
    async readLog(id, offset, length) {
      scope.mustOwn(id);
      return await jobs.readLog(id, offset, length);
    },
    async wait(id, timeoutMs, signal) {
      scope.mustOwn(id);
      return await jobs.wait(id, timeoutMs, signal);
    },
    async kill(id) {
      scope.mustOwn(id);
      return await jobs.kill(id);
    },
  };
}

/** Starting jobs, running ids and events: this agent's share of them. */
function scopedEvents(scope: AgentScope): Partial<JobManager> {
  const { jobs, owned } = scope;
  return {
    async start(host, cwd, command) {
      const record = await jobs.start(host, cwd, command).catch((e) => {
        throw isAnchorError(e) ? scope.othersNotNamed(e) : e;
      });
      scope.claim(record.id);
      return record;
    },
    isRunningHere(id) {
      return owned.has(id) && jobs.isRunningHere(id);
    },
    runningIds() {
      return jobs.runningIds().filter((id) => owned.has(id));
    },
    subscribe(listener: JobListener) {
      scope.attach();
      scope.listeners.add(listener);
      return () => {
        scope.listeners.delete(listener);
        scope.release();
      };
    },
  };
}

/**
 * DUPLICATE_JOB when another agent of this server runs the command: only that a duplicate runs,
 * never that agent's job, its command text, directory or timing (nor a wait this agent cannot do).
 */
function othersDuplicate(): AnchorError {
  return new AnchorError({
    code: "DUPLICATE_JOB",
    message: "This command is already running in this directory, started by another agent of " +
      "this server. Starting it again would run the same work twice (two runs fighting over the " +
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
