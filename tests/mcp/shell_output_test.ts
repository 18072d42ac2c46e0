// What shell and jobs results show of a command's output, through the real server: a failing
// test run's early failures are in the first result, terminal noise is cleaned (the log keeps
// it raw), isError follows the outcome, and a job's log is viewed and searched like a file.

import { assert, assertEquals, assertNotIncludes, assertStringIncludes } from "../_assert.ts";
import { jobIdOf, pause, startJobsServer } from "./_jobs_helpers.ts";
import { needing } from "../_requires.ts";

const needs = needing("bash");

/** An `npm test`-like run: two failures early, then ~60 KB of passing cases and a summary. */
const FAILING_SUITE = `
echo '> mylib@1.4.2 test'
echo '> node --test'
echo 'TAP version 13'
for i in 1 2 3; do echo "ok $i - parses case $i"; done
echo 'not ok 4 - parses ISO dates'
echo '  ---'
echo "  error: 'Expected 2024-01-01, got 2023-12-31'"
echo '  location: test/date.test.js:14:7'
echo '  ...'
for i in $(seq 5 40); do echo "ok $i - formats case $i"; done
echo 'not ok 41 - rounds money'
echo '  AssertionError [ERR_ASSERTION]: 0.30000000000000004 == 0.3'
echo '      at test/money.test.js:9:10'
for i in $(seq 42 1000); do echo "ok $i - the long suite keeps passing, case number $i of it"; done
echo '1..1000'
echo '# tests 1000'
echo '# pass 998'
echo '# fail 2'
exit 1
`;

const uriOf = (text: string) => /job (\d+-\d+)/.exec(text)![1]!;
/** "ok N - case N\n" for N from `from` to `to`. */
const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `ok ${from + i} - case ${from + i}\n`).join("");

Deno.test(
  needs(
    "a failing test run shows its early failures, the summary and isError in the first result",
    async () => {
      await using s = await startJobsServer("v2", { window: 20 });
      const r = await s.server.call("shell", { command: FAILING_SUITE });
      assertEquals(r.isError, true, r.text.slice(0, 300));
      assert(r.text.split("\n")[0]!.includes("FAILED (exit 1)"), r.text.slice(0, 200));
      assertStringIncludes(r.text, "not ok 4 - parses ISO dates");
      assertStringIncludes(r.text, "Expected 2024-01-01, got 2023-12-31");
      assertStringIncludes(r.text, "not ok 41 - rounds money");
      assertStringIncludes(r.text, "AssertionError [ERR_ASSERTION]");
      assertStringIncludes(r.text, "# fail 2");
      assertStringIncludes(r.text, "[line 7-11]");
      const id = uriOf(r.text);
      assertStringIncludes(r.text, `view {"path":"anchorfs://jobs/${id}","start":-200}`);
      const bytes = new TextEncoder().encode(JSON.stringify(r.raw)).length;
      assert(bytes < 12_000, `the result is ${bytes} bytes on the wire`);

      // The same digest from jobs read and the job resource.
      const read = await s.server.call("jobs", { action: "read", id });
      assertEquals(read.isError, true);
      assertStringIncludes(read.text, "not ok 4 - parses ISO dates");
      const resource = await s.server.client.readResource({ uri: `anchorfs://jobs/${id}` });
      assertStringIncludes(resource.contents[0].text, "not ok 41 - rounds money");

      // The log reads and searches like a file, with line numbers of the raw log.
      const range = await s.server.call("view", {
        path: `anchorfs://jobs/${id}`,
        start: 7,
        end: 8,
      });
      assertEquals(range.isError, false, range.text);
      assertStringIncludes(range.text, "|not ok 4 - parses ISO dates");
      assert(range.text.startsWith("7:"), range.text);
      const found = await s.server.call("view", {
        path: `anchorfs://jobs/${id}`,
        content: "not ok",
      });
      assertEquals(found.isError, false, found.text);
      assertStringIncludes(found.text, "2 matching lines in 1 file");
      assertStringIncludes(found.text, "|not ok 41 - rounds money");
      const edit = await s.server.call("text_editor", {
        command: "str_replace",
        path: `anchorfs://jobs/${id}`,
        old_text: "not ok 4",
        new_text: "ok 4",
      });
      assertEquals(edit.isError, true);
      assertStringIncludes(edit.text, "job's output log");
      const unknown = await s.server.call("view", { path: "anchorfs://jobs/999999-1" });
      assertEquals(unknown.isError, true);
      assertStringIncludes(unknown.text, "No job with id");
    },
  ),
);

