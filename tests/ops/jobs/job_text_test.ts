import { assertEquals, assertStringIncludes } from "../../_assert.ts";
import {
  formatJobReport,
  formatTail,
  latestLines,
  shortCommand,
  statusPhrase,
} from "../../../lib/ops/jobs/job_text.ts";
import type { JobOutput } from "../../../lib/ops/jobs/job_output.ts";
import type { JobRecord } from "../../../lib/core/jobs/job_state.ts";

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
