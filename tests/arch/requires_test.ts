// The suite runs on Linux, macOS and Windows runners: a test file that uses what only some have
// (/proc, sshd, bash commands through the shell tool, FIFOs, file modes, symlinks) must register
// those tests through tests/_requires.ts (`Deno.test(needs(...))` with `needs = needing(...)`), so
// elsewhere they are ignored with the reason named instead of failing. This scan keeps new test
// files honest; the helper's reasons are checked too, and that it registers nothing itself: a
// test registered inside _requires.ts is reported at _requires.ts's line, not its own (shown by
// running a failing test through the real `deno test`).

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { REPO_ROOT } from "../_harness.ts";
import { missingReason, type Requirement } from "../_requires.ts";

/** What a test file's text shows it needs. */
const USES: { requirement: Requirement; also?: Requirement[]; pattern: RegExp }[] = [
  {
    requirement: "proc",
    pattern: /\/proc\/(\$\{|self|\d)|readDirSync\("\/proc"\)|livePidsMatching/,
  },
  { requirement: "sshd", pattern: /createSshWorld\(|startSshd\(/ },
  { requirement: "bash", pattern: /startJobsServer\(|call\("shell"|\.start\(`|spawnShell\(/ },
  { requirement: "posix-fs", pattern: /mkfifo|Deno\.chmod\(|Deno\.symlink\(/ },
  { requirement: "pty", pattern: /startInTerminal\(|\/dev\/full/ },
  { requirement: "strace", pattern: /\bslow: \{|"strace"/ },
  { requirement: "linux-ffi", pattern: /runSwapRace\(|\.confine\(/ },
  // A test that asks for a cgroup rung or reads cgroup files needs a machine that gives one.
  {
    requirement: "cgroup-v2",
    also: ["cgroup-v1"],
    pattern: /ANCHORFS_CONTAINMENT|CONTAINMENT_VAR|\/sys\/fs\/cgroup|cgroupMembers\(/,
  },
];

/** Files that match a pattern without needing it, and why. */
const NOT_NEEDED: Record<string, string> = {
  "tests/core/shell/shell_policy_test.ts": "judges command lines that name /proc; reads nothing",
  "tests/core/jobs/cgroup_paths_test.ts": "parses cgroup file texts that name /sys/fs/cgroup",
  "tests/core/jobs/containment_test.ts": "decides over probe results given as data",
};

async function testFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(`${REPO_ROOT}/${dir}`)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) out.push(...await testFiles(path));
    else if (e.name.endsWith("_test.ts")) out.push(path);
  }
  return out.sort();
}

/** The requirements a file names in its needing(...) calls. */
function declared(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/\bneeding\(([^)]*)\)/g)) {
    for (const r of m[1]!.matchAll(/"([a-z0-9-]+)"/g)) names.add(r[1]!);
  }
  return names;
}

Deno.test("every test file that needs /proc, sshd, bash or POSIX files says so through needing", async () => {
  const missing: string[] = [];
  for (const path of await testFiles("tests")) {
    if (path === "tests/arch/requires_test.ts" || path in NOT_NEEDED) continue;
    const text = await Deno.readTextFile(`${REPO_ROOT}/${path}`);
    const named = declared(text);
    for (const { requirement, also, pattern } of USES) {
      const any = [requirement, ...(also ?? [])].some((r) => named.has(r));
      if (pattern.test(text) && !any) missing.push(`${path}: ${requirement}`);
    }
  }
  assertEquals(missing, []);
});

Deno.test("the scan sees a use it is shown (so the rule above can fail)", () => {
  const text = 'const s = await startJobsServer("v1"); Deno.readTextFileSync(`/proc/${pid}/stat`);';
  const found = USES.filter((u) => u.pattern.test(text)).map((u) => u.requirement);
  assertEquals(found, ["proc", "bash"]);
  assertEquals([...declared('const needs = needing("bash", "proc");')], ["bash", "proc"]);
});

Deno.test("missingReason: Linux runs everything; macOS lacks /proc, util-linux script, strace and Linux FFI; Windows lacks bash, signals, POSIX files", () => {
  const all: Requirement[] = [
    "bash",
    "sshd",
    "proc",
    "signals",
    "posix-fs",
    "pty",
    "strace",
    "linux-ffi",
  ];
  const skipped = (os: typeof Deno.build.os, sshd: boolean) =>
    all.filter((r) => missingReason(r, os, () => sshd) !== undefined);
  assertEquals(skipped("linux", false), []);
  assertEquals(skipped("darwin", true), ["proc", "pty", "strace", "linux-ffi"]);
  assertEquals(skipped("darwin", false), ["sshd", "proc", "pty", "strace", "linux-ffi"]);
  assertEquals(skipped("windows", true), all);
  assertStringIncludes(missingReason("proc", "darwin")!, "needs Linux /proc (this is darwin");
  assertStringIncludes(missingReason("bash", "windows")!, "Windows runs cmd.exe");
});

Deno.test("missingReason: cgroups are asked of the machine on Linux, and are Linux's only", () => {
  const refused = () => "needs a writable cgroup v2 subtree; /sys/fs/cgroup refused one";
  assertStringIncludes(missingReason("cgroup-v2", "darwin")!, "cgroups are Linux's");
  assertStringIncludes(missingReason("cgroup-v1", "windows")!, "cgroups are Linux's");
  // On Linux the probe's answer is the reason.
  assertStringIncludes(missingReason("cgroup-v2", "linux", () => true, refused)!, "refused one");
  assertEquals(missingReason("cgroup-v1", "linux", () => true, () => undefined), undefined);
});

/** `Deno.test` calls in a file's code (comments left out): where tests register. */
function registrations(text: string): number {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  return [...code.matchAll(/\bDeno\.test\s*\(/g)].length;
}

/**
 * Statements that build a test definition with a `needing(...)` builder and drop it: the test
 * never registers, silently. Builders are the file's `const X = needing(...)` and the object
 * members holding one (`register: X`); a call must sit inside `Deno.test(...)`.
 */
function unregistered(text: string): string[] {
  const builders = new Set([...text.matchAll(/const (\w+) = needing\(/g)].map((m) => m[1]!));
  for (const m of text.matchAll(/(\w+): (\w+)\b/g)) if (builders.has(m[2]!)) builders.add(m[1]!);
  const out: string[] = [];
  const lines = text.split("\n");
  lines.forEach((line, i) => {
    const call = /^\s*(?:[\w.]*\.)?(\w+)\(/.exec(line)?.[1];
    if (call === undefined || !(builders.has(call) || call === "needing")) return;
    // Inside Deno.test( on the line before (as deno fmt breaks a long call) is registered.
    const before = lines.slice(0, i).join("\n").trimEnd();
    if (!before.endsWith("Deno.test(")) out.push(`${i + 1}: ${line.trim()}`);
  });
  return out;
}

Deno.test("tests/_requires.ts registers no test: each test file passes needing()'s definition to Deno.test", async () => {
  const helper = await Deno.readTextFile(`${REPO_ROOT}/tests/_requires.ts`);
  assertEquals(registrations(helper), 0, "tests/_requires.ts calls Deno.test");
  const dropped: string[] = [];
  for (const path of await testFiles("tests")) {
    const text = await Deno.readTextFile(`${REPO_ROOT}/${path}`);
    dropped.push(...unregistered(text).map((l) => `${path}:${l}`));
  }
  assertEquals(dropped, []);
});

Deno.test("the registration scans see a Deno.test call and a dropped definition (so the rule above can fail)", () => {
  assertEquals(registrations("// Deno.test(x)\n/* Deno.test(y) */\nexport const a = 1;"), 0);
  assertEquals(registrations("  return Deno.test({ ...definition, ignore: true });"), 1);
  const text = 'const needs = needing("bash");\nconst MODES = [{ register: needs }];\n' +
    'Deno.test(needs("kept", () => {}));\nneeds("dropped", () => {});\n' +
    'Deno.test(\n  needs("kept too", () => {}),\n);\n' +
    'mode.register("dropped too", () => {});\nneeding("proc")("and this", () => {});\n';
  assertEquals(unregistered(text), [
    '4: needs("dropped", () => {});',
    '8: mode.register("dropped too", () => {});',
    '9: needing("proc")("and this", () => {});',
  ]);
});

Deno.test("a failing test declared through needing() is reported at its own file and line", async () => {
  const dir = await Deno.makeTempDir({ prefix: "anchorfs-requires-" });
  try {
    const file = `${dir}/own_place_test.ts`;
    const helper = new URL("../_requires.ts", import.meta.url).href;
    await Deno.writeTextFile(
      file,
      `import { needing } from "${helper}";\nconst needs = needing("posix-fs");\n\n` +
        'Deno.test(needs("fails on purpose", () => {\n  throw new Error("boom");\n}));\n',
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["test", "-A", "--no-check", "--no-lock", file],
      cwd: dir,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assertEquals(out.code, 1, text);
    // deno test names each failure with the place of its Deno.test call.
    assertStringIncludes(text, "fails on purpose => ./own_place_test.ts:4:6", text);
    assert(!text.includes("_requires.ts:"), text);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
