// Jobs on ssh:// hosts through the real server, against a private sshd on 127.0.0.1 (so the
// "remote" processes are visible here too, which lets the tests check what a kill left alive):
// a short command, promotion with its notification, a kill that takes the remote tree (also what
// left the group), the duplicate guard, the log cap, and a dropped connection → lost, not rerun.

import { assert, assertEquals, assertMatch, assertStringIncludes } from "../../_assert.ts";
import { runCliProcess, startServer, tempDir } from "../../_harness.ts";
import {
  eventually,
  jobIdOf,
  livePidsMatching,
  startJobsServer,
  uniqueMarker,
} from "../../mcp/_jobs_helpers.ts";
import { createSshWorld } from "./_sshd.ts";
import { needing } from "../../_requires.ts";
import { localProcessRunner } from "../../../lib/backends/local/process_runner.ts";
import { JobManager } from "../../../lib/ops/jobs/job_manager.ts";
import { DiskJobStore } from "../../../lib/backends/local/disk_job_store.ts";
import { scopeJobs } from "../../../lib/ops/jobs/agent_jobs.ts";
import { NO_PROC_VAR } from "../../../lib/backends/ssh/remote_job_runner.ts";

const sshTest = needing("sshd", "bash", "proc");

async function remoteJobsWorld(extraEnv: Record<string, string> = {}) {
  const world = await createSshWorld({
    config: (port) => `Host box\n  HostName 127.0.0.1\n  Port ${port}\n`,
  });
  // An agent from the developer's environment must not take part.
  return { world, env: world.env({ SSH_AUTH_SOCK: "", ...extraEnv }) };
}

/**
 * Drops every connection of the private sshd: SIGKILL to each sshd process under the listener
 * (the privileged monitor and the per-connection child that holds the socket), so the kernel
 * closes the TCP connection. The sessions' own processes (the job) are left alone.
 */
function killSshdConnections(sshdDir: string): number {
  const listener = Number(Deno.readTextFileSync(`${sshdDir}/sshd.pid`).trim());
  const rows: { pid: number; ppid: number; name: string }[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      rows.push({ pid: Number(entry.name), ppid: Number(rest[1]), name });
    } catch { /* gone */ }
  }
  const under = new Set([listener]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const r of rows) {
      if (!under.has(r.pid) && under.has(r.ppid) && r.name.startsWith("sshd")) {
        under.add(r.pid);
        grew = true;
      }
    }
  }
  under.delete(listener);
  for (const pid of under) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch { /* gone */ }
  }
  return under.size;
}

/**
 * The result names the one process left behind, by its pid. Its name is what it ran when the
 * sweep saw it: `sleep`, or still `bash` (or `setsid`) when the fork had not reached its exec
 * yet on a busy machine.
 */
function assertLeftNamed(text: string, pid: number): void {
  assertMatch(text, new RegExp(`left 1 process \\((sleep|setsid|bash) ${pid}\\)`));
}

async function readRecord(stateDir: string, id: string) {
  return JSON.parse(await Deno.readTextFile(`${stateDir}/jobs/${id}/record.json`));
}

function alive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return !stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return false;
  }
}

Deno.test(sshTest(
  "remote shell: a short command runs in the ssh:// directory and returns its tail",
  async () => {
    const { world, env } = await remoteJobsWorld();
    await using _world = world;
    await using remote = await tempDir("anchorfs-rjob-");
    await using s = await startJobsServer("v2", { window: 10, env });
    const r = await s.server.call("shell", {
      command: 'echo "hello from $(pwd)"; echo "job=$ANCHORFS_JOB" >&2; exit 3',
      cwd: `ssh://box${remote.path}`,
    });
    // A non-zero exit is an error result, remote or not.
    assertEquals(r.isError, true, r.text);
    assertStringIncludes(r.text, `hello from ${remote.path}`);
    assertStringIncludes(r.text, "exit 3");
    // stderr is in the same log, and the job's cookie reached the remote side.
    const id = r.text.match(/job (\d+-\d+)/)![1]!;
    assertStringIncludes(r.text, `/${id}`);
    const record = await readRecord(s.stateDir, id);
    assertEquals(record.cwd, `ssh://box${remote.path}`);
    assertEquals(record.status, "failed");
    assertEquals(record.exitCode, 3);
    assert(record.host.includes("127.0.0.1"), record.host);
  },
));

