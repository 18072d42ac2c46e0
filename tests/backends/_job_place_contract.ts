// The one contract every JobHost must meet (this machine through the process runner and the
// reaper, an ssh host through its connection), run as steps of one test against real processes:
// output reaches the log, the exit code the end, a kill takes the job's shell, what a command
// leaves running ends at its end, and the duplicate key tells places apart. The local test
// (tests/backends/local) and the ssh one (tests/backends/ssh, a real sshd) call it.

import { jobCookie } from "../../lib/core/jobs/job_processes.ts";
import { type JobRecord, startRecord } from "../../lib/core/jobs/job_state.ts";
import type { JobHost, JobHostDir, JobRun } from "../../lib/ops/ports/job_host.ts";
import type { JobStore } from "../../lib/ops/ports/job_store.ts";
import { assert, assertEquals, assertNotEquals } from "../_assert.ts";

/** A place to run jobs in, the store its logs go to, and two directories (as cwd is given). */
export interface PlaceWorld {
  place: JobHost;
  store: JobStore;
  /** The job's directory: its path there, and as shown (a path, or the ssh:// URL). */
  cwd: JobHostDir;
  /** Another directory, for the key. */
  otherCwd: JobHostDir;
}

let counter = 0;

/**
 * Awaits `promise` with a timer holding the event loop open: the local runner does not hold it
 * for a child (a server must be able to exit while jobs run), the manager's log watch does.
 */
async function held<T>(promise: Promise<T>): Promise<T> {
  const timer = setInterval(() => {}, 50);
  try {
    return await promise;
  } finally {
    clearInterval(timer);
  }
}

/** Starts `command` as a fresh job of this test process, with its record as the manager writes it. */
async function start(
  world: PlaceWorld,
  command: string,
): Promise<{ run: JobRun; record: JobRecord }> {
  const id = `${Deno.pid}-${++counter}`;
  assert(await world.store.reserve(id));
  const cookie = jobCookie("contract", id);
  const log = world.store.openLog(id, 1024 * 1024);
  const run = await world.place.startJob({
    command,
    dir: world.cwd,
    id,
    cookie,
    log,
    graceMs: 500,
  });
  run.exited.finally(() => log.close());
  const record = startRecord({
    id,
    command,
    cwd: world.cwd.url,
    cookie,
    pid: run.pid,
    ...(run.host !== undefined && { host: run.host }),
    ...(run.startTicks !== undefined && { pidStartTicks: run.startTicks }),
    ...(run.containment && run.containment.cgroups.length > 0 &&
      { cgroups: run.containment.cgroups }),
    serverPid: Deno.pid,
    startedAt: Date.now(),
    logCapBytes: 1024 * 1024,
  });
  await world.store.write(record);
  return { run, record };
}

export async function jobPlaceContract(t: Deno.TestContext, world: PlaceWorld): Promise<void> {
  await t.step("a command's output reaches the log and its exit code the end", async () => {
    const { run, record } = await start(world, "echo one; echo two >&2; exit 3");
    const end = await held(run.exited);
    assertEquals([end.exitCode, end.lost], [3, undefined]);
    await held(run.sweepEnd(record, end));
    run.output?.close();
    assertEquals((await world.store.readTail(record.id, 100)).text, "one\ntwo\n");
  });

  await t.step("a kill takes the job's shell, and the end says it was signalled", async () => {
    const { run, record } = await start(world, "echo up; sleep 300");
    // The shell has started the command once its first line is in the log.
    while ((await world.store.logSize(record.id)) === 0) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const killed = await held(run.kill(record));
    assert(killed.some((p) => p.pid === run.pid), JSON.stringify(killed));
    const end = await held(run.exited);
    assertNotEquals(end.exitCode, 0);
    await held(run.sweepEnd(record, end));
    run.output?.close();
  });

  await t.step("what a command leaves running is ended by its end's sweep", async () => {
    const { run, record } = await start(world, "sleep 300 & echo left");
    const end = await held(run.exited);
    assertEquals(end.exitCode, 0);
    const leftovers = await held(run.sweepEnd(record, end));
    run.output?.close();
    // The background child (`sleep`, or still the forked `bash` before its exec), not the shell.
    assert(leftovers.length > 0, "nothing was swept");
    assert(leftovers.every((p) => p.pid !== run.pid), JSON.stringify(leftovers));
  });

  await t.step("the duplicate key ignores spacing and tells directories apart", async () => {
    const key = (command: string, cwd: JobHostDir) => world.place.key(command, cwd);
    assertEquals(await key("make  test", world.cwd), await key("make test", world.cwd));
    assertNotEquals(await key("make test", world.cwd), await key("make test", world.otherCwd));
    assertNotEquals(await key("make test", world.cwd), await key("make tests", world.cwd));
  });
}
