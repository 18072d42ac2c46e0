// Outlines of ssh:// files: the file is read over SFTP and parsed here, so outline, symbol and
// the repository map work on a remote file as on a local one, and the symbol's ids edit it.

import { assertEquals, assertStringIncludes } from "../../_assert.ts";
import { REPO_ROOT, startServer, tempDir, writeTree } from "../../_harness.ts";
import { createSshWorld } from "./_sshd.ts";
import { needing } from "../../_requires.ts";

const sshTest = needing("sshd", "posix-fs");
const SAMPLE = await Deno.readTextFile(`${REPO_ROOT}/tests/fixtures/outline/sample.go`);

Deno.test(sshTest("outline, symbol and the map of ssh:// files are parsed locally", async () => {
  const world = await createSshWorld({
    config: (port) => `Host box\n  HostName 127.0.0.1\n  Port ${port}\n`,
  });
  await using _world = world;
  await using remote = await tempDir("anchorfs-remote-");
  await using local = await tempDir("anchorfs-local-");
  await writeTree(remote.path, {
    "jobs/jobs.go": SAMPLE,
    ".gitignore": "vendor/\n",
    "vendor/x.go": "package x\n",
  });
  const env = world.env({ SSH_AUTH_SOCK: "" });
  await using server = await startServer({ client: "v2", args: ["--path", local.path], env });
  const url = `ssh://box${remote.path}/jobs/jobs.go`;

  const outline = await server.call("view", { path: url, outline: true });
  assertEquals(outline.isError, false, outline.text);
  assertStringIncludes(outline.text, `${url}: Go, 39 lines, 8 declarations.`);
  assertStringIncludes(outline.text, " method JobManager.Start 26-30 (spec JobSpec) string\n");

  const symbol = await server.call("view", { path: url, symbol: "JobManager.Start" });
  assertStringIncludes(
    symbol.text,
    `${url}: method JobManager.Start, lines 26-30 (its doc comment from line 25):`,
  );
  const first = /\n(26:[0-9a-f]{2})\|func \(m \*JobManager\) Start/.exec(symbol.text)?.[1];
  const edit = await server.call("batch_edit", {
    path: url,
    operations: [{
      op: "replace",
      start: first,
      content: "func (m *JobManager) Start(spec JobSpec) (id string) {",
    }],
  });
  assertEquals(edit.isError, false, edit.text);
  assertStringIncludes(
    await Deno.readTextFile(`${remote.path}/jobs/jobs.go`),
    "Start(spec JobSpec) (id string) {",
  );

  const map = await server.call("view", { path: `ssh://box${remote.path}`, outline: true });
  assertEquals(map.isError, false, map.text);
  assertStringIncludes(map.text, `\n${url} (39 lines): constant MaxJobs 7,`);
  assertEquals(map.text.includes("vendor"), false, map.text);
}));
