// Every shell call a hint or notice suggests, produced by its real builder from sample inputs and
// run through the shell tool's op (policy included) on real files: each must be allowed and do
// what the hint says. A scan of lib/ keeps the list complete: a new shell step fails here until
// it is added.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { REPO_ROOT, tempDir } from "../_harness.ts";
import { needing } from "../_requires.ts";
import { AnchorError } from "../../lib/core/errors.ts";
import {
  type GuideStep,
  isCall,
  type NextStep,
  renderGuide,
  toolCallSyntax,
} from "../../lib/core/next_step.ts";
import { LocalBackend } from "../../lib/backends/local/local_backend.ts";
import { LocalHost } from "../../lib/backends/local/local_host.ts";
import * as runner from "../../lib/backends/local/process_runner.ts";
import { DiskJobStore } from "../../lib/backends/local/disk_job_store.ts";
import { interruptedWrite } from "../../lib/backends/local/write_in_place.ts";
import { mapFsError } from "../../lib/backends/fs_errors.ts";
import { Locations } from "../../lib/ops/location.ts";
import { createSession } from "../../lib/ops/session.ts";
import { viewResult } from "../../lib/ops/view.ts";
import { createReadLimits } from "../../lib/ops/read_limits.ts";
import { runTextEditor } from "../../lib/ops/edit/text_editor.ts";
import { UndoStore } from "../../lib/ops/edit/undo_store.ts";
import { FileLocks } from "../../lib/core/file_locks.ts";
import { JobManager } from "../../lib/ops/jobs/job_manager.ts";
import { logTooLarge } from "../../lib/ops/jobs/job_log_files.ts";
import { resolveShellCwd, runShell } from "../../lib/ops/shell.ts";
import { judgeShellCommand } from "../../lib/ops/shell_files.ts";

const needs = needing("bash", "proc", "signals", "posix-fs");

/** The limit the sample files are measured against: small, so no test writes 16 MiB. */
const LIMIT = 4096;

/** Files that hold a shell step, and how many each: what the builders below cover. */
const SHELL_STEP_SITES: Record<string, number> = {
  "lib/backends/fs_errors.ts": 2, // SYMLINK_LOOP: readlink; WOULD_BLOCK: timeout 5 head -c
  "lib/backends/local/write_in_place.ts": 2, // INTERRUPTED_WRITE: cp back, or rm the copy
  "lib/core/read_refusals.ts": 3, // NOT_A_REGULAR_FILE: ls -l; FILE_TOO_LARGE: grep, sed
  "lib/ops/big_file_hints.ts": 2, // a search's over-limit notice: grep, sed
  "lib/ops/edit/text_editor.ts": 2, // create over a FIFO, delete of a big file or a FIFO: rm
  "lib/ops/jobs/job_log_files.ts": 1, // LOG_TOO_LARGE: grep the raw log
  "lib/ops/shell.ts": 3, // argument examples (make test, printf, a cwd placeholder)
};

Deno.test("every file with a shell step in lib/ is covered by the hint steps test", async () => {
  const found: Record<string, number> = {};
  for await (const path of walkTs(`${REPO_ROOT}/lib`)) {
    const text = await Deno.readTextFile(path);
    // The definition of shellStepForFile itself (and its doc example) is not a suggestion.
    if (path.endsWith("lib/core/shell/file_shell_step.ts")) continue;
    const count = (text.match(/step\("shell"|shellStepForFile\(/g) ?? []).length;
    if (count > 0) found[path.slice(REPO_ROOT.length + 1)] = count;
  }
  assertEquals(found, SHELL_STEP_SITES);
});

async function* walkTs(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) yield* walkTs(path);
    else if (e.name.endsWith(".ts")) yield path;
  }
}

/** The calls a thrown AnchorError's hint suggests. */
async function hintSteps(call: () => Promise<unknown>): Promise<NextStep[]> {
  const e = await call().then(() => null, (e) => e);
  assert(e instanceof AnchorError, `expected an AnchorError, got ${e}`);
  return [...e.next];
}

function shellSteps(steps: readonly GuideStep[]) {
  return steps.filter(isCall).flatMap((s) => s.tool === "shell" ? [s.args] : []);
}

