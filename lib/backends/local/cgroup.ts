// The cgroup side of job containment on this machine: probes which rung can be had (the order
// and the choice are lib/core/jobs/containment.ts's), makes each job's cgroup directories before
// its shell starts, lists and kills every process in them (v2 `cgroup.kill`; v1: freeze, kill,
// thaw, so nothing forks meanwhile), and removes them once empty. It never touches a directory
// that is not a job's cgroup under a cgroup mount (records can be edited by hand), and nothing
// here ever blocks a job: a failure falls back to the process tree and says why.

import {
  type CgroupBases,
  cgroupBases,
  cgroupDirectory,
  type CgroupMounts,
  instanceCgroupName,
  isJobCgroupPath,
  jobCgroupName,
  jobScopeUnit,
  parseMountinfo,
  parseProcCgroup,
  underCgroupMount,
} from "../../core/jobs/cgroup_paths.ts";
import { plural } from "../../core/plural.ts";
import {
  chooseContainment,
  type ContainmentChoice,
  type ContainmentKind,
  containmentRungs,
  describeContainment,
  type JobLimits,
  type LimitPlan,
  planLimits,
  type RungProbe,
} from "../../core/jobs/containment.ts";

/** The containment in force for new jobs, probed once. */
interface ContainmentState {
  choice: ContainmentChoice;
  /** Where job cgroups go (the v2 base or the v1 freezer base); undefined for the others. */
  where?: string;
  limits: LimitPlan;
  /** The start-up log line. */
  line: string;
}

/** How one job is contained: the cgroups its shell joins before the command runs. */
export interface JobCgroupSetup {
  kind: ContainmentKind;
  label: string;
  /** Cgroup directories made for it; the first decides membership. Empty: process tree. */
  dirs: string[];
  /** Words to run the job's shell under (the delegated rung: `systemd-run … --`). */
  prefix: string[];
  /** Why this job has less than the server's containment (a mkdir or limit that failed). */
  note?: string;
}

const MOUNTINFO = "/proc/self/mountinfo";

function readText(path: string): string | undefined {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return undefined;
  }
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Writes to a cgroup control file (never creates one). */
function writeControl(path: string, text: string): void {
  const file = Deno.openSync(path, { write: true });
  try {
    file.writeSync(new TextEncoder().encode(text));
  } finally {
    file.close();
  }
}

