// The disk job store: the shared JobStore contract, plus what only a disk has. Job records keep
// full command lines and output (a token in a curl header included): every file is the user's
// alone (0600) in directories only the user can enter (0700). A local child writes into the
// log through its own O_APPEND fd while the cap cuts the file under it.

import { DiskJobStore } from "../../../lib/backends/local/disk_job_store.ts";
import { spawnShell } from "../../../lib/backends/local/process_runner.ts";
import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { tempDir } from "../../_harness.ts";
import { jobStoreContract } from "../_job_store_contract.ts";
import { needing } from "../../_requires.ts";

const needs = needing("posix-fs");
const needsBash = needing("bash");

Deno.test("the disk job store meets the JobStore contract", async (t) => {
  await using dir = await tempDir();
  await jobStoreContract(t, () => new DiskJobStore(`${dir.path}/state-${crypto.randomUUID()}`, 7));
});

const modeOf = async (path: string) => (await Deno.stat(path)).mode! & 0o777;

Deno.test(
  needs("job files are 0600 in 0700 directories, and a wider jobs dir is narrowed", async () => {
    await using dir = await tempDir();
    await Deno.mkdir(`${dir.path}/state/jobs`, { recursive: true });
    await Deno.chmod(`${dir.path}/state/jobs`, 0o755);
    const store = new DiskJobStore(`${dir.path}/state`, Deno.pid);
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
  }),
);

Deno.test(needsBash(
  "the cap cuts a log a child appends to through its own fd, and counts the drop",
  async () => {
    await using dir = await tempDir();
    const store = new DiskJobStore(dir.path, Deno.pid);
    assert(await store.reserve("1-1"));
    const path = store.localFiles("1-1").log;
    const cap = store.openLog("1-1", 1024 * 1024);
    // The child's side: an O_APPEND fd of its own, never told about the cuts.
    const file = await Deno.open(path, { append: true });
    const chunk = new TextEncoder().encode("z".repeat(99_999) + "\n");
    let written = 0;
    for (let i = 0; i < 30; i++) {
      await file.write(chunk);
      written += chunk.length;
      cap.enforce();
    }
    await file.write(new TextEncoder().encode("LAST\n"));
    written += 5;
    file.close();
    const { size } = cap.enforce();
    cap.close();
    assert(size <= 1024 * 1024);
    assert(cap.droppedBytes > 0);
    assertEquals(cap.outputBytes(size), written);
    const text = await Deno.readTextFile(path);
    assertStringIncludes(text, "[anchorfs: output passed the log cap");
    assert(text.endsWith("LAST\n"));
  },
));

Deno.test("records and logs are files other processes read: record.json and output.log", async () => {
  await using dir = await tempDir();
  const store = new DiskJobStore(dir.path, Deno.pid);
  assert(await store.reserve("3-1"));
  const log = store.openLog("3-1", 1024);
  log.append(new TextEncoder().encode("out\n"));
  log.close();
  assertEquals(await Deno.readTextFile(`${dir.path}/jobs/3-1/output.log`), "out\n");
  assertEquals(store.localFiles("3-1").log, `${dir.path}/jobs/3-1/output.log`);
  // Another process (anchorfs jobs) opens the same dir with a store of its own.
  const other = new DiskJobStore(dir.path, 99);
  assertEquals(await other.ids(), ["3-1"]);
  assertEquals((await other.readTail("3-1", 100)).text, "out\n");
});
