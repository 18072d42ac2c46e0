// Jobs on ssh:// hosts at their edges, through the real server against a private sshd: more
// jobs than the host lets one connection carry (OpenSSH's MaxSessions), children that shed the
// job's cookie, a process that keeps the job's output open after its shell ended, and the shell
// policy's suggested calls for a command refused in an ssh:// directory.

import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { tempDir } from "../../_harness.ts";
import {
  eventually,
  jobIdOf,
  livePidsMatching,
  pathExists,
  startJobsServer,
  uniqueMarker,
} from "../../mcp/_jobs_helpers.ts";
import { createSshWorld } from "./_sshd.ts";
import { needing } from "../../_requires.ts";
import { NO_BASH_NOTE, NO_PROC_VAR } from "../../../lib/backends/ssh/remote_job_runner.ts";
import { NO_CGROUP_VAR } from "../../../lib/backends/ssh/remote_cgroup.ts";

const sshTest = needing("sshd", "bash", "proc");
/** The host without bash is a PATH of symlinks. */
const sshFsTest = needing("sshd", "bash", "proc", "posix-fs");

async function remoteWorld(
  options: { maxSessions?: number; noProc?: boolean; noCgroup?: boolean } = {},
) {
  const sshdConfig = [
    // The ps path, as on a host without /proc (see remote_jobs_test.ts).
    ...(options.noProc ? [`SetEnv ${NO_PROC_VAR}=1`] : []),
    // A host where the account cannot make cgroups (this sshd runs as root, which can).
    ...(options.noCgroup ? [`SetEnv ${NO_CGROUP_VAR}=1`] : []),
  ];
  const world = await createSshWorld({
    config: (port) => `Host box\n  HostName 127.0.0.1\n  Port ${port}\n`,
    ...(options.maxSessions !== undefined && { maxSessions: options.maxSessions }),
    ...(sshdConfig.length > 0 && { sshdConfig }),
  });
  return { world, env: world.env({ SSH_AUTH_SOCK: "" }) };
}

async function readRecord(stateDir: string, id: string) {
  return JSON.parse(await Deno.readTextFile(`${stateDir}/jobs/${id}/record.json`));
}

/** SIGKILL to every process whose command line holds `marker` (a test's own cleanup). */
function killMatching(marker: string): void {
  for (const pid of livePidsMatching(marker)) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch { /* gone */ }
  }
}

Deno.test(sshTest(
  "remote shell: more jobs than the host's MaxSessions run at once; kill, view and the rest go on",
  async () => {
    // OpenSSH's default: 10 channels per connection. The file tools hold two (SFTP, helper).
    const { world, env } = await remoteWorld({ maxSessions: 10 });
    await using _world = world;
    await using remote = await tempDir("anchorfs-rjob-");
    await using s = await startJobsServer("v2", { window: 0.3, env });
    const cwd = `ssh://box${remote.path}`;
    const listed = await s.server.call("view", { path: cwd });
    assertEquals(listed.isError, false, listed.text);
    const marker = uniqueMarker();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        s.server.call("shell", {
          command: `echo job${i}; until [ -f stop ]; do sleep 0.1; done; : ${marker}`,
          cwd,
        })),
    );
    for (const r of results) assertStringIncludes(r.text, "still running as job");
    const ids = results.map((r) => jobIdOf(r.raw));
    // A kill needs a channel of its own, with every one of the first connection's taken.
    const killed = await s.server.call("jobs", { action: "kill", id: ids[0]! });
    assertEquals(killed.isError, false, killed.text);
    assertStringIncludes(killed.text, `Killed job ${ids[0]}`);
    assertEquals((await readRecord(s.stateDir, ids[0]!)).status, "killed");
    // The file tools still work, and no other job was touched.
    await Deno.writeTextFile(`${remote.path}/note.txt`, "still here\n");
    const view = await s.server.call("view", { path: `${cwd}/note.txt` });
    assertStringIncludes(view.text, "still here");
    for (const id of ids.slice(1)) {
      assertEquals((await readRecord(s.stateDir, id)).status, "running", id);
    }
    await Deno.writeTextFile(`${remote.path}/stop`, "");
    for (const [i, id] of ids.slice(1).entries()) {
      const done = await s.server.call("jobs", { action: "wait", id, timeout_seconds: 30 });
      assertStringIncludes(done.text, "succeeded (exit 0)");
      assertStringIncludes(done.text, `job${i + 1}`);
    }
    assert(await eventually(() => livePidsMatching(marker).length === 0), "a job survived");
  },
));