Deno.test(
  needs(
    "every shell call a hint suggests passes the shell policy and does what the hint says",
    async () => {
      await using dir = await tempDir();
      await using state = await tempDir();
      const root = dir.path;
      const big = "FAIL first line\n" + "filler line of the big log\n".repeat(300) +
        "needle TEXT here\n";
      assert(big.length > LIMIT);
      for (const name of ["big.log", "big copy.log", "raw.log"]) {
        await Deno.writeTextFile(`${root}/${name}`, big);
      }
      for (const name of ["pipe", "pipe2", "pipe3"]) {
        assert((await new Deno.Command("mkfifo", { args: [`${root}/${name}`] }).output()).success);
      }
      await Deno.symlink("loop", `${root}/loop`);
      await Deno.writeTextFile(`${root}/linked.txt`, "half written\n");
      await Deno.writeTextFile(`${root}/.linked.txt.kept`, "before\n");
      await Deno.writeTextFile(`${root}/.other.kept`, "before\n");

      const local = new LocalBackend();
      const host = new LocalHost(local, "bash");
      const locations = new Locations(host);
      const reads = createReadLimits({ maxFileBytes: LIMIT });
      const session = createSession(locations.localAt(root));
      const services = { locations, undo: new UndoStore(), editLocks: new FileLocks(), reads };
      const jobs = new JobManager(runner.localProcessRunner, {
        store: new DiskJobStore(state.path, Deno.pid),
        pid: Deno.pid,
        killGraceMs: 500,
      });
      // As lib/compose.ts does: this machine's jobs are the manager's.
      host.jobs = jobs.localJobs;

      /** Runs one suggested shell call as the shell tool does; its output, after checking it ran. */
      async function run(args: { command: string; cwd?: string }): Promise<string> {
        const { location } = await resolveShellCwd(locations, session.cwd, args.cwd);
        const outcome = await runShell(args.command, location, {
          jobs,
          foregroundWindowMs: 30_000,
          files: { locations, cwd: location, maxFileBytes: LIMIT },
        });
        assertEquals(outcome.kind, "finished", args.command);
        const text = renderGuide(outcome.text, toolCallSyntax);
        assert(outcome.kind === "finished" && !outcome.failed, `${args.command}: ${text}`);
        return text;
      }

      try {
        // NOT_A_REGULAR_FILE (view of a FIFO): ls -l shows what it is.
        const [ls] = shellSteps(
          await hintSteps(() => viewResult(locations, session, { path: "pipe" })),
        );
        assertEquals(ls?.command, `ls -l ${root}/pipe`);
        assert(/^p/m.test(await run(ls!)), "ls -l names a FIFO with p");

        // FILE_TOO_LARGE (view of a big file): grep finds the text, sed prints the first lines.
        const [grep, sed] = shellSteps(
          await hintSteps(() =>
            viewResult(locations, session, { path: "big copy.log" }, { reads })
          ),
        );
        assertEquals(grep?.command, `grep -n -m 100 -e TEXT '${root}/big copy.log'`);
        assertStringIncludes(await run(grep!), "302:needle TEXT here");
        // What lets it through is the file's size: without looking, the policy refuses grep.
        assertEquals((await judgeShellCommand(grep!.command, "bash", undefined)).allowed, false);
        assertEquals(sed?.command, `sed -n '1,200p' '${root}/big copy.log'`);
        assertStringIncludes(await run(sed!), "FAIL first line");

        // A search that skipped the big files: grep for the same text (literal, then regex), or
        // sed for the first lines.
        for (const [content, regex] of [["needle", false], ["need+le", true]] as const) {
          const result = await viewResult(locations, session, { path: ".", content, regex }, {
            reads,
          });
          assertStringIncludes(renderGuide(result, toolCallSyntax), "Not searched, over the");
          const [found, start] = shellSteps(result.next);
          assertEquals(
            found?.command,
            `grep -n${regex ? "P" : "F"} -m 100 -e ${content} 'big copy.log'`,
          );
          assertStringIncludes(await run(found!), "302:needle TEXT here");
          assertEquals(start?.command, "sed -n '1,200p' 'big copy.log'");
          assertStringIncludes(await run(start!), "FAIL first line");
        }

        // LOG_TOO_LARGE: grep the raw log on disk.
        const [logGrep] = shellSteps(logTooLarge("1-1", 70_000_000, `${root}/raw.log`).next);
        assertStringIncludes(await run(logGrep!), "1:FAIL first line");

        // SYMLINK_LOOP: readlink shows where the link points.
        const loopError = mapFsError(
          await Deno.stat(`${root}/loop`).then(() => null, (e) => e),
          "read",
          `${root}/loop`,
        );
        const [readlink] = shellSteps(loopError?.next ?? []);
        assertEquals((await run(readlink!)).trimEnd().split("\n").at(-1), "loop");

        // WOULD_BLOCK (/proc/kmsg as root: a read waits for the next kernel message) and
        // FILE_TOO_LARGE of a file stating 0 bytes (/proc/self/pagemap): judged only, since neither
        // file ends; they pass (the policy leaves /proc to the shell).
        const files = { locations, cwd: session.cwd, maxFileBytes: LIMIT };
        const [wait] = shellSteps(mapFsError({ code: "EAGAIN" }, "read", "/proc/kmsg").next);
        assertEquals(wait?.command, "timeout 5 head -c 65536 /proc/kmsg");
        if (Deno.uid() === 0) {
          assert((await judgeShellCommand(wait!.command, "bash", files)).allowed, wait!.command);
        }
        const pagemap = await hintSteps(() =>
          viewResult(locations, session, { path: "/proc/self/pagemap" }, { reads })
        );
        for (const step of shellSteps(pagemap)) {
          assert((await judgeShellCommand(step.command, "bash", files)).allowed, step.command);
        }
        // A truly empty file stays refused: view reads it.
        await Deno.writeTextFile(`${root}/empty.txt`, "");
        assertEquals((await judgeShellCommand("cat empty.txt", "bash", files)).allowed, false);

        // text_editor create over a FIFO, delete of a FIFO and of a big file: rm removes it.
        for (
          const [name, args] of [
            ["pipe2", { command: "create", path: "pipe2", file_text: "x\n" }],
            ["pipe3", { command: "delete", path: "pipe3" }],
            ["big.log", { command: "delete", path: "big.log" }],
          ] as const
        ) {
          const [rm] = shellSteps(await hintSteps(() => runTextEditor(services, session, args)));
          assertEquals(rm?.command, `rm -- ${name}`);
          await run(rm!);
          assertEquals(await local.stat(`${root}/${name}`), null, `${name} is gone`);
        }

        // INTERRUPTED_WRITE: cp puts the kept content back; or rm drops the copy.
        const target = (base: string) => ({
          open: `${root}/${base}`,
          dir: root,
          base,
          shown: `${root}/${base}`,
          shownDir: root,
        });
        const [restore] = shellSteps(
          interruptedWrite(target("linked.txt"), `${root}/.linked.txt.kept`, 1).next,
        );
        await run(restore!);
        assertEquals(await Deno.readTextFile(`${root}/linked.txt`), "before\n");
        const [, drop] = shellSteps(
          interruptedWrite(target("linked.txt"), `${root}/.other.kept`, 1).next,
        );
        await run(drop!);
        assertEquals(await local.stat(`${root}/.other.kept`), null);

        // The shell op's own examples: a command line for an empty one (judged only: there is no
        // Makefile to run), and how to write a NUL byte (run: the file holds it).
        const deps = { jobs, foregroundWindowMs: 30_000 };
        const [example] = shellSteps(await hintSteps(() => runShell(" ", session.cwd, deps)));
        assert((await judgeShellCommand(example!.command, "bash", undefined)).allowed);
        const [printf] = shellSteps(await hintSteps(() => runShell("a\0b", session.cwd, deps)));
        await run(printf!);
        assertEquals([...await Deno.readFile(`${root}/file.bin`)], [97, 0, 98]);
      } finally {
        await jobs.shutdown();
      }
    },
  ),
);

Deno.test("SHELL_REMOTE_CWD's example (a placeholder command) passes the policy", async () => {
  // It needs a host that serves files but runs no commands to be produced; its command is "...".
  assert((await judgeShellCommand("...", "bash", undefined)).allowed);
});
