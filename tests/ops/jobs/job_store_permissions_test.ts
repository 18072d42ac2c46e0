// Job records keep full command lines and output (a token in a curl header included): every file
// is the user's alone (0600) in directories only the user can enter (0700).

import { JobStore } from "../../../lib/ops/jobs/job_store.ts";
import { spawnShell } from "../../../lib/backends/local/process_runner.ts";
import { assertEquals } from "../../_assert.ts";
import { tempDir } from "../../_harness.ts";

const modeOf = async (path: string) => (await Deno.stat(path)).mode! & 0o777;

Deno.test("job files are 0600 in 0700 directories, and a wider jobs dir is narrowed", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/state/jobs`, { recursive: true });
  await Deno.chmod(`${dir.path}/state/jobs`, 0o755);
  const store = new JobStore(`${dir.path}/state`);
  assertEquals(await store.reserve("1-1"), true);
  const paths = store.paths("1-1");
  await store.requestKill("1-1");
  // A command line too long for argv goes to a script file next to the log.
  const command = `: ${"x".repeat(70 * 1024)}; echo done`;
  await spawnShell({ command, cwd: dir.path, logPath: paths.log, scriptPath: paths.script });
  // The child is detached and unreferenced: wait for its output, not for its exit event.
  for (let i = 0; i < 400 && (await Deno.readTextFile(paths.log)) !== "done\n"; i++) {
    await new Promise((r) => setTimeout(r, 25));
  }
  assertEquals(await modeOf(store.root), 0o700);
  assertEquals(await modeOf(paths.dir), 0o700);
  for (const file of [paths.log, paths.killRequest, paths.script]) {
    assertEquals(await modeOf(file), 0o600, file);
  }
  assertEquals(await Deno.readTextFile(paths.log), "done\n");
});
