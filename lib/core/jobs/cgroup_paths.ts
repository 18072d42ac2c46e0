// Where a job's cgroups are: the cgroup mounts (/proc/self/mountinfo), this process's own cgroups
// (/proc/self/cgroup), the directories a server's jobs get under them, and the check that a path
// read back from a job record names that job's cgroup and nothing else. Pure: the backend
// (lib/backends/local/cgroup.ts) reads the files and does the I/O.

/** One cgroup file system mount: where it is mounted and which cgroup its root is. */
interface CgroupMount {
  /** Mount point, e.g. `/sys/fs/cgroup/unified`. */
  point: string;
  /** The cgroup at the mount point (`/` unless a subtree was bind-mounted). */
  root: string;
}

export interface CgroupMounts {
  /** The cgroup2 (unified) mount, if any. */
  v2?: CgroupMount;
  /** v1 hierarchies by controller (`freezer`, `pids`, `memory`, ...). */
  v1: Record<string, CgroupMount>;
}

/** This process's cgroups as /proc/self/cgroup lists them. */
interface OwnCgroups {
  /** Path in the unified hierarchy (the `0::` line). */
  v2?: string;
  /** Path per v1 controller. */
  v1: Record<string, string>;
}

/** mountinfo escapes space, tab, newline and backslash as octal (`\040`). */
function unescapeMount(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}

/**
 * The cgroup mounts in /proc/self/mountinfo (`id parent dev root point opts … - type source
 * superopts`). The first mount of each hierarchy wins; malformed lines are skipped.
 *
 * @example
 * ```ts
 * parseMountinfo("41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n").v2;
 * // { point: "/sys/fs/cgroup/unified", root: "/" }
 * ```
 */
export function parseMountinfo(text: string): CgroupMounts {
  const mounts: CgroupMounts = { v1: {} };
  for (const line of text.split("\n")) {
    const split = line.indexOf(" - ");
    if (split === -1) continue;
    const pre = line.slice(0, split).split(" ");
    const post = line.slice(split + 3).split(" ");
    const root = pre[3];
    const point = pre[4];
    if (root === undefined || point === undefined) continue;
    const mount = { point: unescapeMount(point), root: unescapeMount(root) };
    if (post[0] === "cgroup2") mounts.v2 ??= mount;
    else if (post[0] === "cgroup") {
      for (const option of (post[2] ?? "").split(",")) {
        if (option === "rw" || option === "ro" || option.includes("=")) continue;
        mounts.v1[option] ??= mount;
      }
    }
  }
  return mounts;
}

/**
 * /proc/self/cgroup: `0::/path` for the unified hierarchy, `N:ctrl1,ctrl2:/path` for v1 ones.
 *
 * @example
 * ```ts
 * parseProcCgroup("6:freezer:/\n0::/user.slice\n"); // { v2: "/user.slice", v1: { freezer: "/" } }
 * ```
 */
export function parseProcCgroup(text: string): OwnCgroups {
  const own: OwnCgroups = { v1: {} };
  for (const line of text.split("\n")) {
    const m = /^(\d+):([^:]*):(\/.*)$/.exec(line.trim());
    if (!m) continue;
    if (m[1] === "0" && m[2] === "") own.v2 = m[3]!;
    else for (const c of m[2]!.split(",")) if (c !== "") own.v1[c] = m[3]!;
  }
  return own;
}

/** The directory of cgroup `path` under `mount`; undefined when the mount does not show it. */
export function cgroupDirectory(mount: CgroupMount, path: string): string | undefined {
  const root = mount.root.replace(/\/+$/, "");
  if (root !== "" && path !== root && !path.startsWith(`${root}/`)) return undefined;
  const rest = path.slice(root.length).replace(/\/+$/, "");
  return `${mount.point.replace(/\/+$/, "")}${rest}`;
}

