// Tests that need what only some runners have (bash, sshd, /proc, POSIX signals and process
// groups, POSIX file modes, a pseudo-terminal, strace, Linux system calls through FFI): on Linux
// they run and fail loudly when a tool is missing (CI installs them); on macOS and Windows they
// are registered as ignored, with the reason in the test's name, so a runner's report says why
// they did not run. Everything else runs everywhere. This file registers no test: `needing()`
// returns the definition the test file passes to `Deno.test` (tests/arch/requires_test.ts).

import { cgroupBases, parseMountinfo, parseProcCgroup } from "../lib/core/jobs/cgroup_paths.ts";

export type Requirement =
  | "bash"
  | "sshd"
  | "proc"
  | "signals"
  | "posix-fs"
  | "pty"
  | "strace"
  | "linux-ffi"
  /** A cgroup v2 subtree this user may make job cgroups in (root, or delegated). */
  | "cgroup-v2"
  /** A cgroup v1 freezer hierarchy this user may make job cgroups in. */
  | "cgroup-v1"
  /** A pids controller for job cgroups (delegated to the v2 subtree, or a v1 hierarchy). */
  | "cgroup-pids";

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

type CgroupKind = "cgroup-v2" | "cgroup-v1" | "cgroup-pids";

function readText(path: string): string {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return "";
  }
}

/**
 * Why this Linux machine gives jobs no cgroup of that kind (it may not: an unprivileged CI user
 * without a delegated subtree), by making and removing one where a server would; undefined when
 * it can.
 */
export function cgroupMissing(kind: CgroupKind): string | undefined {
  const bases = cgroupBases(
    parseMountinfo(readText("/proc/self/mountinfo")),
    parseProcCgroup(readText("/proc/self/cgroup")),
  );
  if (kind === "cgroup-pids") {
    if (bases.v2 && readText(`${bases.v2}/cgroup.subtree_control`).split(/\s+/).includes("pids")) {
      return cgroupMissing("cgroup-v2");
    }
  }
  const base = kind === "cgroup-v2"
    ? bases.v2
    : kind === "cgroup-v1"
    ? bases.v1.freezer
    : bases.v1.pids;
  const what = {
    "cgroup-v2": "cgroup v2 subtree",
    "cgroup-v1": "cgroup v1 freezer hierarchy",
    "cgroup-pids": "pids controller (in the cgroup v2 subtree or a cgroup v1 hierarchy)",
  }[kind];
  const tail = "(jobs run on the process tree here; the containment choice is tested in " +
    "tests/core/jobs/containment_test.ts)";
  if (base === undefined) return `needs a ${what}, and none is mounted for this process ${tail}`;
  const probe = `${base}/anchorfs-test-probe-${Deno.pid}`;
  try {
    Deno.mkdirSync(probe);
  } catch (e) {
    return `needs a writable ${what}; ${base} refused one (${(e as Error).message}) ${tail}`;
  }
  try {
    const file =
      { "cgroup-v2": "cgroup.kill", "cgroup-v1": "freezer.state", "cgroup-pids": "pids.max" }[
        kind
      ];
    return exists(`${probe}/${file}`) ? undefined : `needs ${file} in its cgroups ${tail}`;
  } finally {
    Deno.removeSync(probe);
  }
}

const cgroupReasons = new Map<CgroupKind, string | undefined>();

/** Why tests needing `what` cannot run on `os`, or undefined when they can (or must, on Linux). */
export function missingReason(
  what: Requirement,
  os: typeof Deno.build.os = Deno.build.os,
  hasFile: (path: string) => boolean = exists,
  probeCgroup: (kind: CgroupKind) => string | undefined = cgroupMissing,
): string | undefined {
  if (what === "cgroup-v2" || what === "cgroup-v1" || what === "cgroup-pids") {
    if (os !== "linux") {
      return `cgroups are Linux's (this is ${os}; jobs run on the process tree there, and the ` +
        "containment choice is tested in tests/core/jobs/containment_test.ts)";
    }
    // The machine decides, not the OS: probed once per kind.
    if (probeCgroup !== cgroupMissing) return probeCgroup(what);
    if (!cgroupReasons.has(what)) cgroupReasons.set(what, probeCgroup(what));
    return cgroupReasons.get(what);
  }
  if (os === "linux") return undefined; // required here: a missing tool must fail
  switch (what) {
    case "sshd":
      return os !== "windows" && hasFile("/usr/sbin/sshd")
        ? undefined
        : "needs OpenSSH's sshd at /usr/sbin/sshd to start a throwaway server";
    case "bash":
      return os === "windows"
        ? "its commands are bash; Windows runs cmd.exe (the Windows shell policy and command " +
          "lines are tested in tests/core)"
        : undefined;
    case "proc":
      return `needs Linux /proc (this is ${os}; the ps and Win32_Process tables are ` +
        "tested in tests/core/jobs/process_table_text_test.ts)";
    case "signals":
      return os === "windows"
        ? "sends POSIX signals to processes and process groups, which Windows has not (its " +
          "taskkill plan is tested in tests/core/platform)"
        : undefined;
    case "pty":
      return `needs util-linux script(1) for a pseudo-terminal and /dev/full (this is ${os}; ` +
        "BSD script takes other arguments)";
    case "strace":
      return `holds the server's system calls with strace, which only Linux has (this is ${os})`;
    case "linux-ffi":
      return `calls Linux's libc through FFI (openat2, renameat2: the confinement beneath the ` +
        `allowed directories is Linux-only; this is ${os}, where the path check confines)`;
    case "posix-fs":
      return os === "windows"
        ? "uses POSIX file modes, symlinks or /-rooted paths (Windows path rules are tested in " +
          "tests/core/platform)"
        : undefined;
  }
}

type TestFn = (t: Deno.TestContext) => void | Promise<void>;

/**
 * The definition to pass to `Deno.test` for a test that needs `needs`: as given where they are
 * present, and ignored, with the reason in its name, where they are missing on this runner. It
 * registers nothing itself, so the test is reported at its own file and line:
 *
 *     const needs = needing("sshd", "bash");
 *     Deno.test(needs("a remote job ends", async () => {...}));
 *     Deno.test(needs({ name: "...", sanitizeOps: false, fn }));
 */
export function needing(
  ...needs: Requirement[]
): (nameOrDefinition: string | Deno.TestDefinition, fn?: TestFn) => Deno.TestDefinition {
  const reasons = needs.map((n) => missingReason(n)).filter((r): r is string => r !== undefined);
  return (nameOrDefinition, fn) => {
    const definition: Deno.TestDefinition = typeof nameOrDefinition === "string"
      ? { name: nameOrDefinition, fn: fn! }
      : nameOrDefinition;
    if (reasons.length === 0) return definition;
    return {
      ...definition,
      name: `${definition.name} [skipped: ${[...new Set(reasons)].join("; ")}]`,
      ignore: true,
    };
  };
}