Deno.test(sshTest(
  "remote shell: a long command is promoted, notifies on its end, and jobs read/wait follow it",
  async () => {
    const { world, env } = await remoteJobsWorld();
    await using _world = world;
    await using remote = await tempDir("anchorfs-rjob-");
    await using s = await startJobsServer("v1", { window: 0.3, env });
    const r = await s.server.call("shell", {
      command: "echo begun; until [ -f go ]; do sleep 0.05; done; echo finished",
      cwd: `ssh://box${remote.path}`,
    });
    const id = jobIdOf(r.raw);
    assertStringIncludes(r.text, "still running as job");
    const read = await s.server.call("jobs", { action: "read", id });
    assertStringIncludes(read.text, "begun");
    await Deno.writeTextFile(`${remote.path}/go`, "");
    await s.updated(`anchorfs://jobs/${id}`);
    const done = await s.server.call("jobs", { action: "wait", id });
    assertStringIncludes(done.text, "succeeded (exit 0)");
    assertStringIncludes(done.text, "begun\nfinished");
  },
));

Deno.test(sshTest(
  "remote shell: kill takes the remote tree (group and escaped processes); duplicates are refused",
  async () => {
    const { world, env } = await remoteJobsWorld();
    await using _world = world;
    await using remote = await tempDir("anchorfs-rjob-");
    await using s = await startJobsServer("v2", { window: 0.3, env });
    const marker = uniqueMarker();
    const command =
      `sleep ${marker} & echo $! > a.pid; setsid sleep ${marker} & echo $! > b.pid; ` +
      "until false; do sleep 0.2; done";
    const cwd = `ssh://box${remote.path}`;
    const r = await s.server.call("shell", { command, cwd });
    const id = jobIdOf(r.raw);
    const started = () => {
      try {
        return Deno.readTextFileSync(`${remote.path}/b.pid`).trim() !== "";
      } catch {
        return false;
      }
    };
    assert(await eventually(started), "children did not start");
    const again = await s.server.call("shell", { command, cwd });
    assert(again.isError);
    assertStringIncludes(again.text, `as job ${id}`);
    const pids = [
      Number(await Deno.readTextFile(`${remote.path}/a.pid`)),
      Number(await Deno.readTextFile(`${remote.path}/b.pid`)),
    ];
    const killed = await s.server.call("jobs", { action: "kill", id });
    assertEquals(killed.isError, false, killed.text);
    assertStringIncludes(killed.text, `Killed job ${id}`);
    assertStringIncludes(killed.text, "sleep");
    assert(await eventually(() => pids.every((p) => !alive(p))), "a remote process survived kill");
    assertEquals((await readRecord(s.stateDir, id)).status, "killed");
  },
));

Deno.test(sshTest(
  "remote shell: output past the log cap is dropped, the tail kept, the job output_capped",
  async () => {
    const { world, env } = await remoteJobsWorld({ ANCHORFS_JOB_LOG_CAP: "200000" });
    await using _world = world;
    await using remote = await tempDir("anchorfs-rjob-");
    await using s = await startJobsServer("v2", { window: 20, env });
    const r = await s.server.call("shell", {
      command: "for i in $(seq 1 40000); do echo line-$i; done; echo the-end",
      cwd: `ssh://box${remote.path}`,
    });
    // Capped output is incomplete: an error result.
    assertEquals(r.isError, true, r.text);
    assertStringIncludes(r.text, "the-end");
    const id = r.text.match(/job (\d+-\d+)/)![1]!;
    const record = await readRecord(s.stateDir, id);
    assertEquals(record.status, "output_capped");
    assert(record.droppedBytes > 0);
    const size = (await Deno.stat(`${s.stateDir}/jobs/${id}/output.log`)).size;
    assert(size <= 200_000 + 1024, `log is ${size} bytes`);
  },
));

