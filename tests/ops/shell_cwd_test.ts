// Where a shell command runs (resolveShellCwd): the session's directory unless cwd names another,
// an existing directory only, and an ssh:// directory only on a host that can run jobs. Real
// in-memory backends on both sides; no process is started.

import { MemoryBackend } from "../../lib/backends/memory/memory_backend.ts";
import { AnchorError } from "../../lib/core/errors.ts";
import type { JobHost } from "../../lib/ops/ports/job_host.ts";
import { Locations } from "../../lib/ops/location.ts";
import { filesHost, type Host } from "../../lib/ops/ports/host.ts";
import { resolveShellCwd } from "../../lib/ops/shell.ts";
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../_assert.ts";

function world(remoteHost?: JobHost) {
  const local = new MemoryBackend({ "/work/app/src/main.ts": "x", "/work/app/notes.txt": "y" });
  const files = new MemoryBackend({ "/srv/app/README": "r" });
  const remote: Host = { ...filesHost(files, "bash"), ...(remoteHost && { jobs: remoteHost }) };
  const locations = new Locations(local, { open: () => Promise.resolve(remote) });
  return { locations, base: locations.localAt("/work/app") };
}

async function code(promise: Promise<unknown>): Promise<AnchorError> {
  const error = await assertRejects(() => promise);
  assert(error instanceof AnchorError, String(error));
  return error;
}

Deno.test("resolveShellCwd: no cwd, or an empty one, is the session's directory", async () => {
  const { locations, base } = world();
  assertEquals((await resolveShellCwd(locations, base, undefined)).dir, "/work/app");
  assertEquals((await resolveShellCwd(locations, base, "")).dir, "/work/app");
  assertEquals((await resolveShellCwd(locations, base, "  ")).dir, "/work/app");
});

Deno.test("resolveShellCwd: a relative or absolute directory resolves against the session", async () => {
  const { locations, base } = world();
  assertEquals((await resolveShellCwd(locations, base, "src")).dir, "/work/app/src");
  assertEquals((await resolveShellCwd(locations, base, "/work")).dir, "/work");
});

Deno.test("resolveShellCwd: a file or a missing directory is NOT_A_DIRECTORY naming the default", async () => {
  const { locations, base } = world();
  const file = await code(resolveShellCwd(locations, base, "notes.txt"));
  assertEquals(file.code, "NOT_A_DIRECTORY");
  assertStringIncludes(file.message, '"/work/app/notes.txt": it is not a directory');
  assertStringIncludes(file.hint ?? "", '("/work/app")');
  const missing = await code(resolveShellCwd(locations, base, "nope"));
  assertStringIncludes(missing.message, "no such directory");
});

Deno.test("resolveShellCwd: an ssh:// directory runs there only when the host can run jobs", async () => {
  const filesOnly = world();
  const refused = await code(
    resolveShellCwd(filesOnly.locations, filesOnly.base, "ssh://box/srv/app"),
  );
  assertEquals(refused.code, "SHELL_REMOTE_CWD");
  assertStringIncludes(refused.message, "that host only serves files");
  const host: JobHost = {
    description: "me@box:22",
    key: () => Promise.reject(new Error("not keyed in this test")),
    startJob: () => Promise.reject(new Error("not started in this test")),
    stopJob: () => Promise.reject(new Error("not stopped in this test")),
  };
  const withJobs = world(host);
  const place = await resolveShellCwd(withJobs.locations, withJobs.base, "ssh://box/srv/app");
  assertEquals(place.dir, "ssh://box/srv/app");
  assertEquals(place.location.path, "/srv/app");
  assertEquals(place.location.host.jobs, host);
});
