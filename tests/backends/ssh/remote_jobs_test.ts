// Jobs on ssh:// hosts through the real server, against a private sshd on 127.0.0.1 (so the
// "remote" processes are visible here too, which lets the tests check what a kill left alive):
// a short command, promotion with its notification, a kill that takes the remote tree (also what
// left the group), the duplicate guard, the log cap, and a dropped connection → lost, not rerun.

import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { tempDir } from "../../_harness.ts";
import {
  eventually,
  jobIdOf,
  livePidsMatching,
  startJobsServer,
  uniqueMarker,
} from "../../mcp/_jobs_helpers.ts";
import { createSshWorld } from "./_sshd.ts";
import { testNeeding } from "../../_requires.ts";

const sshTest = testNeeding("sshd", "bash");

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

sshTest(
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
);

sshTest(
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
);

sshTest(
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
);

sshTest(
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
);

sshTest(
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
    assert(await eventually(() => livePidsMatching(marker).length >= 1), "job did not start");
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
    assertStringIncludes(read.text.toLowerCase(), "lost");
    // What still ran there is stopped once the host is reachable again; it never ran twice.
    assert(
      await eventually(() => livePidsMatching(marker).length === 0),
      "remote job left running",
    );
    assertEquals(await Deno.readTextFile(`${remote.path}/runs.txt`), "started\n");
  },
);

sshTest(
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
    assertStringIncludes(r.text, "left 1 process (sleep");
    const pid = Number(await Deno.readTextFile(`${remote.path}/left.pid`));
    assert(await eventually(() => !alive(pid)), "the left-behind process survived");
  },
);