Deno.test(sshTest(
  "remote shell: a dropped connection makes the job lost with the reason; it is not rerun",
  async () => {
    const { world, env } = await remoteJobsWorld();
    await using _world = world;
    await using remote = await tempDir("anchorfs-rjob-");
    await using s = await startJobsServer("v2", { window: 0.3, env });
    const marker = uniqueMarker();
    const r = await s.server.call("shell", {
      command: `echo started >> runs.txt; sleep ${marker} & until false; do sleep 0.2; done`,
      cwd: `ssh://box${remote.path}`,
    });
    const id = jobIdOf(r.raw);
    // The command itself has run (the marker is in the wrapper's command line from the start).
    const ran = () => {
      try {
        return Deno.readTextFileSync(`${remote.path}/runs.txt`) === "started\n";
      } catch {
        return false;
      }
    };
    assert(await eventually(ran), "job did not start");
    assert(killSshdConnections(world.sshd.dir) > 0, "no ssh connection to drop");
    const ended = await eventually(() => {
      const text = Deno.readTextFileSync(`${s.stateDir}/jobs/${id}/record.json`);
      return JSON.parse(text).status !== "running";
    }, 30_000);
    const record = await readRecord(s.stateDir, id);
    assert(ended, JSON.stringify(record));
    assertEquals(record.status, "lost");
    assertStringIncludes(record.endReason, "dropped");
    assertStringIncludes(record.endReason, "not started again");
    const read = await s.server.call("jobs", { action: "read", id });
    // The server lives on: the status says what was lost, not that the server died.
    assertStringIncludes(read.text, "LOST: the connection to its host dropped");
    assert(!read.text.includes("its server died"), read.text);
    // What still ran there is stopped once the host is reachable again; it never ran twice.
    assert(
      await eventually(() => livePidsMatching(marker).length === 0),
      "remote job left running",
    );
    assertEquals(await Deno.readTextFile(`${remote.path}/runs.txt`), "started\n");
  },
));

Deno.test(sshTest(
  "remote shell: what the command leaves running ends with it, and the result says so",
  async () => {
    const { world, env } = await remoteJobsWorld();
    await using _world = world;
    await using remote = await tempDir("anchorfs-rjob-");
    await using s = await startJobsServer("v2", { window: 20, env });
    const marker = uniqueMarker();
    const r = await s.server.call("shell", {
      command: `sleep ${marker} & echo $! > left.pid; echo done`,
      cwd: `ssh://box${remote.path}`,
    });
    assertEquals(r.isError, false, r.text);
    assertStringIncludes(r.text, "done");
    const pid = Number(await Deno.readTextFile(`${remote.path}/left.pid`));
    assertLeftNamed(r.text, pid);
    assert(await eventually(() => !alive(pid)), "the left-behind process survived");
  },
));

/** Two servers on one state dir (two agent sessions), both able to reach `box`. */
async function twoServers(env: Record<string, string>) {
  const dir = await tempDir("anchorfs-rjob-local-");
  const state = await tempDir("anchorfs-rjob-state-");
  const args = ["--path", dir.path, "--state-dir", state.path, "--foreground-window", "0.3"];
  const first = await startServer({ client: "v2", args, env });
  const second = await startServer({ client: "v1", args, env });
  return {
    first,
    second,
    stateDir: state.path,
    async [Symbol.asyncDispose]() {
      await first.close();
      await second.close();
      await dir[Symbol.asyncDispose]();
      await state[Symbol.asyncDispose]();
    },
  };
}

/** A command that leaves a child in the group and one outside it (setsid), then loops. */
function escapingCommand(marker: string): string {
  return `sleep ${marker} & echo $! > a.pid; setsid sleep ${marker} & echo $! > b.pid; ` +
    "until false; do sleep 0.2; done";
}

/** The pids escapingCommand wrote, once both are there. */
function childPids(dir: string): number[] | undefined {
  try {
    const pids = ["a", "b"].map((n) => Number(Deno.readTextFileSync(`${dir}/${n}.pid`).trim()));
    return pids.every((p) => p > 0) ? pids : undefined;
  } catch {
    return undefined;
  }
}

