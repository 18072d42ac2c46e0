// The real escapes, through the real server, on every end path: a job whose processes leave it
// every way a program does (`env -i setsid` in a subshell, `setsid -f`, `nohup`, double and triple
// forks, `disown`, a daemon that closes its fds and reopens /dev/null, a child ignoring SIGTERM, a
// fork loop), ended by `jobs kill`, by its shell's own end, by SIGTERM to the server, and by a
// server `kill -9` followed by a restart on the same state dir. For each containment this machine
// gives (cgroup v2, cgroup v1 freezer; skipped with the reason where it gives none): no process
// survives, and the log does not grow by one byte after the terminal status. On the process tree
// the same holds except the documented limit (the daemon, which has no proof of being the job's),
// and the log still does not grow: the server closes the pipe.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { startServer, type TestServer } from "../_harness.ts";
import {
  eventually,
  livePidsMatching,
  pathExists,
  processAlive,
  startJobsServer,
  uniqueMarker,
} from "../mcp/_jobs_helpers.ts";
import { needing } from "../_requires.ts";
import { ESCAPES, escapesCommand } from "./_escapes.ts";

type Mode = "cgroup-v2" | "cgroup-v1" | "process-tree";
type EndPath = "kill" | "end" | "server SIGTERM" | "server kill -9 + restart";

/** The documented limit of the process tree: no cookie, its own session, its parent gone, and
 * no write to the job's pipe that would end it by SIGPIPE. */
const PROCESS_TREE_LIMIT = new Set(["daemon"]);

interface Started {
  id: string;
  markers: Record<string, string>;
  log: string;
}

/** Starts the job with every escape; its shell waits for all of them, then ends or keeps on. */
async function startEscapes(
  server: TestServer,
  dir: string,
  stateDir: string,
  endsItself: boolean,
): Promise<Started> {
  const markers = Object.fromEntries(Object.keys(ESCAPES).map((n) => [n, uniqueMarker()]));
  const { command, readies } = escapesCommand(markers, dir, endsItself);
  const r = await server.call("shell", { command });
  const id = /job (\d+-\d+)/.exec(r.text)?.[1];
  assert(id, r.text);
  const log = `${stateDir}/jobs/${id}/output.log`;
  if (!endsItself) {
    assert(
      await eventually(() => readies.every(pathExists), 20_000),
      `escapes did not all start: ${readies.filter((r) => !pathExists(r)).join(", ")}`,
    );
  }
  return { id, markers, log };
}

function readRecord(stateDir: string, id: string) {
  return JSON.parse(Deno.readTextFileSync(`${stateDir}/jobs/${id}/record.json`));
}

/** Waits for a terminal record; returns it. */
async function terminal(stateDir: string, id: string) {
  assert(
    await eventually(() => readRecord(stateDir, id).status !== "running", 20_000),
    `job ${id} never ended`,
  );
  return readRecord(stateDir, id);
}

/** The escapes with a live process, by name. */
function survivors(markers: Record<string, string>): string[] {
  return Object.entries(markers).filter(([, m]) => livePidsMatching(m).length > 0)
    .map(([name]) => name);
}

function killLeft(markers: Record<string, string>): void {
  for (const pid of Object.values(markers).flatMap((m) => livePidsMatching(m))) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
}

/** Asserts the log keeps its size for a while after the end (nothing writes into it). */
async function assertLogStill(log: string, since: number, when: string): Promise<void> {
  await new Promise((r) => setTimeout(r, 400));
  assertEquals(Deno.statSync(log).size, since, `the log grew after ${when}`);
}

