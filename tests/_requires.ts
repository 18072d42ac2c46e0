// Tests that need a tool this machine may lack (bash, sshd, /proc): on Linux they run and fail
// loudly when it is missing (CI installs them); on macOS and Windows they are registered as
// ignored, with the reason in the test's name, so a runner's report says why they did not run.

export type Requirement = "bash" | "sshd" | "proc";

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Why tests needing `what` cannot run here, or undefined when they can (or must, on Linux). */
export function missingReason(what: Requirement): string | undefined {
  if (Deno.build.os === "linux") return undefined; // required here: a missing tool must fail
  switch (what) {
    case "sshd":
      return exists("/usr/sbin/sshd")
        ? undefined
        : "needs OpenSSH's sshd at /usr/sbin/sshd to start a throwaway server";
    case "bash":
      return Deno.build.os === "windows"
        ? "its commands are bash; Windows runs cmd.exe (the Windows shell policy and command " +
          "lines are tested in tests/core)"
        : undefined;
    case "proc":
      return `needs Linux /proc (this is ${Deno.build.os}; the ps and Win32_Process tables are ` +
        "tested in tests/core/jobs/process_table_text_test.ts)";
  }
}

type TestFn = (t: Deno.TestContext) => void | Promise<void>;

/** `Deno.test(name, fn)` that is ignored, saying why, when a requirement is missing. */
export function testNeeding(...needs: Requirement[]): (name: string, fn: TestFn) => void {
  const reasons = needs.map(missingReason).filter((r): r is string => r !== undefined);
  return (name, fn) => {
    if (reasons.length === 0) Deno.test(name, fn);
    else Deno.test({ name: `${name} [skipped: ${reasons.join("; ")}]`, ignore: true, fn });
  };
}