Deno.test(sshTest(
  "remote shell: a kill from another server takes the remote group over its own connection",
  async () => {
    const { world, env } = await remoteJobsWorld();
    await using _world = world;
    await using remote = await tempDir("anchorfs-rjob-");
    await using servers = await twoServers(env);
    const { first, second } = servers;
    const marker = uniqueMarker();
    const r = await first.call("shell", {
      command: escapingCommand(marker),
      cwd: `ssh://box${remote.path}`,
    });
    const id = jobIdOf(r.raw);
    assert(await eventually(() => childPids(remote.path) !== undefined), "children did not start");
    const pids = childPids(remote.path)!;
    const leader = (await readRecord(servers.stateDir, id)).pid as number;
    assert(alive(leader));
    const sessions = await world.sshd.sessionCount();
    const killed = await second.call("jobs", { action: "kill", id });
    assertEquals(killed.isError, false, killed.text);
    // The second server reached the host itself (the processes are local only in this test).
    assert(await world.sshd.sessionCount() > sessions, "the second server never connected");
    assertStringIncludes(killed.text, `Killed job ${id}`);
    assertStringIncludes(killed.text, "sleep");
    // The shell, the child in its group and the one that left it are gone.
    assert(
      await eventually(() => [leader, ...pids].every((p) => !alive(p))),
      "a remote process survived a kill from another server",
    );
    // The server that started it saw its end and recorded the kill.
    assertStringIncludes(killed.text, "KILLED on request");
    assertEquals((await readRecord(servers.stateDir, id)).status, "killed");
    const read = await first.call("jobs", { action: "read", id });
    assertStringIncludes(read.text, "KILLED");
  },
));

Deno.test(sshTest(
  "remote shell: `anchorfs jobs kill` from a terminal stops another server's remote job",
  async () => {
    const { world, env } = await remoteJobsWorld();
    await using _world = world;
    await using remote = await tempDir("anchorfs-rjob-");
    await using s = await startJobsServer("v1", { window: 0.3, env });
    const marker = uniqueMarker();
    const r = await s.server.call("shell", {
      command: escapingCommand(marker),
      cwd: `ssh://box${remote.path}`,
    });
    const id = jobIdOf(r.raw);
    assert(await eventually(() => childPids(remote.path) !== undefined), "children did not start");
    const cli = await runCliProcess(["jobs", "kill", id, "--state-dir", s.stateDir], { env });
    assertEquals(cli.code, 0, cli.stderr);
    assertStringIncludes(cli.stdout, `Killed job ${id}`);
    assert(await eventually(() => livePidsMatching(marker).length === 0), "remote job survived");
    await s.updated(`anchorfs://jobs/${id}`);
    assertEquals((await readRecord(s.stateDir, id)).status, "killed");
  },
));

Deno.test(sshTest(
  "remote shell: kill -9 of the server ends its remote job there; the next server records it lost",
  async () => {
    const { world, env } = await remoteJobsWorld();
    await using _world = world;
    await using remote = await tempDir("anchorfs-rjob-");
    await using dir = await tempDir("anchorfs-rjob-local-");
    await using state = await tempDir("anchorfs-rjob-state-");
    const args = ["--path", dir.path, "--state-dir", state.path, "--foreground-window", "0.3"];
    const marker = uniqueMarker();
    let id: string;
    {
      await using doomed = await startServer({ client: "v2", args, env });
      // A quiet job (nothing to write, so no SIGPIPE would end it) with a child that left its
      // group: only the job's own sweep on the host ends that one.
      const r = await doomed.call("shell", {
        command: escapingCommand(marker),
        cwd: `ssh://box${remote.path}`,
      });
      id = jobIdOf(r.raw);
      assert(
        await eventually(() => childPids(remote.path) !== undefined),
        "children did not start",
      );
      Deno.kill(doomed.pid!, "SIGKILL");
      // Nothing of the job outlives its connection on the host.
      assert(
        await eventually(() => livePidsMatching(marker).length === 0),
        "the remote job kept running after its server was killed",
      );
    }
    // No one recorded an end: the record still says running until someone reads it.
    assertEquals((await readRecord(state.path, id)).status, "running");
    await using next = await startServer({ client: "v1", args, env });
    const read = await next.call("jobs", { action: "read", id });
    assertStringIncludes(read.text.toLowerCase(), "lost");
    const record = await readRecord(state.path, id);
    assertEquals(record.status, "lost");
    assertStringIncludes(record.endReason, "ended without recording an end");
    // It never ran twice.
    assertEquals(livePidsMatching(marker).length, 0);
  },
));

