// JobLogFiles (a job's log as the read-only file anchorfs://jobs/ID), against the real job
// manager, disk store and a local process: what it answers for a log too big to view whole, an
// empty log, and a re-view of a running job's log.

import { assertEquals, assertMatch, assertStringIncludes } from "../../_assert.ts";
import { tempDir } from "../../_harness.ts";
import { localProcessRunner } from "../../../lib/backends/local/process_runner.ts";
import { DiskJobStore } from "../../../lib/backends/local/disk_job_store.ts";
import { JobManager } from "../../../lib/ops/jobs/job_manager.ts";
import { JobLogFiles, VIEWABLE_LOG_BYTES } from "../../../lib/ops/jobs/job_log_files.ts";
import { isAnchorError } from "../../../lib/core/errors.ts";
import { needing } from "../../_requires.ts";
import { LocalBackend } from "../../../lib/backends/local/local_backend.ts";
import { Locations } from "../../../lib/ops/location.ts";
import { createSession } from "../../../lib/ops/session.ts";
import { viewText } from "../_view_text.ts";
import { viewResult } from "../../../lib/ops/view.ts";
import { renderGuide, step, toolCallSyntax } from "../../../lib/core/next_step.ts";
import { cliStepSyntax } from "../../../lib/cli/step_command.ts";
import { createReadLimits, DEFAULT_MAX_FILE_BYTES } from "../../../lib/ops/read_limits.ts";
import { here } from "../../_here.ts";

const needs = needing("bash");

