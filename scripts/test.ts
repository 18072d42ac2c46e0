// The whole test suite, as the README's test command runs it (`deno task test`): checks the
// system tools the tests drive for real (OpenSSH's sshd and ssh-keygen, ripgrep, strace),
// installs them from Debian's packages when running as root on a machine without them, runs
// `deno test`, and ends with a plain "N passed, N failed" line for CI. On Linux a missing tool
// fails the run; on macOS and Windows the tests needing it are skipped with the reason
// (tests/_requires.ts).
//
// Usage: deno run -A scripts/test.ts [--fast | --release] [deno test arguments, e.g. tests/core]
//   (no group)  every test under tests/ (the README's command, `deno task test`)
//   --fast      the pure and in-process layers: tests/core, tests/ops, tests/arch, tests/docs
//               (`deno task test:fast`, the edit-test loop)
//   --release   the packaging tests: npm pack/install, bundle, compile (tests/scripts;
//               `deno task test:release`)

// deno-lint-ignore-file no-console

const REQUIRED: { command: string; paths: string[]; aptPackage: string }[] = [
  { command: "sshd", paths: ["/usr/sbin/sshd", "/usr/bin/sshd"], aptPackage: "openssh-server" },
  { command: "ssh-keygen", paths: ["/usr/bin/ssh-keygen"], aptPackage: "openssh-client" },
  { command: "ssh-agent", paths: ["/usr/bin/ssh-agent"], aptPackage: "openssh-client" },
  { command: "rg", paths: ["/usr/bin/rg", "/usr/local/bin/rg"], aptPackage: "ripgrep" },
  { command: "strace", paths: ["/usr/bin/strace"], aptPackage: "strace" },
];

const WINDOWS = Deno.build.os === "windows";

function onPath(command: string, extra: string[]): boolean {
  const names = WINDOWS ? [command, `${command}.exe`] : [command];
  const dirs = (Deno.env.get("PATH") ?? "").split(WINDOWS ? ";" : ":")
    .flatMap((d) => names.map((n) => `${d}/${n}`));
  return [...extra, ...dirs].some((p) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  });
}

async function run(cmd: string, args: string[]): Promise<boolean> {
  const { code } = await new Deno.Command(cmd, { args, stdout: "null", stderr: "inherit" }).output()
    .catch(() => ({ code: 127 }));
  return code === 0;
}

async function ensureTools(): Promise<boolean> {
  const missing = REQUIRED.filter((r) => !onPath(r.command, r.paths));
  if (missing.length === 0) return true;
  const packages = [...new Set(missing.map((m) => m.aptPackage))];
  const names = missing.map((m) => m.command).join(", ");
  if (Deno.build.os !== "linux") {
    // macOS and Windows runners: the tests that need these register as ignored, with the reason
    // in their names (tests/_requires.ts); the rest of the suite runs.
    console.log(
      `test: ${names} not found on this ${Deno.build.os} runner; tests needing them skip`,
    );
    return true;
  }
  const isRoot = Deno.uid?.() === 0;
  if (isRoot && onPath("apt-get", [])) {
    console.log(`test: installing ${packages.join(" ")} (for ${names}) with apt-get`);
    const env = { DEBIAN_FRONTEND: "noninteractive" };
    const update = await new Deno.Command("apt-get", {
      args: ["update", "-qq"],
      env,
      stdout: "null",
    }).output();
    const install = await new Deno.Command("apt-get", {
      args: ["install", "-y", "-qq", ...packages],
      env,
      stdout: "null",
    }).output();
    if (update.code === 0 && install.code === 0) return true;
  }
  console.error(
    `test: the suite drives real ${names}, which ${
      missing.length === 1 ? "is" : "are"
    } not installed.\n` +
      `Install ${packages.join(" ")} (e.g. \`sudo apt-get install -y ${
        packages.join(" ")
      }\`) and run again.`,
  );
  return false;
}

/** The named groups of test folders (`--fast`, `--release`); no group is all of tests/. */
export const GROUPS: Record<string, string[]> = {
  fast: ["tests/core/", "tests/ops/", "tests/arch/", "tests/docs/"],
  release: ["tests/scripts/"],
};

/** `deno test` paths for the runner's arguments: a group's folders, or the paths given, or tests/. */
export function testPaths(args: string[]): string[] {
  const group = args.find((a) => a === "--fast" || a === "--release")?.slice(2);
  const rest = args.filter((a) => a !== "--fast" && a !== "--release");
  const folders = group === undefined ? [] : GROUPS[group]!;
  return [...folders, ...rest].length > 0 ? [...folders, ...rest] : ["tests/"];
}

async function main(args: string[]): Promise<number> {
  if (!(await ensureTools())) {
    console.log("0 passed, 1 failed");
    return 1;
  }
  if (Deno.build.os === "linux") await run("mkdir", ["-p", "/run/sshd"]);
  const testArgs = [
    "test",
    "-A",
    "--parallel",
    "--frozen",
    ...testPaths(args),
  ];
  const child = new Deno.Command(Deno.execPath(), {
    args: testArgs,
    stdout: "piped",
    stderr: "inherit",
    // No update check (a DNS lookup of dl.deno.land): the suite reaches no host but loopback.
    env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
  }).spawn();
  let tail = "";
  const decoder = new TextDecoder();
  for await (const chunk of child.stdout) {
    await Deno.stdout.write(chunk);
    tail = (tail + decoder.decode(chunk, { stream: true })).slice(-4096);
  }
  const { code } = await child.status;
  const summary = [
    ...tail.matchAll(/^(?:ok|FAILED) \| (\d+) passed(?: \(\d+ steps?\))? \| (\d+) failed/gm),
  ].pop();
  if (!summary) {
    console.log(`test: deno test exited with ${code} without a summary`);
    console.log("0 passed, 1 failed");
    return code === 0 ? 1 : code;
  }
  console.log(`${summary[1]} passed, ${summary[2]} failed`);
  return code;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
