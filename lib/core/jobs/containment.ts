// Which containment holds a server's jobs, decided from probed facts: a cgroup per job where the
// system allows one (no process can leave it, whatever it does to its environment, session or
// parentage), else the process tree (cookie, session, parentage). The order is fixed: cgroup v2
// through a delegated systemd scope, a writable cgroup v2 subtree, cgroup v1 freezer, process
// tree; a rung that cannot be had falls to the next and says why. Per-job limits (--job-memory,
// --job-pids) are placed on whichever hierarchy has the controller. Pure: lib/backends/local/
// cgroup.ts probes and does the I/O.

import { plural } from "../plural.ts";

export type ContainmentKind = "cgroup-v2-delegated" | "cgroup-v2" | "cgroup-v1" | "process-tree";

// Exported for tests.
/** The rungs in the order they are tried. */
export const CONTAINMENT_ORDER: readonly ContainmentKind[] = [
  "cgroup-v2-delegated",
  "cgroup-v2",
  "cgroup-v1",
  "process-tree",
];

/** How each containment reads in the start-up log, job reports and the docs. */
const CONTAINMENT_LABELS: Readonly<Record<ContainmentKind, string>> = {
  "cgroup-v2-delegated": "cgroup v2 (delegated systemd scope)",
  "cgroup-v2": "cgroup v2 (writable subtree)",
  "cgroup-v1": "cgroup v1 freezer",
  "process-tree": "process tree",
};

/** The environment variable that asks for one rung (or `auto`, the default). */
export const CONTAINMENT_VAR = "ANCHORFS_CONTAINMENT";

/** What probing one rung found: usable, or why not (a sentence fragment). */
export type RungProbe = { ok: true } | { ok: false; why: string };

/**
 * The rungs to probe, in order, for what was asked (ANCHORFS_CONTAINMENT): `auto` (or unset)
 * tries them all; a rung's name starts there (the ones before it are skipped). An unknown value
 * is read as `auto`; chooseContainment says so.
 */
export function containmentRungs(requested: string | undefined): ContainmentKind[] {
  const at = CONTAINMENT_ORDER.indexOf(requested?.trim() as ContainmentKind);
  return CONTAINMENT_ORDER.slice(Math.max(0, at));
}

export interface ContainmentChoice {
  kind: ContainmentKind;
  label: string;
  /** Why each rung before it was not used, and a note on an unknown request. */
  notes: string[];
}

/**
 * The first rung whose probe succeeded, among those `containmentRungs(requested)` lists; the
 * process tree when none did (it needs no probe). Rungs not probed are skipped silently (the
 * backend stops at the first that works).
 *
 * @example
 * ```ts
 * chooseContainment(undefined, {
 *   "cgroup-v2-delegated": { ok: false, why: "systemd is not running" },
 *   "cgroup-v2": { ok: true },
 * }).label; // "cgroup v2 (writable subtree)"
 * ```
 */
export function chooseContainment(
  requested: string | undefined,
  probes: Partial<Record<ContainmentKind, RungProbe>>,
): ContainmentChoice {
  const notes: string[] = [];
  const value = requested?.trim();
  if (value !== undefined && value !== "" && value !== "auto") {
    if (!CONTAINMENT_ORDER.includes(value as ContainmentKind)) {
      notes.push(
        `${CONTAINMENT_VAR}=${JSON.stringify(requested)} is not one of auto, ${
          CONTAINMENT_ORDER.join(", ")
        }; read as auto`,
      );
    }
  }
  for (const kind of containmentRungs(value)) {
    if (kind === "process-tree") break;
    const probe = probes[kind];
    if (probe === undefined) continue;
    if (probe.ok) return { kind, label: CONTAINMENT_LABELS[kind], notes };
    notes.push(`${CONTAINMENT_LABELS[kind]}: ${probe.why}`);
  }
  return { kind: "process-tree", label: CONTAINMENT_LABELS["process-tree"], notes };
}

/** Per-job limits asked for with --job-memory and --job-pids. */
export interface JobLimits {
  memoryBytes?: number;
  pids?: number;
}

/** What can carry a limit: controllers usable in the v2 subtree and v1 hierarchies. */
interface LimitSupport {
  /** Controllers a job's v2 cgroup can have (the base's cgroup.subtree_control). */
  v2: readonly string[];
  /** v1 hierarchies (`pids`, `memory`) where a job cgroup can be made. */
  v1: readonly string[];
}

