// Containment through the real server: jobs whose processes escape the job's process group and
// parentage (`setsid`, a double fork with setsid, `nohup … &` ignoring TERM) end on every path —
// jobs kill, stdin closed, SIGTERM, and a server `kill -9` followed by `anchorfs jobs list` —
// found by the job cookie (or its cgroup). Also: the log cap holds after a job ends and at every
// moment while the server writes it, a detached writer cannot grow a finished job's log, a dead
// job's cgroup is emptied by the next reader and a foreign cgroup a record names is left alone,
// and the duplicate guard sees a directory and a symlink to it as one place. The full table of
// escapes × end paths × containments is tests/faults/escapes_test.ts.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { runCliProcess, startServer, tempDir, type TestServer } from "../_harness.ts";
import {
  eventually,
  jobIdOf,
  livePidsMatching,
  pathExists,
  startJobsServer,
  uniqueMarker,
} from "../mcp/_jobs_helpers.ts";
import { needing } from "../_requires.ts";
import { cgroupBases, parseMountinfo, parseProcCgroup } from "../../lib/core/jobs/cgroup_paths.ts";

const needs = needing("bash", "proc", "signals", "posix-fs");

interface Escapes {
  id: string;
  /** Marker per escape; each is the sleep duration in that escape's command line. */
  markers: Record<"setsid" | "doubleFork" | "nohup", string>;
}

/** Starts one job whose children leave its process group three ways, and waits for them. */
async function startEscapes(server: TestServer): Promise<Escapes> {
  const markers = { setsid: uniqueMarker(), doubleFork: uniqueMarker(), nohup: uniqueMarker() };
  const loop = (m: string) => `while :; do sleep ${m}; done`;
  const command = [
    `setsid sh -c '${loop(markers.setsid)}' &`,
    `(setsid sh -c '${loop(markers.doubleFork)}' &)`,
    `nohup sh -c 'trap "" TERM HUP; ${loop(markers.nohup)}' >/dev/null 2>&1 &`,
    "echo started; wait",
  ].join("\n");
  const r = await server.call("shell", { command });
  assertEquals(r.isError, false, r.text);
  const id = jobIdOf(r.raw);
  for (const [how, marker] of Object.entries(markers)) {
    // The escaped `sleep` itself (the job's shell also names every marker).
    assert(
      await eventually(() => sleepsWith(marker).length >= 1),
      `the ${how} escape did not start`,
    );
  }
  return { id, markers };
}

/** Live `sleep MARKER` processes (the escaped grandchildren). */
function sleepsWith(marker: string): number[] {
  return livePidsMatching(`sleep ${marker}`).filter((pid) => {
    try {
      return Deno.readTextFileSync(`/proc/${pid}/cmdline`).startsWith("sleep\0");
    } catch {
      return false;
    }
  });
}

/** Asserts that no process naming any of the markers is alive (zombies count as dead). */
async function assertAllGone(markers: string[], when: string): Promise<void> {
  const gone = await eventually(() => markers.every((m) => livePidsMatching(m).length === 0));
  const left = markers.flatMap((m) => livePidsMatching(m).map((pid) => describe(pid)));
  assert(gone, `after ${when}, marker processes are alive: ${left.join(", ")}`);
}

/** A process for a failure message: its command line, state and job cookie. */
function describe(pid: number): string {
  try {
    const cmdline = Deno.readTextFileSync(`/proc/${pid}/cmdline`).replaceAll("\0", " ").trim();
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const cookie = Deno.readTextFileSync(`/proc/${pid}/environ`).split("\0")
      .find((v) => v.startsWith("ANCHORFS_JOB="));
    return `${pid} \`${cmdline}\` (state ${fields[0]}, ppid ${fields[1]}, sid ${fields[3]}, ` +
      `${cookie ?? "no cookie"})`;
  } catch {
    return `${pid} (gone)`;
  }
}

/** Safety net for a failing run: KILLs marker processes still alive, so none outlives the test. */
function killLeft(markers: string[]): void {
  for (const pid of markers.flatMap((m) => livePidsMatching(m))) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
}

function readRecord(stateDir: string, id: string) {
  return JSON.parse(Deno.readTextFileSync(`${stateDir}/jobs/${id}/record.json`));
}

Deno.test(
  needs(
    "jobs kill ends processes that left the job's group by setsid, double fork and nohup",
    async () => {
      await using s = await startJobsServer("v1", { window: 0.3 });
      const { id, markers } = await startEscapes(s.server);
      try {
        const killed = await s.server.call("jobs", { action: "kill", id });
        assertEquals(killed.isError, false, killed.text);
        // "Killed job ID (`…`): terminated N processes (bash 123, sh 130, …); KILLED on request …"
        assert(
          new RegExp(`Killed job ${id} \\(\`.*\`\\): terminated \\d+ processes \\(bash \\d+, `)
            .test(
              killed.text,
            ),
          killed.text,
        );
        assertStringIncludes(killed.text, "KILLED on request");
        await assertAllGone(Object.values(markers), "jobs kill");
        assertEquals(readRecord(s.stateDir, id).status, "killed");
      } finally {
        killLeft(Object.values(markers));
      }
    },
  ),
);

