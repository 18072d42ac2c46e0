// judgeShellCommand: the policy lets a read, search, listing or edit through only when every file
// it names is one anchorfs cannot read itself, looked up where the command runs (local or a host).

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { MemoryBackend } from "../../lib/backends/memory/memory_backend.ts";
import type { FileBackend } from "../../lib/ops/ports/file_backend.ts";
import { Locations } from "../../lib/ops/location.ts";
import { filesHost } from "../../lib/ops/ports/host.ts";
import { judgeShellCommand, type ShellFiles } from "../../lib/ops/shell_files.ts";

const LIMIT = 100;

function world(): { files: ShellFiles; remote: ShellFiles } {
  const files = {
    "/app/big.log": "x".repeat(LIMIT + 1),
    "/app/sub/big.log": "x".repeat(LIMIT + 1),
    "/app/small.txt": "small\n",
  };
  const disk = new MemoryBackend(files);
  const host = new MemoryBackend({ ...files, "/app/there.log": "x".repeat(LIMIT + 1) });
  const remote: FileBackend = Object.assign(Object.create(host), { id: "ssh://box" });
  const remoteHost = filesHost(remote, "bash");
  const locations = new Locations(disk, { open: () => Promise.resolve(remoteHost) });
  return {
    files: { locations, cwd: locations.localAt("/app"), maxFileBytes: LIMIT },
    remote: {
      locations,
      cwd: {
        host: remoteHost,
        backend: remote,
        path: "/app",
        url: "ssh://box/app",
        remote: { host: "box" },
      },
      maxFileBytes: LIMIT,
    },
  };
}

const allowed = async (command: string, files: ShellFiles | undefined) =>
  (await judgeShellCommand(command, "bash", files)).allowed;

Deno.test("judgeShellCommand lets reads of files over the limit through, and only those", async () => {
  const { files } = world();
  for (
    const command of [
      "grep -n -m 100 -e TEXT big.log",
      "sed -n '1,200p' /app/big.log",
      "tail -n 50 big.log && head big.log",
      "cd sub && grep x big.log",
      "grep x < big.log",
      "sed -i 's/a/b/' big.log",
      "grep x big.log; grep y sub/big.log",
    ]
  ) assert(await allowed(command, files), command);
  for (
    const command of [
      "grep x small.txt",
      "grep x big.log small.txt", // one file view can read: view is the tool
      "grep x missing.log",
      "grep x *.log", // only known at run time
      "grep x big.log; cat small.txt",
      "ls .",
      "ssh box grep x /app/big.log", // another host's file: not looked up
    ]
  ) {
    const verdict = await judgeShellCommand(command, "bash", files);
    assertEquals(verdict.allowed, false, command);
  }
  assertEquals(await allowed("grep x big.log", undefined), false);
});

Deno.test("judgeShellCommand looks files up on the host the command runs on", async () => {
  const { files, remote } = world();
  assert(await allowed("grep -n x there.log", remote));
  assertEquals(await allowed("grep -n x there.log", files), false);
  assertEquals(await allowed("grep -n x small.txt", remote), false);
});

/** The refusal's message; fails when the command is allowed. */
async function refusal(command: string, files: ShellFiles, shell: "bash" | "cmd" = "bash") {
  const verdict = await judgeShellCommand(command, shell, files);
  if (verdict.allowed) throw new Error(`${command} was allowed`);
  return verdict.message;
}

Deno.test("a command run in another directory than the session's is judged and answered from there", async () => {
  const { files } = world();
  const base = files.cwd;
  const inSub: ShellFiles = { ...files, cwd: files.locations.localAt("/app/sub"), base };
  // The offered view call names the file the command meant, as the file tools resolve it from
  // the session's directory (/app), not /app/small.txt or a missing /app/notes.txt.
  assertStringIncludes(await refusal("cat notes.txt", inSub), 'view {"path": "sub/notes.txt"}');
  // A `cd` in the line goes on from there.
  assertStringIncludes(await refusal("cd deep && cat a.txt", inSub), '"path": "sub/deep/a.txt"');
  // The big file is looked up where the command runs: /app/sub/big.log, not /app/big.log.
  assert(await allowed("tail -n 50 big.log", inSub));
  assert(
    !(await allowed("tail -n 50 small.txt", { ...inSub, cwd: files.locations.localAt("/app") })),
  );
  // Outside the session's directory the path is absolute; in it, nothing is prefixed.
  const atEtc = { ...files, cwd: files.locations.localAt("/etc"), base };
  assertStringIncludes(await refusal("cat x.txt", atEtc), '"path": "/etc/x.txt"');
  assertStringIncludes(await refusal("cat x.txt", { ...files, base }), '"path": "x.txt"');
  // cmd reads the same way from the same start.
  assertStringIncludes(await refusal("type notes.txt", inSub, "cmd"), '"path": "sub/notes.txt"');
});