for (const noProc of [false, true]) {
  Deno.test(sshTest(
    `remote shell${noProc ? " without /proc (ps)" : ""}: a kill takes children that dropped ` +
      "the cookie and left the group",
    async () => {
      const { world, env } = await remoteWorld({ noProc });
      await using _world = world;
      await using remote = await tempDir("anchorfs-rjob-");
      await using s = await startJobsServer("v1", { window: 0.3, env });
      const marker = uniqueMarker();
      try {
        // Both are the job shell's children (found through it, as locally), neither carries the
        // cookie, both lead sessions of their own.
        const r = await s.server.call("shell", {
          command: `env -u ANCHORFS_JOB setsid sh -c 'while :; do sleep ${marker}; done' & ` +
            `env -i setsid sh -c 'while :; do sleep ${marker}; done' & ` +
            "echo started; until false; do sleep 0.2; done",
          cwd: `ssh://box${remote.path}`,
        });
        const id = jobIdOf(r.raw);
        assert(await eventually(() => livePidsMatching(marker).length >= 4), "children missing");
        const killed = await s.server.call("jobs", { action: "kill", id });
        assertEquals(killed.isError, false, killed.text);
        assertStringIncludes(killed.text, "KILLED on request");
        assert(
          await eventually(() => livePidsMatching(marker).length === 0),
          `left running: ${livePidsMatching(marker)}`,
        );
      } finally {
        killMatching(marker);
      }
    },
  ));
}

Deno.test(sshTest(
  "remote shell: a process the job cannot recognise holding its output does not keep it running",
  async () => {
    // The limit exists only where the host gives the job no cgroup.
    const { world, env } = await remoteWorld({ noCgroup: true });
    await using _world = world;
    await using remote = await tempDir("anchorfs-rjob-");
    await using s = await startJobsServer("v2", { window: 30, env });
    const marker = uniqueMarker();
    try {
      // The documented limit: no cookie, its own session, and its parent gone. It still holds
      // the channel's stdout, so sshd never closes the channel.
      const r = await s.server.call("shell", {
        command: `(env -i setsid sh -c 'while :; do sleep ${marker}; done' &); echo finished`,
        cwd: `ssh://box${remote.path}`,
      });
      assertEquals(r.isError, false, r.text);
      assertStringIncludes(r.text, "succeeded (exit 0)");
      assertStringIncludes(r.text, "finished");
      const id = r.text.match(/job (\d+-\d+)/)![1]!;
      const record = await readRecord(s.stateDir, id);
      assertEquals(record.status, "succeeded");
      assertStringIncludes(record.endReason ?? "", "output was still held open on the host");
      assertStringIncludes(record.containment, "process tree on the host");
      assert(livePidsMatching(marker).length > 0, "the stray process is the limit under test");
    } finally {
      killMatching(marker);
    }
  },
));

Deno.test(sshTest(
  "remote shell: where the host gives the job a cgroup, the same stray process ends with the job",
  async () => {
    const { world, env } = await remoteWorld();
    await using _world = world;
    await using remote = await tempDir("anchorfs-rjob-");
    await using s = await startJobsServer("v2", { window: 30, env });
    const marker = uniqueMarker();
    try {
      // No cookie, its own session, its parent gone, writing into the job's output: only its
      // cgroup ties it to the job.
      const r = await s.server.call("shell", {
        command: `(env -i setsid sh -c 'while :; do echo ${marker}; sleep 0.05; done' &); ` +
          "for i in 1 2 3; do sleep 0.1; done; echo finished",
        cwd: `ssh://box${remote.path}`,
      });
      assertEquals(r.isError, false, r.text);
      assertStringIncludes(r.text, "finished");
      const id = r.text.match(/job (\d+-\d+)/)![1]!;
      const record = await readRecord(s.stateDir, id);
      assertEquals(record.status, "succeeded");
      // Its cgroup tied it to the job: terminated with the leftovers, not left holding the output.
      assert(!(record.endReason ?? "").includes("held open"), record.endReason);
      assertStringIncludes(record.endReason ?? "", "which were terminated");
      assert(await eventually(() => livePidsMatching(marker).length === 0), "the stray survived");
      assertStringIncludes(record.containment, "cgroup v2 on the host (");
      // Nothing reaches the log after the end, and the job's cgroup is gone from the host.
      const log = `${s.stateDir}/jobs/${id}/output.log`;
      const size = (await Deno.stat(log)).size;
      await new Promise((r) => setTimeout(r, 300));
      assertEquals((await Deno.stat(log)).size, size);
      const cgroup = /\((\/[^)]*)\)/.exec(record.containment)![1]!;
      assert(!pathExists(cgroup), `${cgroup} is still there`);
    } finally {
      killMatching(marker);
    }
  },
));