/** Parent pid and state of a process, from /proc. */
function statOf(pid: number): { ppid: number; state: string } | undefined {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { ppid: Number(rest[1]), state: rest[0]! };
  } catch {
    return undefined;
  }
}

Deno.test(sshTest(
  "remote shell: a restarted server stops a dead server's remote job that still runs, over its own connection",
  async () => {
    const { world, env } = await remoteJobsWorld();
    await using _world = world;
    await using remote = await tempDir("anchorfs-rjob-");
    await using dir = await tempDir("anchorfs-rjob-local-");
    await using state = await tempDir("anchorfs-rjob-state-");
    const args = ["--path", dir.path, "--state-dir", state.path, "--foreground-window", "0.3"];
    const marker = uniqueMarker();
    let id: string;
    {
      await using doomed = await startServer({ client: "v2", args, env });
      const r = await doomed.call("shell", {
        command: escapingCommand(marker),
        cwd: `ssh://box${remote.path}`,
      });
      id = jobIdOf(r.raw);
      assert(await eventually(() => childPids(remote.path) !== undefined), "job did not start");
      // Take away the host-side watcher (as if the host had not noticed the connection end):
      // the wrapper's other children besides the job's shell.
      const leader = (await readRecord(state.path, id)).pid as number;
      const wrapper = statOf(leader)!.ppid;
      const watchers = [...Deno.readDirSync("/proc")].map((e) => Number(e.name))
        .filter((pid) => pid !== leader && statOf(pid)?.ppid === wrapper);
      assertEquals(watchers.length, 1, `children of the wrapper ${wrapper}: ${watchers}`);
      Deno.kill(watchers[0]!, "SIGKILL");
      Deno.kill(doomed.pid!, "SIGKILL");
    }
    const pids = childPids(remote.path)!;
    await new Promise((r) => setTimeout(r, 300));
    assert(pids.every(alive), "the job ended without its watcher");
    // The next server's start-up sweep reaches the host, ends the job there, records it lost.
    await using next = await startServer({ client: "v1", args, env });
    assert(await eventually(() => pids.every((p) => !alive(p))), "the remote job survived");
    assert(
      await eventually(() => {
        const text = Deno.readTextFileSync(`${state.path}/jobs/${id}/record.json`);
        return JSON.parse(text).status === "lost";
      }),
      "the record was not marked lost",
    );
    const record = await readRecord(state.path, id);
    assertStringIncludes(record.endReason, "ended without recording an end");
    assertStringIncludes(record.endReason, `still running on ${record.host}`);
    assertStringIncludes(record.endReason, "sleep");
    const read = await next.call("jobs", { action: "read", id });
    assertStringIncludes(read.text.toLowerCase(), "lost");
  },
));

Deno.test(sshTest(
  "agent jobs (HTTP sessions): a job started through one agent's view runs on the host",
  async () => {
    const { world } = await remoteJobsWorld();
    await using _world = world;
    await using remote = await tempDir("anchorfs-rjob-");
    await using state = await tempDir("anchorfs-rjob-state-");
    const pool = world.pool();
    const jobs = new JobManager(localProcessRunner, {
      store: new DiskJobStore(state.path, Deno.pid),
      pid: Deno.pid,
      killGraceMs: 500,
    });
    try {
      const host = await pool.open({ host: "box" });
      const view = scopeJobs(jobs).view;
      const url = `ssh://box${remote.path}`;
      const record = await view.start(
        host,
        { path: remote.path, url },
        "pwd; echo on-host > here.txt",
      );
      assertEquals(record.cwd, url);
      assertEquals(record.host, host.jobs.description);
      const { record: ended } = await view.wait(record.id, 20_000);
      assertEquals(ended.status, "succeeded", JSON.stringify(ended));
      assertEquals(await Deno.readTextFile(`${remote.path}/here.txt`), "on-host\n");
    } finally {
      await jobs.shutdown();
      await pool.close();
    }
  },
));