/** One limit placed: the controller, the hierarchy that carries it, the file and the value. */
interface PlacedLimit {
  controller: "pids" | "memory";
  on: "v2" | "v1" | "systemd";
  /** File in the job's cgroup (v2: pids.max, memory.max; v1: pids.max, memory.limit_in_bytes),
   * or the systemd property (TasksMax, MemoryMax). */
  file: string;
  value: string;
}

export interface LimitPlan {
  placed: PlacedLimit[];
  /** Limits asked for that no hierarchy can carry, with why (they are not enforced). */
  unplaced: string[];
}

const LIMIT_FILES = {
  pids: { v2: "pids.max", v1: "pids.max", systemd: "TasksMax", flag: "--job-pids" },
  memory: {
    v2: "memory.max",
    v1: "memory.limit_in_bytes",
    systemd: "MemoryMax",
    flag: "--job-memory",
  },
} as const;

/**
 * Where each asked-for limit goes: a systemd scope carries both as properties; a v2 job cgroup
 * where its base delegates the controller; else the controller's v1 hierarchy (this also serves a
 * v2 job: it joins both); else it is not enforced, and the plan says why.
 */
export function planLimits(
  limits: JobLimits,
  kind: ContainmentKind,
  support: LimitSupport,
): LimitPlan {
  const plan: LimitPlan = { placed: [], unplaced: [] };
  const asked: ["pids" | "memory", number | undefined][] = [
    ["pids", limits.pids],
    ["memory", limits.memoryBytes],
  ];
  for (const [controller, amount] of asked) {
    if (amount === undefined) continue;
    const files = LIMIT_FILES[controller];
    const value = String(Math.floor(amount));
    if (kind === "process-tree") {
      plan.unplaced.push(`${files.flag} ${value} is not enforced: jobs have no cgroup here`);
    } else if (kind === "cgroup-v2-delegated") {
      plan.placed.push({ controller, on: "systemd", file: files.systemd, value });
    } else if (kind === "cgroup-v2" && support.v2.includes(controller)) {
      plan.placed.push({ controller, on: "v2", file: files.v2, value });
    } else if (support.v1.includes(controller)) {
      plan.placed.push({ controller, on: "v1", file: files.v1, value });
    } else {
      plan.unplaced.push(
        `${files.flag} ${value} is not enforced: no ${controller} controller can be used ` +
          `(not delegated to the cgroup v2 subtree, no writable cgroup v1 ${controller} hierarchy)`,
      );
    }
  }
  return plan;
}

/** `pids.max 200 (cgroup v1)`, `memory.max 512 MiB (cgroup v2)`, … for the log. */
function describePlaced(limit: PlacedLimit): string {
  const amount = limit.controller === "memory"
    ? plural(Number(limit.value), "byte")
    : plural(Number(limit.value), "process", "processes");
  const where = limit.on === "systemd" ? "systemd property" : `cgroup ${limit.on}`;
  return `${limit.file} ${amount} (${where})`;
}

/**
 * The start-up log line: `containment: cgroup v2 (writable subtree) under /sys/fs/cgroup/x`, then
 * why earlier rungs were not used and what the limits are (or why one is not enforced).
 */
export function describeContainment(
  choice: ContainmentChoice,
  where: string | undefined,
  limits?: LimitPlan,
): string {
  const parts = [`containment: ${choice.label}${where ? ` under ${where}` : ""}`];
  if (choice.kind === "process-tree") {
    parts.push(
      "(a job's processes are found by its cookie, session and parentage; one that clears its " +
        "environment, leaves the session and is reparented is not)",
    );
  }
  if (choice.notes.length > 0) parts.push(`(not used: ${choice.notes.join("; ")})`);
  if (limits && limits.placed.length > 0) {
    parts.push(`job limits: ${limits.placed.map(describePlaced).join(", ")}`);
  }
  if (limits && limits.unplaced.length > 0) parts.push(`(${limits.unplaced.join("; ")})`);
  return parts.join(" ");
}

/**
 * --job-pids: a whole number of processes, at least 2 (the job's shell and one command), or an
 * error sentence for the flag's message.
 */
export function parseJobPids(raw: string): number | string {
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < 2) {
    return `--job-pids takes a whole number of processes, at least 2, got ${JSON.stringify(raw)}`;
  }
  return value;
}