Deno.test(sshTest(
  "remote shell: a refused read names the file on the host (ssh:// paths), not a local path",
  async () => {
    const { world, env } = await remoteWorld();
    await using _world = world;
    await using remote = await tempDir("anchorfs-rjob-");
    await Deno.writeTextFile(`${remote.path}/notes.txt`, "remote notes\n");
    await using s = await startJobsServer("v1", { window: 20, env });
    const cwd = `ssh://box${remote.path}`;
    const relative = await s.server.call("shell", { command: "cat notes.txt", cwd });
    assert(relative.isError, relative.text);
    assertStringIncludes(relative.text, `view {"path": "ssh://box${remote.path}/notes.txt"}`);
    const absolute = await s.server.call("shell", { command: "cat /etc/hostname", cwd });
    assertStringIncludes(absolute.text, `view {"path": "ssh://box/etc/hostname"}`);
    // The suggested call reads the host's file.
    const view = await s.server.call("view", { path: `ssh://box${remote.path}/notes.txt` });
    assertStringIncludes(view.text, "remote notes");
  },
));

Deno.test(sshFsTest(
  "remote shell on a host without bash: the command runs with sh, and the log says so first",
  async () => {
    // A PATH (sshd's SetEnv) with what the job's wrapper uses, but no bash.
    await using bin = await tempDir("anchorfs-shonly-");
    const tools = ["sh", "setsid", "id", "mkdir", "chmod", "cat", "awk", "grep", "sort", "sed"];
    for (const tool of [...tools, "ps", "sleep", "rm", "env", "tr", "kill"]) {
      const out = new Deno.Command("sh", { args: ["-c", `command -v ${tool}`], stdout: "piped" })
        .outputSync();
      const path = new TextDecoder().decode(out.stdout).trim();
      if (path.startsWith("/")) await Deno.symlink(path, `${bin.path}/${tool}`);
    }
    const world = await createSshWorld({
      config: (port) => `Host box\n  HostName 127.0.0.1\n  Port ${port}\n`,
      sshdConfig: [`SetEnv PATH=${bin.path}`],
    });
    await using _world = world;
    await using remote = await tempDir("anchorfs-rjob-");
    await using s = await startJobsServer("v2", {
      window: 20,
      env: world.env({ SSH_AUTH_SOCK: "" }),
    });
    const r = await s.server.call("shell", {
      command: 'echo "bash=${BASH_VERSION:-none}"; [[ 1 == 1 ]]',
      cwd: `ssh://box${remote.path}`,
    });
    assertEquals(r.isError, true, r.text);
    assertStringIncludes(r.text, "bash=none");
    assertStringIncludes(r.text, NO_BASH_NOTE);
    assertStringIncludes(r.text, "[[: not found");
  },
));

Deno.test(sshTest(
  "remote shell: a job lost with its host unreachable says so, and a later kill stops it there",
  async () => {
    const { world, env } = await remoteWorld();
    await using _world = world;
    await using remote = await tempDir("anchorfs-rjob-");
    await using s = await startJobsServer("v2", { window: 0.3, env, args: ["--ssh-timeout", "2"] });
    const listener = Number(Deno.readTextFileSync(`${world.sshd.dir}/sshd.pid`).trim());
    const marker = uniqueMarker();
    try {
      const r = await s.server.call("shell", {
        command: `sleep ${marker} & until false; do sleep 0.2; done`,
        cwd: `ssh://box${remote.path}`,
      });
      const id = jobIdOf(r.raw);
      assert(await eventually(() => livePidsMatching(marker).length > 0), "job did not start");
      // New connections hang (the listener is stopped), then the job's connection is cut.
      Deno.kill(listener, "SIGSTOP");
      assert(await world.sshd.killSessions() > 0);
      const read = await s.server.call("jobs", { action: "wait", id, timeout_seconds: 30 });
      assertStringIncludes(read.text, "LOST: the connection to its host dropped");
      const record = await readRecord(s.stateDir, id);
      assertStringIncludes(record.endReason, "the host could not be reached to stop");
      assertStringIncludes(record.endReason, "killing this job stops that");
      Deno.kill(listener, "SIGCONT");
      // Here the host noticed the cut (its sshd session ended): the job's watcher ended it.
      assert(await eventually(() => livePidsMatching(marker).length === 0), "job left running");
      const killed = await s.server.call("jobs", { action: "kill", id });
      assertEquals(killed.isError, false, killed.text);
      assertStringIncludes(killed.text, "No process of it is left");
    } finally {
      try {
        Deno.kill(listener, "SIGCONT");
      } catch { /* gone */ }
      killMatching(marker);
    }
  },
));