/** Where a server's job cgroups go: a directory of its own in each hierarchy it uses. */
export interface CgroupBases {
  /** This process's cgroup directory in the unified hierarchy. */
  v2?: string;
  /** Its directory per v1 controller (freezer, pids, memory), for those mounted. */
  v1: Partial<Record<"freezer" | "pids" | "memory", string>>;
  /** Why there is no v2 base (for the start-up log). */
  v2Missing?: string;
}

/**
 * The directories under which this server's job cgroups would go: its own cgroup in each
 * hierarchy (a server inside a job of another anchorfs nests its jobs inside that job's cgroup,
 * so the outer kill still takes them).
 */
export function cgroupBases(mounts: CgroupMounts, own: OwnCgroups): CgroupBases {
  const bases: CgroupBases = { v1: {} };
  if (!mounts.v2) bases.v2Missing = "no cgroup2 file system is mounted";
  else if (own.v2 === undefined) bases.v2Missing = "this process is in no cgroup v2 group";
  else {
    const dir = cgroupDirectory(mounts.v2, own.v2);
    if (dir === undefined) {
      bases.v2Missing = `its cgroup ${own.v2} is outside the cgroup2 mount at ${mounts.v2.point}`;
    } else bases.v2 = dir;
  }
  for (const controller of ["freezer", "pids", "memory"] as const) {
    const mount = mounts.v1[controller];
    const path = own.v1[controller];
    if (!mount || path === undefined) continue;
    const dir = cgroupDirectory(mount, path);
    if (dir !== undefined) bases.v1[controller] = dir;
  }
  return bases;
}

/** The directory name of one server instance's job cgroups. */
export function instanceCgroupName(instance: string): string {
  return `anchorfs-${instance}`;
}

/** The directory name of one job's cgroup inside its server's. */
export function jobCgroupName(id: string): string {
  return `job-${id}`;
}

/** The transient systemd unit of one job (the delegated-scope rung). */
export function jobScopeUnit(instance: string, id: string): string {
  return `anchorfs-${instance}-${id}.scope`;
}

/** `<instance>/<job id>` into its parts; undefined for anything else. */
export function splitJobCookie(cookie: string): { instance: string; id: string } | undefined {
  const m = /^([0-9a-f]{1,64})\/(\d+-\d+)$/.exec(cookie);
  return m ? { instance: m[1]!, id: m[2]! } : undefined;
}

/**
 * Whether `path` (read back from a job record, which anyone with the state dir can edit) names the
 * cgroup of the job with this cookie: absolute, no `.` or `..` steps, and ending in
 * `anchorfs-<instance>/job-<id>` or `anchorfs-<instance>-<id>.scope`. Its cgroup mount is
 * checked by the backend, which knows the mounts. Every process in such a cgroup is killed, so
 * a path that fails is never touched.
 *
 * @example
 * ```ts
 * isJobCgroupPath("/sys/fs/cgroup/anchorfs-ab12/job-7-1", "ab12/7-1"); // true
 * isJobCgroupPath("/sys/fs/cgroup/system.slice", "ab12/7-1"); // false
 * ```
 */
export function isJobCgroupPath(path: string, cookie: string | undefined): boolean {
  const job = cookie === undefined ? undefined : splitJobCookie(cookie);
  if (!job || !path.startsWith("/")) return false;
  const parts = path.split("/").slice(1);
  if (parts.some((p) => p === "" || p === "." || p === "..")) return false;
  const last = parts[parts.length - 1];
  const parent = parts[parts.length - 2];
  return (last === jobCgroupName(job.id) && parent === instanceCgroupName(job.instance)) ||
    last === jobScopeUnit(job.instance, job.id);
}

/** Whether `path` lies strictly inside one of the mount points (a cgroup, never a mount root). */
export function underCgroupMount(path: string, mounts: CgroupMounts): boolean {
  const points = [mounts.v2, ...Object.values(mounts.v1)].filter((m) => m !== undefined)
    .map((m) => m.point.replace(/\/+$/, ""));
  return points.some((p) => path.startsWith(`${p}/`));
}