/** Ends the job by `path`; returns the record once terminal and the log size at that moment. */
async function endBy(
  path: EndPath,
  s: Awaited<ReturnType<typeof startJobsServer>>,
  job: Started,
  env: Record<string, string>,
): Promise<{ record: Record<string, string>; logSize: number; status: string }> {
  if (path === "kill") {
    const killed = await s.server.call("jobs", { action: "kill", id: job.id });
    assertStringIncludes(killed.text, "KILLED on request");
  } else if (path === "server SIGTERM") Deno.kill(s.server.pid!, "SIGTERM");
  else if (path === "server kill -9 + restart") {
    Deno.kill(s.server.pid!, "SIGKILL");
    // Nobody reads the pipe now: nothing can reach the log from here on.
    await eventually(() => !processAlive(s.server.pid!));
    const atDeath = Deno.statSync(job.log).size;
    await using restarted = await startServer({
      client: "v1",
      args: ["--path", s.dir, "--state-dir", s.stateDir],
      env,
    });
    const record = await terminal(s.stateDir, job.id);
    assertEquals(Deno.statSync(job.log).size, atDeath, "the log grew after the server died");
    await restarted.call("jobs", { action: "list" });
    return { record, logSize: atDeath, status: "lost" };
  }
  const record = await terminal(s.stateDir, job.id);
  const status = { kill: "killed", end: "succeeded", "server SIGTERM": "interrupted" }[path];
  return { record, logSize: Deno.statSync(job.log).size, status };
}

const LABELS: Record<Mode, string> = {
  "cgroup-v2": "cgroup v2 (writable subtree)",
  "cgroup-v1": "cgroup v1 freezer",
  "process-tree": "process tree",
};

const PATHS: EndPath[] = ["kill", "end", "server SIGTERM", "server kill -9 + restart"];

for (const mode of ["cgroup-v2", "cgroup-v1", "process-tree"] as const) {
  const cgroup = mode === "process-tree" ? [] : [mode];
  const needs = needing("bash", "proc", "signals", ...cgroup);
  const leaves = mode === "process-tree" ? "only the documented limit (the daemon)" : "no survivor";
  for (const path of PATHS) {
    Deno.test(
      needs(
        `escapes on ${LABELS[mode]}: ${path} leaves ${leaves} and no byte after the end`,
        async () => {
          const env = { ANCHORFS_CONTAINMENT: mode };
          await using s = await startJobsServer("v2", { window: 0.3, env });
          const job = await startEscapes(s.server, s.dir, s.stateDir, path === "end");
          try {
            const ended = await endBy(path, s, job, env);
            assertEquals(ended.record.status, ended.status, JSON.stringify(ended.record));
            const allowed = mode === "process-tree" ? PROCESS_TREE_LIMIT : new Set<string>();
            assert(
              await eventually(() => survivors(job.markers).every((n) => allowed.has(n)), 15_000),
              `survivors after ${path}: ${survivors(job.markers).join(", ")}`,
            );
            await assertLogStill(job.log, ended.logSize, `${path} (${ended.status})`);
            // The limit is real (and so is what a cgroup adds): the daemon outlives its job there.
            if (mode === "process-tree") assertEquals(survivors(job.markers), ["daemon"]);
            assertStringIncludes(ended.record.containment ?? "", LABELS[mode]);
            for (const dir of (ended.record.cgroups ?? []) as string[]) {
              assert(await eventually(() => !pathExists(dir)), `${dir} was left behind`);
            }
            if (mode !== "process-tree") assert(Array.isArray(ended.record.cgroups));
          } finally {
            killLeft(job.markers);
          }
        },
      ),
    );
  }
}

Deno.test(
  needing("bash", "proc", "cgroup-v2")(
    "the start-up log says which containment holds the jobs, and why the rungs before it were not used",
    async () => {
      await using s = await startJobsServer("v1", {
        window: 0.3,
        env: { ANCHORFS_CONTAINMENT: "auto" },
      });
      const r = await s.server.call("shell", { command: "echo hi" });
      assertStringIncludes(r.text, "hi");
      assert(
        await eventually(() => s.server.stderr().includes("containment: ")),
        s.server.stderr(),
      );
      assertStringIncludes(s.server.stderr(), "anchorfs mcp: containment: cgroup v2");
    },
  ),
);
