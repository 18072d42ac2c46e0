// job_text.ts (ops, pure text): a job's report — latest lines, the pipeline note, the exit said
// once, running jobs with no output yet.

import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import {
  formatJobList as jobListGuide,
  formatJobReport as jobReportGuide,
  formatTail as tailGuide,
  killText,
  latestLines,
  shortCommand,
  statusPhrase,
  stillRunningText as stillRunningGuide,
} from "../../../lib/ops/jobs/job_text.ts";
import { type Guide, renderGuide, toolCallSyntax } from "../../../lib/core/next_step.ts";
import { cliStepSyntax } from "../../../lib/cli/step_command.ts";
import type { JobOutput } from "../../../lib/ops/jobs/job_output.ts";
import {
  finishRecord,
  type JobExit,
  type JobRecord,
  loseRecord,
  startRecord,
} from "../../../lib/core/jobs/job_state.ts";

/** The texts as the model reads them: their steps written as tool calls. */
const asCall = (text: Guide) => renderGuide(text, toolCallSyntax);
const formatJobList = (...a: Parameters<typeof jobListGuide>) => asCall(jobListGuide(...a));
const formatJobReport = (...a: Parameters<typeof jobReportGuide>) => asCall(jobReportGuide(...a));
const formatTail = (...a: Parameters<typeof tailGuide>) => asCall(tailGuide(...a));
const stillRunningText = (...a: Parameters<typeof stillRunningGuide>) =>
  asCall(stillRunningGuide(...a));

Deno.test("latestLines drops a partial first line only when earlier output was cut off", () => {
  // "…19739\n19740\n" read from the middle: "9" is the end of "19739", not output of its own.
  assertEquals(
    latestLines({ text: "9\n19740\n19741\n", omittedBytes: 100, logBytes: 114 }),
    "19740\n19741",
  );
  // The whole log: every line is whole.
  assertEquals(latestLines({ text: "9\n10\n", omittedBytes: 0, logBytes: 5 }), "9\n10");
  // One long line still being written: keep what there is rather than nothing.
  assertEquals(
    latestLines({ text: "partial line", omittedBytes: 10, logBytes: 22 }),
    "partial line",
  );
  assertEquals(latestLines({ text: "abc\n", omittedBytes: 10, logBytes: 14 }), "abc");
  assertEquals(latestLines({ text: "", omittedBytes: 0, logBytes: 0 }), "");
});

Deno.test("a finished job's report carries the note when tail's exit 0 hides the status", () => {
  const record = {
    id: "1-1",
    command: "npm test 2>&1 | tail -5",
    cwd: "/x",
    status: "succeeded",
    exitCode: 0,
    signal: null,
    startedAt: 0,
    endedAt: 1000,
    droppedBytes: 0,
  } as unknown as JobRecord;
  const report = formatJobReport(outputOf(record, "ok", 0), 2000);
  assertStringIncludes(report, "Exit 0 is tail's");
  assert(!report.includes("containment:"), "a record from before containment was recorded");
  const held = formatJobReport(
    outputOf({ ...record, containment: "cgroup v1 freezer" } as JobRecord, "ok", 0),
    2000,
  );
  assertStringIncludes(held, "cwd: /x\ncontainment: cgroup v1 freezer\nstatus: succeeded");
});

Deno.test("a job's report states its exit once; the end's reason only when it says more", () => {
  const started = startRecord({
    id: "1-2",
    command: "make",
    cwd: "/x",
    pid: 10,
    serverPid: 1,
    startedAt: 0,
    logCapBytes: 1000,
  });
  const ended = (exit: Partial<JobExit>) =>
    finishRecord(started, {
      exitCode: 0,
      signal: null,
      cause: "exit",
      outputBytes: 2,
      droppedBytes: 0,
      endedAt: 1000,
      ...exit,
    }).record;
  const count = (text: string, part: string) => text.split(part).length - 1;
  const reportOf = (record: JobRecord) => formatJobReport(outputOf(record, "ok", 0), 2000);
  // Exit 0, exit 2, a kill: the status line says it all, once.
  const passed = reportOf(ended({}));
  assertStringIncludes(passed, "status: succeeded (exit 0)");
  assertEquals(count(passed, "exit"), 1, passed);
  assertEquals(passed.includes("ended:"), false, passed);
  assertEquals(reportOf(ended({ exitCode: 2 })).includes("ended:"), false);
  assertEquals(
    reportOf(ended({ exitCode: null, signal: "SIGTERM", cause: "killed" })).includes("ended:"),
    false,
  );
  // What the command left running, and a lost job's why, are news: they are shown.
  assertStringIncludes(
    reportOf(ended({ leftovers: "1 process (sleep)" })),
    "ended: exited with code 0; it left 1 process (sleep) running, which were terminated",
  );
  const lost = loseRecord(started, 1000, "its anchorfs server (pid 1) ended").record;
  assertStringIncludes(reportOf(lost), "ended: its anchorfs server (pid 1) ended");
});