Deno.test(
  needs(
    "LOG_TOO_LARGE suggests a grep that runs as given, in a state dir with a space and a quote",
    async () => {
      await using state = await tempDir();
      await using dir = await tempDir();
      const stateDir = `${state.path}/agent's state dir`;
      const jobs = new JobManager(localProcessRunner, {
        store: new DiskJobStore(stateDir, Deno.pid),
        pid: Deno.pid,
        killGraceMs: 500,
      });
      try {
        const job = await jobs.start(here(jobs), dir.path, "echo 'test 3: FAIL'");
        assertEquals((await jobs.wait(job.id, 60_000)).record.status, "succeeded");
        // Past what view reads whole, without writing it: the rest of the log is a hole of NULs.
        const log = jobs.store.localFiles(job.id)!.log;
        await Deno.truncate(log, VIEWABLE_LOG_BYTES + 1);
        const error = await new JobLogFiles(jobs).readFile(`anchorfs://jobs/${job.id}`).then(
          () => undefined,
          (e) => e,
        );
        if (!isAnchorError(error)) throw error;
        assertEquals(error.code, "LOG_TOO_LARGE");
        const shell = error.next.find((s) => s.tool === "shell");
        if (shell?.tool !== "shell") throw new Error(`no shell step in ${error.hint}`);
        // The suggested command opens the log and finds the line (exit 0; grep calls the file binary
        // for its NULs); an unquoted path would be three words, or an open quote.
        const out = await new Deno.Command("bash", {
          args: ["-c", shell.args.command],
          cwd: dir.path,
          stdout: "piped",
          stderr: "piped",
        }).output();
        const stderr = new TextDecoder().decode(out.stderr);
        assertEquals(out.code, 0, `${shell.args.command}: ${stderr}`);
        assertStringIncludes(shell.args.command, `'${stateDir.replaceAll("'", `'\\''`)}/`);
      } finally {
        await jobs.shutdown();
      }
    },
  ),
);

Deno.test(
  needs(
    "a search of a job log over the file limit suggests jobs read, not a grep of its URI",
    async () => {
      await using state = await tempDir();
      await using dir = await tempDir();
      const jobs = new JobManager(localProcessRunner, {
        store: new DiskJobStore(state.path, Deno.pid),
        pid: Deno.pid,
        killGraceMs: 500,
      });
      try {
        const job = await jobs.start(here(jobs), dir.path, "echo 'test 3: FAIL'");
        assertEquals((await jobs.wait(job.id, 60_000)).record.status, "succeeded");
        await Deno.truncate(jobs.store.localFiles(job.id)!.log, DEFAULT_MAX_FILE_BYTES + 1);
        const locations = new Locations(new LocalBackend());
        locations.setJobLogs(new JobLogFiles(jobs));
        const session = createSession(locations.localAt(dir.path));
        const uri = `anchorfs://jobs/${job.id}`;
        const text = await viewText(locations, session, { path: uri, content: "FAIL" }, {
          reads: createReadLimits(),
        });
        assertStringIncludes(text, `Not searched, over the 16 MiB search limit: "${uri}"`);
        assertStringIncludes(
          text,
          `read its end with jobs {"action":"read","id":"${job.id}","bytes":1000000}`,
        );
        assertEquals(text.includes("grep"), false, text);
      } finally {
        await jobs.shutdown();
      }
    },
  ),
);

Deno.test(
  needs(
    "a view of a job's empty log says it printed nothing yet, then that it ended with no output",
    async () => {
      await using state = await tempDir();
      await using dir = await tempDir();
      const jobs = new JobManager(localProcessRunner, {
        store: new DiskJobStore(state.path, Deno.pid),
        pid: Deno.pid,
        killGraceMs: 500,
      });
      try {
        const job = await jobs.start(here(jobs), dir.path, "until [ -f go ]; do sleep 0.05; done");
        const locations = new Locations(new LocalBackend());
        locations.setJobLogs(new JobLogFiles(jobs));
        const session = createSession(locations.localAt(dir.path));
        const uri = `anchorfs://jobs/${job.id}`;
        const running = await viewResult(locations, session, { path: uri });
        const model = renderGuide(running, toolCallSyntax);
        assertStringIncludes(model, `${uri} is empty: job ${job.id} (\`until [ -f go ]; do`);
        assertStringIncludes(model, "has printed nothing yet (running for ");
        // The next step follows the job; a job log is read-only, so no insert is offered.
        assertEquals(running.next, [step("jobs", { action: "wait", id: job.id })]);
        assertStringIncludes(model, `with jobs {"action":"wait","id":"${job.id}"}`);
        assertStringIncludes(
          renderGuide(running, cliStepSyntax),
          `with \`anchorfs jobs wait ${job.id}\``,
        );
        await Deno.writeTextFile(`${dir.path}/go`, "");
        assertEquals((await jobs.wait(job.id, 60_000)).record.status, "succeeded");
        const ended = await viewResult(locations, session, { path: uri, start: 3 });
        assertEquals(ended.next, []);
        assertMatch(
          renderGuide(ended, toolCallSyntax),
          new RegExp(
            `^${uri} is empty: job ${job.id} \\(.*\\) ended after \\S+ with no output: ` +
              "succeeded \\(exit 0\\)\\.$",
          ),
        );
      } finally {
        await jobs.shutdown();
      }
    },
  ),
);

Deno.test(
  needs(
    "a re-view of a running job's log names jobs wait instead of viewing it again",
    async () => {
      await using state = await tempDir();
      await using dir = await tempDir();
      const jobs = new JobManager(localProcessRunner, {
        store: new DiskJobStore(state.path, Deno.pid),
        pid: Deno.pid,
        killGraceMs: 500,
      });
      try {
        const job = await jobs.start(
          here(jobs),
          dir.path,
          "echo started; until [ -f go ]; do sleep 0.05; done",
        );
        const locations = new Locations(new LocalBackend());
        locations.setJobLogs(new JobLogFiles(jobs));
        const session = createSession(locations.localAt(dir.path));
        const uri = `anchorfs://jobs/${job.id}`;
        let first = "";
        // Viewed whole once it has its line (the command itself names "started": match the line).
        for (let i = 0; i < 200 && !first.includes("|started"); i++) {
          first = await viewText(locations, session, { path: uri, full: true });
          if (!first.includes("|started")) await new Promise((r) => setTimeout(r, 25));
        }
        assertMatch(first, /^1:[0-9a-f]{2}\|started$/);
        const again = await viewResult(locations, session, { path: uri });
        const text = renderGuide(again, toolCallSyntax);
        assertStringIncludes(text, `${uri} is unchanged since you last viewed it`);
        assertStringIncludes(text, `[job ${job.id} is still running (for `);
        assertEquals(again.next.at(-1), step("jobs", { action: "wait", id: job.id }));
        await Deno.writeTextFile(`${dir.path}/go`, "");
        await jobs.wait(job.id, 60_000);
        // Once it ended, the log cannot grow: the re-view says only that it is unchanged.
        assertEquals(
          (await viewText(locations, session, { path: uri })).includes("still running"),
          false,
        );
      } finally {
        await jobs.shutdown();
      }
    },
  ),
);

Deno.test(
  needs(
    "an anchorfs:// path that names no job log is said to be one, not a missing local file",
    async () => {
      await using state = await tempDir();
      await using dir = await tempDir();
      const jobs = new JobManager(localProcessRunner, {
        store: new DiskJobStore(state.path, Deno.pid),
        pid: Deno.pid,
        killGraceMs: 500,
      });
      try {
        const job = await jobs.start(here(jobs), dir.path, "echo logged");
        await jobs.wait(job.id, 60_000);
        const locations = new Locations(new LocalBackend());
        locations.setJobLogs(new JobLogFiles(jobs));
        const session = createSession(locations.localAt(dir.path));
        for (const path of ["anchorfs://jobs", "anchorfs://jobs/", "anchorfs://other/x"]) {
          const e = await viewResult(locations, session, { path }).then(() => undefined, (e) => e);
          if (!isAnchorError(e)) throw new Error(`${path}: ${e}`);
          assertEquals(e.code, "INVALID_ARGUMENT", path);
          assertStringIncludes(e.message, `"${path}" names no job log`);
          assertEquals(e.next, [step("jobs", { action: "list" })]);
        }
        // The id with a trailing slash or /log still names the log.
        for (const suffix of ["", "/", "/log"]) {
          const text = await viewText(locations, createSession(session.cwd), {
            path: `anchorfs://jobs/${job.id}${suffix}`,
          });
          assertMatch(text, /^1:[0-9a-f]{2}\|logged$/);
        }
      } finally {
        await jobs.shutdown();
      }
    },
  ),
);