Deno.test(needs("closing the server's stdin ends escaped job processes too", async () => {
  await using s = await startJobsServer("v2", { window: 0.3 });
  const { id, markers } = await startEscapes(s.server);
  try {
    await s.server.close();
    await assertAllGone(Object.values(markers), "stdin closed");
    assert(await eventually(() => readRecord(s.stateDir, id).status === "interrupted"));
  } finally {
    killLeft(Object.values(markers));
  }
}));

Deno.test(needs("SIGTERM to the server ends escaped job processes too", async () => {
  await using s = await startJobsServer("v1", { window: 0.3 });
  const { id, markers } = await startEscapes(s.server);
  try {
    Deno.kill(s.server.pid!, "SIGTERM");
    await assertAllGone(Object.values(markers), "SIGTERM");
    assert(await eventually(() => readRecord(s.stateDir, id).status === "interrupted"));
  } finally {
    killLeft(Object.values(markers));
  }
}));

Deno.test(
  needs(
    "after a server kill -9, `anchorfs jobs list` ends its running and finished jobs' processes",
    async () => {
      await using s = await startJobsServer("v1", { window: 0.3 });
      const running = await startEscapes(s.server);
      // A finished job whose background child still runs: what a server leaves when it dies after
      // recording the end (or an older server's job). Its record carries the job's cookie, and
      // the child, in its own session and reparented, is found by that cookie alone.
      const finishedMarker = uniqueMarker();
      const finishedId = "999997-1";
      const cookie = `0123456789abcdef/${finishedId}`;
      const child = new Deno.Command("setsid", {
        args: ["sh", "-c", `while :; do sleep ${finishedMarker}; done`],
        env: { ANCHORFS_JOB: cookie },
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).spawn();
      try {
        assert(await eventually(() => sleepsWith(finishedMarker).length === 1));
        await Deno.mkdir(`${s.stateDir}/jobs/${finishedId}`, { recursive: true });
        await Deno.writeTextFile(`${s.stateDir}/jobs/${finishedId}/output.log`, "done\n");
        await Deno.writeTextFile(
          `${s.stateDir}/jobs/${finishedId}/record.json`,
          JSON.stringify({
            version: 1,
            id: finishedId,
            command: `sh -c 'while :; do sleep ${finishedMarker}; done' & echo done`,
            cwd: "/",
            cookie,
            pid: 2 ** 22 + 1, // its shell is long gone
            pidStartTicks: 1,
            serverPid: 999997,
            serverStartTicks: 1,
            startedAt: Date.now() - 2000,
            status: "succeeded",
            exitCode: 0,
            endedAt: Date.now() - 1000,
            droppedBytes: 0,
            logCapBytes: 1024,
          }),
        );
        Deno.kill(s.server.pid!, "SIGKILL");
        // Nothing ran the shutdown: every escape is still alive.
        await new Promise((r) => setTimeout(r, 300));
        for (const marker of Object.values(running.markers)) {
          assert(sleepsWith(marker).length >= 1, `${marker} ended without anyone killing it`);
        }
        const list = await runCliProcess(["jobs", "list", "--state-dir", s.stateDir]);
        assertEquals(list.code, 0, list.stderr);
        assertStringIncludes(list.stdout, `${running.id}  lost`);
        assertStringIncludes(list.stdout, `${finishedId}  succeeded`);
        await assertAllGone(
          [...Object.values(running.markers), finishedMarker],
          "kill -9 and anchorfs jobs list",
        );
        const lost = readRecord(s.stateDir, running.id);
        assertStringIncludes(lost.endReason, "were still running and have been terminated");
      } finally {
        killLeft([...Object.values(running.markers), finishedMarker]);
        try {
          child.kill("SIGKILL");
        } catch {
          // already gone
        }
        await child.status;
      }
    },
  ),
);

Deno.test(
  needs(
    "once a job has ended, leftovers writing into its log are stopped and the log is within its cap",
    async () => {
      const cap = 100 * 1024;
      await using s = await startJobsServer("v1", {
        window: 5,
        env: { ANCHORFS_JOB_LOG_CAP: String(cap) },
      });
      // A setsid child writing 20 KB every 50 ms, left behind by a shell that exits once the child
      // has written 160 KB (past the cap, whatever the machine's speed).
      const marker = uniqueMarker();
      try {
        const r = await s.server.call("shell", {
          command: `setsid sh -c 'i=0; while :; do head -c 20000 /dev/zero | tr "\\0" x; ` +
            `i=$((i+1)); [ $i = 8 ] && touch wrote; sleep 0.05; done; : ${marker}' & ` +
            "until [ -f wrote ]; do sleep 0.05; done; echo parent-done",
        });
        // Exit 0, but the child's output passed the cap: incomplete, never a plain success (an
        // error result).
        assertEquals(r.isError, true, r.text);
        const id = /job (\d+-\d+)/.exec(r.text)?.[1];
        assert(id, r.text);
        assertEquals(readRecord(s.stateDir, id).status, "output_capped");
        await assertAllGone([marker], "the job's end");
        const log = `${s.stateDir}/jobs/${id}/output.log`;
        const atEnd = (await Deno.stat(log)).size;
        assert(atEnd <= cap, `log is ${atEnd} bytes at the end, cap ${cap}`);
        await new Promise((r) => setTimeout(r, 500));
        assertEquals((await Deno.stat(log)).size, atEnd, "the log grew after the job ended");
        const text = await Deno.readTextFile(log);
        assert(
          /\[anchorfs: the command exited and left \d+ process(es)? \(sh \d+/.test(text),
          text.slice(-400),
        );
        assertStringIncludes(readRecord(s.stateDir, id).endReason, "which were terminated");
      } finally {
        killLeft([marker]);
      }
    },
  ),
);

Deno.test(
  needs(
    "the duplicate guard refuses the same command in a directory and in a symlink to it",
    async () => {
      await using dir = await tempDir();
      await using state = await tempDir();
      await Deno.mkdir(`${dir.path}/a`);
      await Deno.symlink(`${dir.path}/a`, `${dir.path}/alink`);
      await using server = await startServer({
        client: "v2",
        args: ["--path", dir.path, "--foreground-window", "0.3", "--state-dir", state.path],
      });
      const command = "until [ -f stop ]; do sleep 0.1; done";
      const first = await server.call("shell", { command, cwd: "a" });
      const id = jobIdOf(first.raw);
      const second = await server.call("shell", { command, cwd: "alink" });
      assert(second.isError, second.text);
      assertStringIncludes(second.text, `as job ${id}`);
      // Through the symlink, as the model named it, the command still runs once the first ends.
      await Deno.writeTextFile(`${dir.path}/a/stop`, "");
      await server.call("jobs", { action: "wait", id });
      const third = await server.call("shell", { command, cwd: "alink" });
      assertEquals(third.isError, false, third.text);
    },
  ),
);

// The escape the issue was filed with: a writer that cleared its environment, left the session
// and was reparented, left behind by a shell that ended at once. Its log must not grow after the
// job's end, nor after the server's exit (it grew to MBs past a 100 KB cap, and kept growing).
Deno.test(
  needs(
    "a detached writer left by a finished job cannot grow its capped log, then or after the server exits",
    async () => {
      const cap = 100_000;
      await using s = await startJobsServer("v1", {
        window: 5,
        env: { ANCHORFS_JOB_LOG_CAP: String(cap) },
      });
      const marker = uniqueMarker();
      try {
        const r = await s.server.call("shell", {
          command:
            `(env -i setsid sh -c 'while :; do head -c 20000 /dev/zero | tr "\\0" z; echo; ` +
            `sleep 0.05; done; : ${marker}' &) ; echo started`,
        });
        const id = /job (\d+-\d+)/.exec(r.text)?.[1];
        assert(id, r.text);
        const log = `${s.stateDir}/jobs/${id}/output.log`;
        assert(await eventually(() => readRecord(s.stateDir, id).status !== "running"));
        const atEnd = (await Deno.stat(log)).size;
        assert(atEnd <= cap, `log is ${atEnd} bytes at the end, cap ${cap}`);
        await new Promise((r) => setTimeout(r, 1000));
        assertEquals((await Deno.stat(log)).size, atEnd, "the log grew after the job ended");
        await s.server.close();
        await new Promise((r) => setTimeout(r, 500));
        assertEquals((await Deno.stat(log)).size, atEnd, "the log grew after the server exited");
        // In its cgroup it was killed with the job; on the process tree its next write after the
        // server closed the pipe was its last (SIGPIPE).
        await assertAllGone([marker], "the job's end");
      } finally {
        killLeft([marker]);
      }
    },
  ),
);

Deno.test(
  needs(
    "the server keeps a flooding job's log within its cap at every moment, not only at checks",
    async () => {
      const cap = 1024 * 1024;
      await using s = await startJobsServer("v1", {
        window: 0.3,
        env: { ANCHORFS_JOB_LOG_CAP: String(cap) },
      });
      const r = await s.server.call("shell", {
        command: "head -c 300000000 /dev/zero | tr '\\0' x",
      });
      const id = jobIdOf(r.raw);
      const log = `${s.stateDir}/jobs/${id}/output.log`;
      let largest = 0;
      while (readRecord(s.stateDir, id).status === "running") {
        largest = Math.max(largest, Deno.statSync(log).size);
        await new Promise((r) => setTimeout(r, 2));
      }
      // The cut follows each chunk the server writes: at most one 64 KiB read over the cap.
      assert(largest <= cap + 64 * 1024, `the log reached ${largest} bytes, cap ${cap}`);
      const record = readRecord(s.stateDir, id);
      assertEquals(record.status, "output_capped");
      // Every byte is counted (kept or dropped): nothing races the cut.
      assertEquals(record.outputBytes, 300_000_000);
    },
  ),
);

const cgroupTest = needing("bash", "proc", "signals", "cgroup-v2");

Deno.test(cgroupTest(
  "after a server kill -9, `anchorfs jobs list` kills what is in a dead job's cgroup and never touches another cgroup a record names",
  async () => {
    await using state = await tempDir();
    const bases = cgroupBases(
      parseMountinfo(Deno.readTextFileSync("/proc/self/mountinfo")),
      parseProcCgroup(Deno.readTextFileSync("/proc/self/cgroup")),
    );
    const instance = "00000000feedf00d";
    const jobDir = `${bases.v2}/anchorfs-${instance}/job-999996-1`;
    const foreign = `${bases.v2}/anchorfs-test-foreign-${Deno.pid}`;
    const marker = uniqueMarker();
    const strangerMarker = uniqueMarker();
    Deno.mkdirSync(jobDir, { recursive: true });
    Deno.mkdirSync(foreign);
    /** A process that joins `dir`, then clears its environment and leaves its session. */
    const inCgroup = (dir: string, m: string) =>
      new Deno.Command("/bin/sh", {
        args: [
          "-c",
          `echo 0 > ${dir}/cgroup.procs && exec env -i setsid sh -c 'while :; do sleep ${m}; done'`,
        ],
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).spawn();
    const job = inCgroup(jobDir, marker);
    const stranger = inCgroup(foreign, strangerMarker);
    const record = (id: string, cgroups: string[]) => ({
      version: 1,
      id,
      command: "while :; do sleep 1; done",
      cwd: "/",
      cookie: `${instance}/${id}`,
      cgroups,
      containment: "cgroup v2 (writable subtree)",
      pid: 2 ** 22 + 3,
      pidStartTicks: 1,
      serverPid: 999996,
      serverStartTicks: 1,
      startedAt: Date.now() - 2000,
      status: "running",
      droppedBytes: 0,
      logCapBytes: 1024,
    });
    try {
      assert(
        await eventually(() =>
          sleepsWith(marker).length === 1 && sleepsWith(strangerMarker).length === 1
        ),
      );
      for (
        const [id, cgroups] of [["999996-1", [jobDir]], ["999996-2", [
          foreign,
          `${foreign}/../anchorfs-${instance}/job-999996-2`,
        ]]] as const
      ) {
        await Deno.mkdir(`${state.path}/jobs/${id}`, { recursive: true });
        await Deno.writeTextFile(`${state.path}/jobs/${id}/output.log`, "");
        await Deno.writeTextFile(
          `${state.path}/jobs/${id}/record.json`,
          JSON.stringify(record(id, [...cgroups])),
        );
      }
      const list = await runCliProcess(["jobs", "list", "--state-dir", state.path]);
      assertEquals(list.code, 0, list.stderr);
      assertStringIncludes(list.stdout, "999996-1  lost");
      assertStringIncludes(list.stdout, "999996-2  lost");
      // Only its cgroup tied it to the job (no cookie, its own session, its parent not the job's).
      await assertAllGone([marker], "anchorfs jobs list");
      assertStringIncludes(readRecord(state.path, "999996-1").endReason, "have been terminated");
      assert(!pathExists(jobDir), "the dead job's cgroup was left behind");
      // A record naming a cgroup that is not its job's own is never acted on.
      assertEquals(
        sleepsWith(strangerMarker).length,
        1,
        "a process in a foreign cgroup was killed",
      );
    } finally {
      killLeft([marker, strangerMarker]);
      await job.status;
      await stranger.status;
      // Killed processes leave their cgroups once they have exited: retried until then.
      for (const dir of [jobDir, jobDir.slice(0, jobDir.lastIndexOf("/")), foreign]) {
        await eventually(() => {
          try {
            Deno.removeSync(dir);
          } catch {
            // not empty yet, or removed by the sweep
          }
          return !pathExists(dir);
        });
      }
    }
  },
));