Deno.test("a running job with no output yet says so; an ended one has no output", () => {
  const started = startRecord({
    id: "1-3",
    command: "make",
    cwd: "/x",
    pid: 10,
    serverPid: 1,
    startedAt: 0,
    logCapBytes: 1000,
  });
  assertStringIncludes(formatJobReport(outputOf(started, "", 0), 500), "---\n(no output yet)");
  const ended = finishRecord(started, {
    exitCode: 0,
    signal: null,
    cause: "exit",
    outputBytes: 0,
    droppedBytes: 0,
    endedAt: 1000,
  }).record;
  const report = formatJobReport(outputOf(ended, "", 0), 2000);
  assertStringIncludes(report, "---\n(no output)");
  assertEquals(report.includes("yet"), false, report);
});

Deno.test("job texts count a single byte as 1 byte", () => {
  const record = {
    id: "1-1",
    command: "make",
    cwd: "/x",
    status: "output_capped",
    exitCode: 0,
    signal: null,
    startedAt: 0,
    endedAt: 1000,
    droppedBytes: 1,
    logCapBytes: 1,
  } as unknown as JobRecord;
  assertStringIncludes(
    statusPhrase(record),
    "OUTPUT CAPPED: 1 byte of output dropped at the log cap",
  );
  const tail = formatTail(outputOf(record, "x", 1));
  assertStringIncludes(tail, "[1 earlier byte omitted; showing the last 1 byte;");
  assertStringIncludes(tail, "[the log passed its cap of 1 byte: 1 byte of output dropped]");
});

Deno.test("a log too big for view is offered as jobs read, never as a view that would refuse it", () => {
  const record = {
    id: "7-2",
    command: "yes | head -c 1G",
    cwd: "/x",
    status: "succeeded",
    exitCode: 0,
    signal: null,
    startedAt: 0,
    endedAt: 1000,
    droppedBytes: 0,
  } as unknown as JobRecord;
  const big: JobOutput = {
    ...outputOf(record, "y\n", 1_000_000_000),
    passingLines: 10,
    warnings: { count: 2, checkedBytes: 1000, uncheckedBytes: 0 },
  };
  const tail = formatTail(big);
  assertStringIncludes(tail, 'jobs {"action":"read","id":"7-2","bytes":1000000}');
  assertStringIncludes(tail, "1,000,000,002 bytes, is more than view reads whole");
  assertEquals(tail.includes('view {"path":"anchorfs://jobs/7-2"'), false, tail);
  // The warnings note names no call of one interface in prose: it points at the call above.
  assertStringIncludes(tail, "too big to search with view: read its end with the call above)]");
  const failed = formatTail({
    ...big,
    record: { ...record, status: "failed", exitCode: 1 },
    failures: {
      excerpts: [{ firstLine: 5, lastLine: 5, lines: ["not ok 1"] }],
      shown: 1,
      matched: 3,
      scannedBytes: 8_388_608,
      omittedLogBytes: 1_000_000_000,
    } as unknown as NonNullable<JobOutput["failures"]>,
  });
  assertStringIncludes(failed, "line numbers of the log");
  assertEquals(failed.includes('view {"path":"anchorfs://jobs/7-2"'), false, failed);
  // A log view reads whole keeps the view calls.
  const small = formatTail({ ...big, logBytes: 5000, omittedBytes: 4998, warnings: undefined });
  assertStringIncludes(small, 'view {"path":"anchorfs://jobs/7-2","start":-200}');
});

/** A JobOutput as readJobOutput returns it, for the text functions alone. */
function outputOf(record: JobRecord, text: string, omittedBytes: number): JobOutput {
  return {
    record,
    logBytes: omittedBytes + text.length,
    text,
    pictured: 0,
    omittedBytes,
    shownRawBytes: text.length,
    cutLine: false,
    stats: { ansi: 0, redraws: 0, collapsed: 0 },
  };
}

Deno.test("shortCommand() keeps commands whose quoted whitespace differs apart in job lists", () => {
  const a = shortCommand('grep "a  b" notes.txt');
  const b = shortCommand('grep "a b" notes.txt');
  assertEquals(a === b, false, `${a} / ${b}`);
  assertEquals(shortCommand("make   test"), "make test");
});

const proc = (pid: number, name: string) => ({
  pid,
  name,
  ppid: 1,
  pgrp: pid,
  sid: pid,
  startTicks: pid,
  state: "S",
});