Deno.test(
  needs(
    "a passing run shows its last lines, the omitted count and the calls to read more",
    async () => {
      await using s = await startJobsServer("v1", { window: 20 });
      const r = await s.server.call("shell", {
        command: "for i in $(seq 1 3000); do echo \"ok $i - case $i\"; done; echo '# pass 3000'",
      });
      assertEquals(r.isError, false);
      assertStringIncludes(r.text, "succeeded (exit 0)");
      assert(
        r.text.endsWith("\nok 2992 - case 2992\n" + range(2993, 3000) + "# pass 3000"),
        r.text,
      );
      assert(!r.text.includes("ok 2991 - "), "ten lines, not a tail to scroll");
      assertStringIncludes(r.text, "earlier bytes omitted: a passing run shows its last 10 lines");
      assert(!r.text.includes("warning-looking"), r.text);
      const bytes = new TextEncoder().encode(r.text).length;
      assert(bytes < 600, `the text is ${bytes} bytes`);
      // The call the result names reads the end of the log.
      const call = /view (\{"path":"anchorfs:\/\/jobs\/[^}]*"start":-200\})/.exec(r.text)![1]!;
      const more = await s.server.call("view", JSON.parse(call));
      assertEquals(more.isError, false, more.text);
      assertStringIncludes(more.text, "|ok 2802 - case 2802\n");
      assertStringIncludes(more.text, "|# pass 3000");
      // Asking for bytes gets that much tail, passing or not.
      const id = uriOf(r.text);
      const read = await s.server.call("jobs", { action: "read", id, bytes: 2000 });
      assertStringIncludes(read.text, "ok 2960 - case 2960");
      assert(!read.text.includes("a passing run shows"), read.text);
    },
  ),
);

Deno.test(
  needs("a passing run's short tail says how many warning-looking lines it left out", async () => {
    await using s = await startJobsServer("v2", { window: 20 });
    const r = await s.server.call("shell", {
      command: "echo 'npm WARN deprecated glob@7.2.3'; echo 'src/a.ts:3:5 warning: unused x'; " +
        'for i in $(seq 1 100); do echo "ok $i - compiles module $i"; done; ' +
        "echo 'Build finished with 0 warnings'",
    });
    assertEquals(r.isError, false, r.text);
    assertStringIncludes(r.text, "Build finished with 0 warnings");
    const note = /\[2 warning-looking lines in the omitted part: view (\{.*\})\]/.exec(r.text);
    assert(note, r.text);
    const found = await s.server.call("view", JSON.parse(note[1]!));
    assertEquals(found.isError, false, found.text);
    assertStringIncludes(found.text, "2 matching lines");
    assertStringIncludes(found.text, "|npm WARN deprecated glob@7.2.3");
  }),
);

Deno.test(
  needs(
    "ANSI colours, progress redraws and repeated lines are cleaned; the log stays raw",
    async () => {
      await using s = await startJobsServer("v2", { window: 20 });
      const command = [
        "printf '\\033[32mPASS\\033[0m src/a.test.js\\n'",
        "for i in $(seq 1 100); do printf '\\rDownloading %3d%%' $i; done; printf '\\n'",
        "for i in $(seq 1 50); do echo 'waiting for server'; done",
        "echo done",
      ].join("; ");
      const r = await s.server.call("shell", { command });
      assertEquals(r.isError, false, r.text);
      assertStringIncludes(r.text, "PASS src/a.test.js");
      assertStringIncludes(r.text, "Downloading 100%");
      assert(!r.text.includes("Downloading  50%"), r.text);
      assert(!r.text.includes("\u001b") && !r.text.includes("␛"), r.text);
      assertStringIncludes(
        r.text,
        "waiting for server\n[previous line repeated 49 more times]\ndone",
      );
      assertStringIncludes(r.text, "2 ANSI escape sequences removed");
      const id = uriOf(r.text);
      const raw = await Deno.readTextFile(`${s.stateDir}/jobs/${id}/output.log`);
      assertStringIncludes(raw, "\u001b[32mPASS");
      assertStringIncludes(raw, "\rDownloading  50%");
      const view = await s.server.call("view", { path: `anchorfs://jobs/${id}`, start: 1, end: 2 });
      assertStringIncludes(view.text, "|PASS src/a.test.js");
      assertStringIncludes(view.text, "|Downloading 100%");
    },
  ),
);

Deno.test(
  needs("isError follows the outcome: exit 0, non-zero, signal, capped output, kill", async () => {
    await using s = await startJobsServer("v1", {
      window: 20,
      env: { ANCHORFS_JOB_LOG_CAP: "2000" },
    });
    const cases: [string, boolean, string][] = [
      ["echo fine", false, "succeeded (exit 0)"],
      ["echo broken >&2; exit 3", true, "FAILED (exit 3)"],
      ["kill -TERM $$", true, "FAILED (SIGTERM)"],
      ["head -c 5000 /dev/zero | tr '\\0' a; echo", true, "OUTPUT CAPPED"],
    ];
    for (const [command, isError, first] of cases) {
      const r = await s.server.call("shell", { command });
      assertEquals(r.isError, isError, `${command}: ${r.text.slice(0, 300)}`);
      assertStringIncludes(r.text.split("\n")[0]!, first, command);
    }
  }),
);

Deno.test(
  needs(
    "a killed job reads as an error; --tail-bytes and --passing-tail-lines set the tail size",
    async () => {
      await using s = await startJobsServer("v1", { window: 0.3 });
      const started = await s.server.call("shell", { command: `echo begun; ${pause(30)}` });
      assertEquals(started.isError, false, started.text);
      const id = jobIdOf(started.raw);
      await s.server.call("jobs", { action: "kill", id });
      const read = await s.server.call("jobs", { action: "read", id });
      assertEquals(read.isError, true, read.text);
      assertStringIncludes(read.text, "KILLED on request");
      const wait = await s.server.call("jobs", { action: "wait", id });
      assertEquals(wait.isError, true, wait.text);

      await using small = await startJobsServer("v2", {
        window: 20,
        args: ["--tail-bytes", "512", "--passing-tail-lines", "0"],
      });
      for (const command of ["seq 1 5000", "seq 1 5000; exit 1"]) {
        const r = await small.server.call("shell", { command });
        assertStringIncludes(r.text, "\n4950\n", "a passing run shows the byte tail with 0 lines");
        assertStringIncludes(r.text, "\n5000");
        assert(!r.text.includes("\n4800\n"), "more than 512 bytes of tail");
      }
      await using lines = await startJobsServer("v1", {
        window: 20,
        args: ["--passing-tail-lines", "3"],
      });
      const r = await lines.server.call("shell", {
        command: 'for i in $(seq 1 5000); do echo "ok $i"; done',
      });
      assertStringIncludes(r.text, "a passing run shows its last 3 lines;");
      assert(r.text.endsWith("]\nok 4998\nok 4999\nok 5000"), r.text);
    },
  ),
);

Deno.test(
  needs(
    "a job log over the file size limit names the call that reads it, not a shell path",
    async () => {
      await using s = await startJobsServer("v1", {
        window: 20,
        args: ["--max-file-bytes", "64K"],
      });
      const r = await s.server.call("shell", { command: "seq 1 30000" });
      const id = /job (\d+-\d+)/.exec(r.text)![1]!;
      const view = await s.server.call("view", { path: `anchorfs://jobs/${id}` });
      assertEquals(view.isError, true, view.text);
      assertStringIncludes(view.text, `jobs {"action":"read","id":"${id}","bytes":1000000}`);
      assert(!view.text.includes("sed -n") && !view.text.includes("grep -n"), view.text);
    },
  ),
);

Deno.test(
  needs(
    "the omitted byte count is the log's bytes, also for output that is not UTF-8",
    async () => {
      await using s = await startJobsServer("v1", { window: 20 });
      // 100,000 bytes of 0xFF: each decodes to U+FFFD, three bytes when counted as UTF-8 text.
      const r = await s.server.call("shell", {
        command: "head -c 100000 /dev/zero | tr '\\0' '\\377'; echo; echo tail-end",
      });
      assertStringIncludes(r.text, "tail-end");
      const size = (await Deno.stat(`${s.stateDir}/jobs/${uriOf(r.text)}/output.log`)).size;
      assertEquals(size, 100_010);
      const omitted = Number(
        /\[([\d,]+) earlier bytes omitted/.exec(r.text)![1]!.replaceAll(",", ""),
      );
      assert(omitted <= size && omitted >= 100_000 - 4096, `${omitted} of ${size}: ${r.text}`);
    },
  ),
);

Deno.test(
  needs(
    "a passing command whose output is the answer shows it whole when it fits the tail; a long passing test run stays short",
    async () => {
      await using s = await startJobsServer("v1", { window: 20 });
      // `git log … && git diff …`-like: 3 KB, no test or build run.
      const history = await s.server.call("shell", {
        command:
          'for i in $(seq 1 60); do echo "commit $i: a line of history that says what changed"; done',
      });
      assertEquals(history.isError, false, history.text);
      assertStringIncludes(history.text, "\ncommit 1: a line of history");
      assertStringIncludes(history.text, "\ncommit 60: a line of history");
      assertNotIncludes(history.text, "omitted");
      // A small test run is whole too: the rest would cost more than it saves.
      const small = await s.server.call("shell", {
        command: 'for i in $(seq 1 20); do echo "ok $i - case $i"; done; echo "# pass 20"',
      });
      assertStringIncludes(small.text, "\nok 1 - case 1\n");
      assertNotIncludes(small.text, "omitted");
      // A passing 400-test run: its last 10 lines.
      const long = await s.server.call("shell", {
        command: 'for i in $(seq 1 400); do echo "ok $i - case $i"; done; echo "# pass 400"',
      });
      assertStringIncludes(long.text, "a passing run shows its last 10 lines");
      assertNotIncludes(long.text, "ok 390 - case 390\n");
    },
  ),
);