Deno.test(sshTest(
  "remote shell: a kill from elsewhere that cannot reach the host says so; the job runs on",
  async () => {
    const { world, env } = await remoteJobsWorld();
    await using _world = world;
    await using remote = await tempDir("anchorfs-rjob-");
    await using s = await startJobsServer("v1", { window: 0.3, env });
    const marker = uniqueMarker();
    const r = await s.server.call("shell", {
      command: escapingCommand(marker),
      cwd: `ssh://box${remote.path}`,
    });
    const id = jobIdOf(r.raw);
    assert(await eventually(() => childPids(remote.path) !== undefined), "job did not start");
    // A terminal whose ssh config sends `box` to a port where nothing listens.
    await using elsewhere = await tempDir("anchorfs-home-");
    await Deno.mkdir(`${elsewhere.path}/.ssh`, { mode: 0o700 });
    const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (closed.addr as Deno.NetAddr).port;
    closed.close();
    await Deno.writeTextFile(
      `${elsewhere.path}/.ssh/config`,
      `Host box\n  HostName 127.0.0.1\n  Port ${port}\n`,
    );
    const cli = await runCliProcess(["jobs", "kill", id, "--state-dir", s.stateDir], {
      env: { ...env, HOME: elsewhere.path },
    });
    assert(cli.code !== 0, cli.stdout);
    assertStringIncludes(cli.stderr, `Could not stop job ${id}`);
    assertStringIncludes(cli.stderr, "could not reach it");
    assertStringIncludes(cli.stderr, `anchorfs jobs kill ${id}`);
    assert(!cli.stderr.includes(".."), cli.stderr);
    // Nothing was touched: the job still runs, and its own server can still stop it.
    assert(livePidsMatching(marker).length >= 2, "the job ended");
    assertEquals((await readRecord(s.stateDir, id)).status, "running");
    const killed = await s.server.call("jobs", { action: "kill", id });
    assertStringIncludes(killed.text, "KILLED on request");
    assert(await eventually(() => livePidsMatching(marker).length === 0), "remote job survived");
  },
));

Deno.test(sshTest(
  "remote shell: a file too big to view suggests shell calls that run on its host, path quoted",
  async () => {
    const { world, env } = await remoteJobsWorld();
    await using _world = world;
    await using remote = await tempDir("anchorfs-rjob-");
    await Deno.mkdir(`${remote.path}/app's logs`);
    const file = `${remote.path}/app's logs/big run.log`;
    await Deno.writeTextFile(file, "x".repeat(59) + "\n" + "step 3: FAIL\n".repeat(10_000));
    await using s = await startJobsServer("v2", {
      window: 60,
      env,
      args: ["--max-file-bytes", "64K"],
    });
    const view = await s.server.call("view", { path: `ssh://box${file}` });
    assertEquals(view.isError, true, view.text);
    // Every suggested shell call runs on the host, in the file's directory there.
    const calls = [...view.text.matchAll(/shell (\{.*?\})(?=[;,. ]|$)/gm)].map((m) =>
      JSON.parse(m[1]!)
    );
    assert(calls.length >= 2, view.text);
    for (const call of calls) {
      assertEquals(call.cwd, `ssh://box${remote.path}/app's logs`);
      // The path word, as the host's shell reads it there, names the file (wc stands in for
      // grep and sed, which the shell policy refuses on their own).
      const word = (call.command as string).replace(
        /^(grep -n -m 100 -e TEXT|sed -n '1,200p') /,
        "",
      );
      assert(word !== call.command, call.command);
      const ran = await s.server.call("shell", { command: `wc -c < ${word}`, cwd: call.cwd });
      assertEquals(ran.isError, false, `${JSON.stringify(call)}: ${ran.text}`);
      assertStringIncludes(ran.text, String((await Deno.stat(file)).size));
    }
  },
));

