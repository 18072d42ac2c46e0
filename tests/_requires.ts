// Tests that need what only some runners have (bash, sshd, /proc, POSIX signals and process
// groups, POSIX file modes, a pseudo-terminal, strace, Linux system calls through FFI): on Linux they run and fail loudly when a tool is missing (CI installs
// them); on macOS and Windows they are registered as ignored, with the reason in the test's name,
// so a runner's report says why they did not run. Everything else runs everywhere.

export type Requirement =
  | "bash"
  | "sshd"
  | "proc"
  | "signals"
  | "posix-fs"
  | "pty"
  | "strace"
  | "linux-ffi";

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Why tests needing `what` cannot run on `os`, or undefined when they can (or must, on Linux). */
export function missingReason(
  what: Requirement,
  os: typeof Deno.build.os = Deno.build.os,
  hasFile: (path: string) => boolean = exists,
): string | undefined {
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
 * `Deno.test(name, fn)` (or `Deno.test({...})`) that is ignored, saying why, when a requirement
 * is missing on this runner.
 */
export function testNeeding(
  ...needs: Requirement[]
): (nameOrDefinition: string | Deno.TestDefinition, fn?: TestFn) => void {
  const reasons = needs.map((n) => missingReason(n)).filter((r): r is string => r !== undefined);
  return (nameOrDefinition, fn) => {
    const definition: Deno.TestDefinition = typeof nameOrDefinition === "string"
      ? { name: nameOrDefinition, fn: fn! }
      : nameOrDefinition;
    if (reasons.length === 0) return Deno.test(definition);
    Deno.test({
      ...definition,
      name: `${definition.name} [skipped: ${[...new Set(reasons)].join("; ")}]`,
      ignore: true,
    });
  };
}