function reason(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Runs `sh -c script args…` and tells whether it exited 0 (the probe's self-move test). */
async function shSucceeds(script: string, args: string[]): Promise<boolean> {
  try {
    const out = await new Deno.Command("/bin/sh", {
      args: ["-c", script, "anchorfs-probe", ...args],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
    return out.success;
  } catch {
    return false;
  }
}

/** Makes a throwaway cgroup under `base`, moves a shell into it, removes it. */
async function probeDirectory(base: string, needs: string): Promise<RungProbe> {
  const dir = `${base}/anchorfs-probe-${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;
  try {
    Deno.mkdirSync(dir);
  } catch (e) {
    return { ok: false, why: `cannot create a cgroup under ${base} (${reason(e)})` };
  }
  try {
    if (!exists(`${dir}/${needs}`)) {
      return { ok: false, why: `its cgroups have no ${needs} (kernel too old for it)` };
    }
    if (!await shSucceeds('echo 0 > "$1"', [`${dir}/cgroup.procs`])) {
      return { ok: false, why: `a process cannot be moved into a cgroup under ${base}` };
    }
    return { ok: true };
  } finally {
    removeDirectory(dir);
  }
}

/** The systemd-run words that start a job's shell in a delegated scope of its own. */
function scopePrefix(instance: string, id: string, properties: string[]): string[] {
  const user = Deno.uid() === 0 ? [] : ["--user"];
  return [
    "systemd-run",
    ...user,
    "--scope",
    "--quiet",
    "--collect",
    `--unit=${jobScopeUnit(instance, id)}`,
    "-p",
    "Delegate=yes",
    ...properties.flatMap((p) => ["-p", p]),
    "--",
  ];
}

async function probeSystemd(): Promise<RungProbe> {
  if (!exists("/run/systemd/system")) {
    return { ok: false, why: "systemd is not running here (no /run/systemd/system)" };
  }
  const [program, ...args] = scopePrefix("probe", `${Deno.pid}-0`, []);
  try {
    const out = await new Deno.Command(program!, {
      args: [...args, "true"],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    if (out.success) return { ok: true };
    const said = new TextDecoder().decode(out.stderr).trim().split("\n")[0] ?? "";
    return { ok: false, why: `systemd-run --scope failed${said ? ` (${said})` : ""}` };
  } catch (e) {
    return { ok: false, why: `systemd-run could not be run (${reason(e)})` };
  }
}

/** Removes a cgroup directory and the empty sub-groups a job made inside it; quiet on failure. */
function removeDirectory(dir: string): void {
  try {
    for (const entry of Deno.readDirSync(dir)) {
      if (entry.isDirectory) removeDirectory(`${dir}/${entry.name}`);
    }
    Deno.removeSync(dir);
  } catch {
    // still populated (its processes are exiting), or gone: a later sweep retries
  }
}

/** Pids listed in a cgroup and its sub-groups. */
function cgroupPids(dir: string, into: Set<number>): void {
  const text = readText(`${dir}/cgroup.procs`);
  if (text === undefined) return;
  for (const line of text.split("\n")) if (line !== "") into.add(Number(line));
  try {
    for (const entry of Deno.readDirSync(dir)) {
      if (entry.isDirectory) cgroupPids(`${dir}/${entry.name}`, into);
    }
  } catch {
    // removed meanwhile
  }
}

export interface CgroupHostOptions {
  /** ANCHORFS_CONTAINMENT: `auto` (default) or a rung to start from. */
  requested?: string;
  limits?: JobLimits;
  /**
   * The texts of /proc/self/mountinfo and /proc/self/cgroup, when not this process's own (a
   * test of a machine shaped otherwise: a hierarchy missing, a mount that is no cgroup).
   */
  procFiles?: { mountinfo: string; cgroup: string };
}

/** One machine's cgroups, shared by every job manager of a process. */
export class CgroupHost {
  private mountsRead: CgroupMounts | undefined;
  private state: Promise<ContainmentState> | undefined;
  private bases: CgroupBases | undefined;

  constructor(private readonly options: CgroupHostOptions = {}) {}

  /** The cgroup mounts (read once). */
  private mounts(): CgroupMounts {
    const text = this.options.procFiles?.mountinfo ?? readText(MOUNTINFO) ?? "";
    return this.mountsRead ??= parseMountinfo(text);
  }

  /** Which containment new jobs get (probed on first use, then remembered). */
  containment(): Promise<ContainmentState> {
    return this.state ??= this.probe();
  }

  private async probe(): Promise<ContainmentState> {
    if (Deno.build.os !== "linux") {
      const choice = chooseContainment(this.options.requested, {});
      choice.notes.push(`there are no cgroups on ${Deno.build.os}`);
      const limits = planLimits(this.options.limits ?? {}, choice.kind, { v2: [], v1: [] });
      return { choice, limits, line: describeContainment(choice, undefined, limits) };
    }
    const own = parseProcCgroup(
      this.options.procFiles?.cgroup ?? readText("/proc/self/cgroup") ?? "",
    );
    const bases = this.bases = cgroupBases(this.mounts(), own);
    for (const base of [bases.v2, ...Object.values(bases.v1)]) if (base) sweepStale(base);
    const probes: Partial<Record<ContainmentKind, RungProbe>> = {};
    for (const kind of containmentRungs(this.options.requested)) {
      if (kind === "process-tree") break;
      probes[kind] = await this.probeRung(kind, bases);
      if (probes[kind]!.ok) break;
    }
    const choice = chooseContainment(this.options.requested, probes);
    const limits = planLimits(this.options.limits ?? {}, choice.kind, {
      v2: choice.kind === "cgroup-v2" && bases.v2
        ? (readText(`${bases.v2}/cgroup.subtree_control`) ?? "").trim().split(/\s+/)
        : [],
      v1: await this.usableV1(bases),
    });
    const where = choice.kind === "cgroup-v2"
      ? bases.v2
      : choice.kind === "cgroup-v1"
      ? bases.v1.freezer
      : undefined;
    return {
      choice,
      ...(where !== undefined && { where }),
      limits,
      line: describeContainment(choice, where, limits),
    };
  }

  private probeRung(kind: ContainmentKind, bases: CgroupBases): Promise<RungProbe> | RungProbe {
    switch (kind) {
      case "cgroup-v2-delegated":
        return probeSystemd();
      case "cgroup-v2":
        return bases.v2 === undefined
          ? { ok: false, why: bases.v2Missing ?? "no cgroup2 mount" }
          : probeDirectory(bases.v2, "cgroup.kill");
      case "cgroup-v1":
        return bases.v1.freezer === undefined
          ? { ok: false, why: "no cgroup v1 freezer hierarchy is mounted" }
          : probeDirectory(bases.v1.freezer, "freezer.state");
      default:
        return { ok: true };
    }
  }

  /** v1 pids/memory hierarchies where a job cgroup can be made (probed only when a limit asks). */
  private async usableV1(bases: CgroupBases): Promise<string[]> {
    const usable: string[] = [];
    const limits = this.options.limits ?? {};
    const asked = [
      limits.pids !== undefined && "pids",
      limits.memoryBytes !== undefined && "memory",
    ];
    for (const controller of ["pids", "memory"] as const) {
      const base = bases.v1[controller];
      if (!asked.includes(controller) || base === undefined) continue;
      if ((await probeDirectory(base, "cgroup.procs")).ok) usable.push(controller);
    }
    return usable;
  }

  /**
   * Makes the cgroups of job `id` of server `instance`: `anchorfs-<instance>/job-<id>` under each
   * hierarchy it uses, with its limits written, or the systemd-run words for the delegated rung.
   * A failure gives the process tree (or the cgroup without the limit) and says why.
   */
  async prepare(instance: string, id: string): Promise<JobCgroupSetup> {
    const state = await this.containment();
    const { kind, label } = state.choice;
    const tree = (note?: string): JobCgroupSetup => ({
      kind: "process-tree",
      label: "process tree",
      dirs: [],
      prefix: [],
      ...(note !== undefined && { note }),
    });
    if (kind === "process-tree") return tree();
    const placed = state.limits.placed;
    if (kind === "cgroup-v2-delegated") {
      const props = placed.map((l) => `${l.file}=${l.value}`);
      return { kind, label, dirs: [], prefix: scopePrefix(instance, id, props) };
    }
    const bases = this.bases!;
    const primary = kind === "cgroup-v2" ? bases.v2! : bases.v1.freezer!;
    const v2Controllers = placed.filter((l) => l.on === "v2").map((l) => l.controller);
    let dirs: string[];
    try {
      dirs = [this.makeJobDir(primary, instance, id, v2Controllers)];
    } catch (e) {
      return tree(`its cgroup could not be made under ${primary} (${reason(e)})`);
    }
    const notes: string[] = [];
    for (const limit of placed) {
      const base = limit.on === "v1" ? bases.v1[limit.controller]! : primary;
      try {
        const dir = limit.on === "v1" ? this.makeJobDir(base, instance, id, []) : dirs[0]!;
        if (!dirs.includes(dir)) dirs.push(dir);
        writeControl(`${dir}/${limit.file}`, limit.value);
      } catch (e) {
        notes.push(`${limit.file} ${limit.value} is not enforced for it (${reason(e)})`);
      }
    }
    return { kind, label, dirs, prefix: [], ...(notes.length > 0 && { note: notes.join("; ") }) };
  }

  private makeJobDir(base: string, instance: string, id: string, controllers: string[]): string {
    const parent = `${base}/${instanceCgroupName(instance)}`;
    const dir = `${parent}/${jobCgroupName(id)}`;
    for (let attempt = 0;; attempt++) {
      Deno.mkdirSync(parent, { recursive: true });
      if (controllers.length > 0) {
        writeControl(`${parent}/cgroup.subtree_control`, controllers.map((c) => `+${c}`).join(" "));
      }
      try {
        Deno.mkdirSync(dir);
        return dir;
      } catch (e) {
        // The server's directory was removed meanwhile (its last job's end, or a sweep): again.
        if (!(e instanceof Deno.errors.NotFound) || attempt > 0) throw e;
      }
    }
  }

  /** The directory of a v2 cgroup path (a systemd scope's, as its job reported it). */
  scopeDirectory(path: string): string | undefined {
    const mount = this.mounts().v2;
    if (mount === undefined || !path.endsWith(".scope")) return undefined;
    return cgroupDirectory(mount, path);
  }

  /** The record's cgroups this host may touch: the job's own, under a cgroup mount. */
  accepted(dirs: readonly string[] | undefined, cookie: string | undefined): string[] {
    if (!dirs || dirs.length === 0 || Deno.build.os !== "linux") return [];
    const mounts = this.mounts();
    return dirs.filter((d) => isJobCgroupPath(d, cookie) && underCgroupMount(d, mounts));
  }

  /** The pids in these cgroups and their sub-groups (validated by `accepted` first). */
  members(dirs: readonly string[]): number[] {
    const pids = new Set<number>();
    for (const dir of dirs) cgroupPids(dir, pids);
    return [...pids];
  }

  /**
   * SIGKILL to every process in them at once: v2 writes `cgroup.kill` (the kernel kills the
   * whole subtree, forks included); a v1 freezer group is frozen first, so none forks between
   * the listing and the kill, then thawed so the kills land.
   */
  kill(dirs: readonly string[]): void {
    const mounts = this.mounts();
    const v2 = mounts.v2?.point;
    const freezer = mounts.v1.freezer?.point;
    for (const dir of dirs) {
      try {
        if (v2 !== undefined && dir.startsWith(`${v2}/`) && exists(`${dir}/cgroup.kill`)) {
          writeControl(`${dir}/cgroup.kill`, "1");
        } else if (freezer !== undefined && dir.startsWith(`${freezer}/`)) {
          writeControl(`${dir}/freezer.state`, "FROZEN");
          try {
            this.signalAll([dir]);
          } finally {
            writeControl(`${dir}/freezer.state`, "THAWED");
          }
        } else this.signalAll([dir]);
      } catch {
        // gone meanwhile; the caller's next round looks again
      }
    }
  }

  private signalAll(dirs: readonly string[]): void {
    for (const pid of this.members(dirs)) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch {
        // exited meanwhile
      }
    }
  }

  /**
   * What the job's limits did, for its end reason: forks refused at pids.max, processes the
   * kernel killed at the memory limit. Undefined when no limit was reached.
   */
  limitEvents(dirs: readonly string[]): string | undefined {
    const said: string[] = [];
    for (const dir of dirs) {
      const forks = /^max (\d+)$/m.exec(readText(`${dir}/pids.events`) ?? "")?.[1];
      if (forks !== undefined && forks !== "0") {
        said.push(`${plural(Number(forks), "fork")} refused at its pids.max (--job-pids)`);
      }
      const oom = /^oom_kill (\d+)$/m.exec(
        readText(`${dir}/memory.events`) ?? readText(`${dir}/memory.oom_control`) ?? "",
      )?.[1];
      if (oom !== undefined && oom !== "0") {
        said.push(
          `${plural(Number(oom), "process", "processes")} killed by the kernel at its memory ` +
            "limit (--job-memory)",
        );
      }
    }
    return said.length > 0 ? said.join("; ") : undefined;
  }

  /**
   * Removes the job's (now empty) cgroups, then its server's directory when that is empty too.
   * A systemd scope is left to systemd (`--collect` removes it).
   */
  async remove(dirs: readonly string[]): Promise<void> {
    let left = dirs.filter((dir) => !dir.endsWith(".scope"));
    // Processes just killed leave their cgroup once they have finished exiting: a moment later.
    for (let attempt = 0; attempt <= REMOVE_RETRIES; attempt++) {
      left = left.filter((dir) => !removeJobDirectory(dir));
      if (left.length === 0) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Attempts after the first at removing a job's cgroup, 50 ms apart (1 s in all). */
const REMOVE_RETRIES = 20;

/** Removes a job's cgroup, then its server's directory once empty; true when it is gone. */
function removeJobDirectory(dir: string): boolean {
  removeDirectory(dir);
  const parent = dir.slice(0, dir.lastIndexOf("/"));
  if (/\/anchorfs-[0-9a-f]+$/.test(parent)) {
    try {
      Deno.removeSync(parent);
    } catch {
      // other jobs of that server still have theirs
    }
  }
  return !exists(dir);
}

function pidAlive(pid: number): boolean {
  return exists(`/proc/${pid}`);
}

// Exported for tests.
/**
 * Removes what dead anchorfs processes left under `base` (a server killed while it probed, or
 * before its jobs' cgroups could go): probe cgroups of pids that are gone, and job cgroups whose
 * server pid (the job id's first part) is gone. Only empty cgroups can be removed at all (the
 * kernel refuses a populated one), so a live job never loses its own.
 */
export function sweepStale(base: string): void {
  const names = (dir: string) => {
    try {
      return [...Deno.readDirSync(dir)].filter((e) => e.isDirectory).map((e) => e.name);
    } catch {
      return [];
    }
  };
  for (const name of names(base)) {
    const probe = /^anchorfs-probe-(\d+)-/.exec(name);
    if (probe) {
      if (!pidAlive(Number(probe[1]))) removeDirectory(`${base}/${name}`);
      continue;
    }
    if (!/^anchorfs-[0-9a-f]{16}$/.test(name)) continue;
    for (const job of names(`${base}/${name}`)) {
      const server = /^job-(\d+)-\d+$/.exec(job)?.[1];
      if (server !== undefined && !pidAlive(Number(server))) {
        removeJobDirectory(`${base}/${name}/${job}`);
      }
    }
  }
}
