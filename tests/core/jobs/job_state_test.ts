// job_state.ts (pure): a job's terminal status from its exit, the record written once, lost
// records, and the CLI's exit code for a job.

import { assert, assertEquals } from "../../_assert.ts";
import {
  cliExitCodeFor,
  finishRecord,
  type JobExit,
  type JobRecord,
  loseRecord,
  startRecord,
  statusForExit,
} from "../../../lib/core/jobs/job_state.ts";

const started = (): JobRecord =>
  startRecord({
    id: "10-1",
    command: "make test",
    cwd: "/src",
    pid: 77,
    serverPid: 10,
    startedAt: 1000,
    logCapBytes: 1024,
  });

const exit = (over: Partial<JobExit> = {}): JobExit => ({
  exitCode: 0,
  signal: null,
  cause: "exit",
  outputBytes: 10,
  droppedBytes: 0,
  endedAt: 5000,
  ...over,
});

Deno.test("statusForExit: only a clean exit 0 with all output is a success", () => {
  const table: [Partial<JobExit>, string][] = [
    [{}, "succeeded"],
    [{ exitCode: 2 }, "failed"],
    [{ exitCode: null, signal: "SIGSEGV" }, "failed"],
    [{ cause: "killed", exitCode: null, signal: "SIGTERM" }, "killed"],
    [{ cause: "killed", exitCode: 0 }, "killed"],
    [{ cause: "shutdown", exitCode: 0 }, "interrupted"],
    [{ droppedBytes: 5 }, "output_capped"],
    [{ droppedBytes: 5, exitCode: 1 }, "failed"],
  ];
  for (const [over, status] of table) {
    assertEquals(statusForExit(exit(over)), status, JSON.stringify(over));
  }
});

Deno.test("finishRecord writes the terminal record exactly once", () => {
  const first = finishRecord(started(), exit({ exitCode: 3 }));
  assert(first.changed);
  assertEquals(first.record.status, "failed");
  assertEquals(first.record.exitCode, 3);
  assertEquals(first.record.endedAt, 5000);
  const second = finishRecord(first.record, exit({ cause: "shutdown" }));
  assertEquals(second.changed, false);
  assertEquals(second.record, first.record);
  assertEquals(loseRecord(first.record, 9000, "x").changed, false);
});

Deno.test("loseRecord marks a running record lost with the reason", () => {
  const lost = loseRecord(started(), 9000, "server died");
  assert(lost.changed);
  assertEquals(lost.record.status, "lost");
  assertEquals(lost.record.endReason, "server died");
});

Deno.test("cliExitCodeFor: job exit codes, 128+n for signals, 1 for cut-off jobs", () => {
  assertEquals(cliExitCodeFor(finishRecord(started(), exit()).record), 0);
  assertEquals(cliExitCodeFor(finishRecord(started(), exit({ exitCode: 7 })).record), 7);
  assertEquals(
    cliExitCodeFor(
      finishRecord(started(), exit({ exitCode: null, signal: "SIGKILL", cause: "killed" })).record,
    ),
    137,
  );
  assertEquals(cliExitCodeFor(finishRecord(started(), exit({ droppedBytes: 1 })).record), 1);
  assertEquals(cliExitCodeFor(loseRecord(started(), 1, "x").record), 1);
});