/**
 * A host whose sessions all carry ANCHORFS_NO_PROC=1 (sshd's SetEnv): the remote side finds a
 * job's processes with ps, as on a host without /proc. Linux hosts are all this suite has, and
 * ps on Linux reads /proc itself, so hiding /proc is not possible: the variable is the switch.
 * Set in sshd_config, it reaches every session the server and the CLI open, unchanged code.
 */
async function psOnlyWorld() {
  const world = await createSshWorld({
    config: (port) => `Host box\n  HostName 127.0.0.1\n  Port ${port}\n`,
    sshdConfig: [`SetEnv ${NO_PROC_VAR}=1`],
  });
  return { world, env: world.env({ SSH_AUTH_SOCK: "" }) };
}

Deno.test(sshTest(
  "remote shell without /proc (ps): a kill takes the group and the process that left it",
  async () => {
    const { world, env } = await psOnlyWorld();
    await using _world = world;
    await using remote = await tempDir("anchorfs-rjob-");
    await using s = await startJobsServer("v1", { window: 0.3, env });
    const marker = uniqueMarker();
    const r = await s.server.call("shell", {
      command: `echo "no proc: $${NO_PROC_VAR}" > switch.txt; ${escapingCommand(marker)}`,
      cwd: `ssh://box${remote.path}`,
    });
    const id = jobIdOf(r.raw);
    assert(await eventually(() => childPids(remote.path) !== undefined), "children did not start");
    // The switch reached the host side.
    assertEquals(await Deno.readTextFile(`${remote.path}/switch.txt`), "no proc: 1\n");
    const [inGroup, escaped] = childPids(remote.path)!;
    assert(statOf(escaped!)!.state !== "Z" && alive(inGroup!));
    const killed = await s.server.call("jobs", { action: "kill", id });
    assertEquals(killed.isError, false, killed.text);
    assertStringIncludes(killed.text, `Killed job ${id}`);
    assert(
      await eventually(() => !alive(inGroup!) && !alive(escaped!)),
      `a process survived the kill: ${killed.text}`,
    );
    assertEquals(livePidsMatching(marker).length, 0);
  },
));

Deno.test(sshTest(
  "remote shell without /proc (ps): what a finished command left running is ended and named",
  async () => {
    const { world, env } = await psOnlyWorld();
    await using _world = world;
    await using remote = await tempDir("anchorfs-rjob-");
    await using s = await startJobsServer("v2", { window: 20, env });
    const marker = uniqueMarker();
    // A double fork out of the group: the job's shell ends, its grandchild runs on.
    const r = await s.server.call("shell", {
      command: `(setsid sleep ${marker} & echo $! > left.pid) ; echo started`,
      cwd: `ssh://box${remote.path}`,
    });
    assertEquals(r.isError, false, r.text);
    const pid = Number(await Deno.readTextFile(`${remote.path}/left.pid`));
    assertLeftNamed(r.text, pid);
    assert(await eventually(() => !alive(pid)), "the left-behind process survived");
    assertEquals(livePidsMatching(marker).length, 0);
  },
));

Deno.test(sshTest(
  "remote shell: the grep a FILE_TOO_LARGE hint names for an ssh:// file runs on that host",
  async () => {
    const { world, env } = await remoteJobsWorld();
    await using _world = world;
    await using remote = await tempDir("anchorfs-rjob-");
    await Deno.writeTextFile(`${remote.path}/big log.txt`, "x\n".repeat(1000) + "needle TEXT\n");
    await using s = await startJobsServer("v2", {
      window: 20,
      env,
      args: ["--max-file-bytes", "1K"],
    });
    const view = await s.server.call("view", { path: `ssh://box${remote.path}/big log.txt` });
    assert(view.isError, view.text);
    const call = /shell (\{"command":"grep[^}]*\})/.exec(view.text)?.[1];
    assert(call, `a grep call in the hint: ${view.text}`);
    const args = JSON.parse(call);
    assertEquals(args.cwd, `ssh://box${remote.path}`);
    const grep = await s.server.call("shell", args);
    assertEquals(grep.isError, false, grep.text);
    assertStringIncludes(grep.text, "1001:needle TEXT");
  },
));