Deno.test("killText says what a kill terminated, for a running and an ended job alike", () => {
  const base = {
    id: "4242-7",
    command: "make test",
    cwd: "/x",
    startedAt: 0,
    endedAt: 1000,
    droppedBytes: 0,
  };
  const killed = { ...base, status: "killed", signal: "SIGTERM" } as unknown as JobRecord;
  assertEquals(
    killText({
      record: killed,
      wasRunning: true,
      killed: [proc(1234, "bash"), proc(1240, "sleep")],
    }),
    "Killed job 4242-7 (`make test`): terminated 2 processes (bash 1234, sleep 1240); " +
      "KILLED on request (SIGTERM): cut off, not a success.",
  );
  assertStringIncludes(
    killText({ record: killed, wasRunning: true, killed: [] }),
    "no process of it was left to terminate",
  );
  // Where a cgroup held it, the kill says so: nothing of it can have been missed.
  assertStringIncludes(
    killText({
      record: { ...killed, containment: "cgroup v2 (writable subtree)" },
      wasRunning: true,
      killed: [proc(1234, "bash")],
    }),
    "terminated 1 process (bash 1234) (held by cgroup v2 (writable subtree)); KILLED",
  );
  const ended = { ...base, status: "succeeded", exitCode: 0 } as unknown as JobRecord;
  assertEquals(
    killText({ record: ended, wasRunning: false, killed: [] }),
    "Job 4242-7 had already ended: succeeded (exit 0). No process of it is left; nothing to kill.",
  );
  assertStringIncludes(
    killText({ record: ended, wasRunning: false, killed: [proc(99, "sleep")] }),
    "Terminated 1 process (sleep 99) it had left running.",
  );
});

Deno.test("stillRunningText says the wait did not stop the job, and how to go on", () => {
  const record = {
    id: "4242-8",
    command: "npm run build",
    cwd: "/x",
    status: "running",
    startedAt: 0,
    droppedBytes: 0,
  } as unknown as JobRecord;
  const text = stillRunningText(
    record,
    50_000,
    { text: "step 1\nstep 2\n", omittedBytes: 0, logBytes: 14 },
    90_000,
  );
  assertStringIncludes(text, "Job 4242-8 (`npm run build`) is still running after waiting 50.0s");
  assertStringIncludes(text, "(running for 1m30s). Waiting did not stop it.");
  assertStringIncludes(text, 'jobs {"action":"wait","id":"4242-8"}');
  assert(text.endsWith("--- latest output ---\nstep 1\nstep 2"), text);
  assert(
    stillRunningText(record, 1000, { text: "", omittedBytes: 0, logBytes: 0 }, 1000).endsWith(
      "(none yet)",
    ),
  );
});

Deno.test("a listed job whose host did not answer says why, when, and the call that retries", () => {
  const record = startRecord({
    id: "4242-7",
    command: "make deploy",
    cwd: "ssh://box/srv",
    pid: 10,
    serverPid: 1,
    startedAt: 0,
    logCapBytes: 1000,
  });
  const unreachable = {
    reason: "no answer within 3.0s",
    checkedAt: Date.UTC(2026, 10, 30, 9, 5, 7),
  };
  assertEquals(
    formatJobList([{ ...record, unreachable }, { ...record, id: "4242-6" }], 60_000),
    "4242-7  running        running 1m00s   make deploy  (in ssh://box/srv)  [host unreachable: " +
      "no answer within 3.0s (checked 09:05:07 UTC); its server is gone, so its state there is " +
      'unknown: retry with jobs {"action":"read","id":"4242-7"}]\n' +
      "4242-6  running        running 1m00s   make deploy  (in ssh://box/srv)",
  );
});

Deno.test("job texts carry the calls that read more as steps, written per syntax by the adapters", () => {
  const record = {
    id: "7-3",
    command: "make",
    cwd: "/x",
    status: "failed",
    exitCode: 2,
    signal: null,
    startedAt: 0,
    endedAt: 1000,
    droppedBytes: 0,
  } as unknown as JobRecord;
  const tail = tailGuide({ ...outputOf(record, "y\n", 5000), passingLines: undefined });
  assertEquals(tail.next, [
    { tool: "view", args: { path: "anchorfs://jobs/7-3", start: -200 } },
    { tool: "view", args: { path: "anchorfs://jobs/7-3", content: "TEXT" } },
  ]);
  assertStringIncludes(
    renderGuide(tail, cliStepSyntax),
    "more: `anchorfs view anchorfs://jobs/7-3 --start -200` (the last 200 lines of the log), " +
      "or search it: `anchorfs view anchorfs://jobs/7-3 --content TEXT`]",
  );
  const big = tailGuide(outputOf(record, "y\n", 1_000_000_000));
  assertEquals(big.next, [{ tool: "jobs", args: { action: "read", id: "7-3", bytes: 1000000 } }]);
  assertStringIncludes(renderGuide(big, cliStepSyntax), "`anchorfs jobs tail 7-3 --bytes 1000000`");
  const waiting = stillRunningGuide(
    { ...record, status: "running" },
    1000,
    { text: "", omittedBytes: 0, logBytes: 0 },
    1000,
  );
  assertStringIncludes(
    renderGuide(waiting, cliStepSyntax),
    "Continue with `anchorfs jobs wait 7-3` or carry on",
  );
});
