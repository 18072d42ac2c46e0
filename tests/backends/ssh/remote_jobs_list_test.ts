// `anchorfs jobs list` with remote jobs of a dead server (whose hosts must be reached to settle
// them) on three hosts: the real sshd, a port that accepts and never speaks, and a closed port.
// The listing asks every host at once, briefly: the local job and the reachable host's job are
// settled, the others are listed as recorded, marked with why and when, and the call to retry.
// The records are written as a killed server leaves them (its pid is gone).

import { shellQuote } from "../../../lib/core/shell/shell_quote.ts";
import { assertEquals, assertMatch, assertStringIncludes } from "../../_assert.ts";
import { runCliProcess, tempDir } from "../../_harness.ts";
import { createSshWorld } from "./_sshd.ts";
import { needing } from "../../_requires.ts";
import { DiskJobStore } from "../../../lib/backends/local/disk_job_store.ts";
import { type JobRecord, startRecord } from "../../../lib/core/jobs/job_state.ts";
import { JobManager } from "../../../lib/ops/jobs/job_manager.ts";
import { localProcessRunner } from "../../../lib/backends/local/process_runner.ts";
import { Locations } from "../../../lib/ops/location.ts";
import { MemoryBackend } from "../../../lib/backends/memory/memory_backend.ts";

const sshTest = needing("sshd");

/** A pid no process has any more (a child that has exited and been reaped). */
async function deadPid(): Promise<number> {
  const child = new Deno.Command("true").spawn();
  await child.status;
  return child.pid;
}

/** A port that accepts connections and never sends a byte (a host that hangs). */
function silentPort(): { port: number } & Disposable {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  (async () => {
    for await (const conn of listener) held.push(conn);
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    [Symbol.dispose]() {
      for (const conn of held) conn.close();
      listener.close();
    },
  };
}

function closedPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Writes records of a dead server into a disk store, as a killed server leaves them. */
async function deadServerStore(stateDir: string) {
  const serverPid = await deadPid();
  const store = new DiskJobStore(stateDir, serverPid);
  const record = async (n: number, fields: Partial<JobRecord>) => {
    const id = `${serverPid}-${n}`;
    await store.reserve(id);
    const start = startRecord({
      id,
      command: `make part${n}`,
      cwd: "/tmp",
      pid: 999_999,
      cookie: `0123456789abcdef/${id}`,
      serverPid,
      startedAt: Date.now() - 60_000 + n,
      logCapBytes: 1024,
    });
    await store.write({ ...start, ...fields });
    return id;
  };
  return { store, record };
}

function hostsConfig(sshdPort: number, silentPort: number, closed: number): string {
  return `Host box\n  HostName 127.0.0.1\n  Port ${sshdPort}\n` +
    `Host hang\n  HostName 127.0.0.1\n  Port ${silentPort}\n` +
    `Host shut\n  HostName 127.0.0.1\n  Port ${closed}\n`;
}

Deno.test(sshTest(
  "anchorfs jobs list does not wait for hosts that do not answer: it marks their jobs and exits",
  async () => {
    using silent = silentPort();
    const closed = closedPort();
    const world = await createSshWorld({
      config: (port) => hostsConfig(port, silent.port, closed),
    });
    await using _world = world;
    await using state = await tempDir("anchorfs-rjob-state-");
    const { store, record } = await deadServerStore(state.path);
    const local = await record(1, { status: "succeeded", exitCode: 0, endedAt: Date.now() });
    const onHang = await record(3, { cwd: "ssh://hang/srv", host: "hang" });
    const onShut = await record(4, { cwd: "ssh://shut/srv", host: "shut" });

    // The connect to `hang` is still in progress when the listing is printed: the CLI gives it
    // up and exits (--ssh-timeout is 30 s here; waiting it out would list the job as lost).
    const cli = await runCliProcess(["jobs", "list", "--state-dir", state.path], {
      env: world.env({ SSH_AUTH_SOCK: "" }),
    });
    assertEquals(cli.code, 0, cli.stderr);
    const row = (id: string) => cli.stdout.split("\n").find((l) => l.startsWith(`${id} `)) ?? "";
    assertStringIncludes(row(local), "succeeded");
    assertMatch(
      row(onHang),
      /running .*\[host unreachable: no answer within 3\.0s \(checked \d\d:\d\d:\d\d UTC\); .*retry with `anchorfs jobs tail \d+-3 --state-dir [^`]+`\]$/,
    );
    assertMatch(row(onShut), /\[host unreachable: Cannot connect to .*refused/);
    // The retry reads the same state dir as this listing.
    assertStringIncludes(
      row(onShut),
      `retry with \`anchorfs jobs tail ${onShut} --state-dir ${shellQuote(state.path)}\``,
    );
    // Listing changed nothing it could not check.
    for (const id of [onHang, onShut]) assertEquals((await store.read(id))?.status, "running");
  },
));

Deno.test(sshTest(
  "jobs list settles a reachable host's job while another host does not answer",
  async () => {
    using silent = silentPort();
    const world = await createSshWorld({
      config: (port) => hostsConfig(port, silent.port, closedPort()),
    });
    await using _world = world;
    await using state = await tempDir("anchorfs-rjob-state-");
    const { store, record } = await deadServerStore(state.path);
    const onBox = await record(2, {
      cwd: "ssh://box/tmp",
      host: `"box" (${world.user}@127.0.0.1:${world.sshd.port})`,
    });
    const onHang = await record(3, { cwd: "ssh://hang/srv", host: "hang" });
    const pool = world.pool({ timeoutSeconds: 600 });
    const jobs = new JobManager(localProcessRunner, {
      store,
      pid: Deno.pid,
      killGraceMs: 500,
      hosts: new Locations(new MemoryBackend(), pool),
    });
    try {
      // Connected before the listing: however slow this machine is, box answers its probe.
      await pool.openSftp({ host: "box" });
      const listed = await jobs.list();
      const byId = new Map(listed.map((r) => [r.id, r]));
      assertEquals(byId.get(onBox)?.status, "lost");
      assertEquals(byId.get(onBox)?.unreachable, undefined);
      assertEquals(byId.get(onHang)?.status, "running");
      assertEquals(byId.get(onHang)?.unreachable?.reason, "no answer within 3.0s");
      assertEquals((await store.read(onBox))?.status, "lost");
    } finally {
      await jobs.shutdown();
      // Gives up the connect to `hang` still in progress (no timer or socket is left behind).
      await pool.close();
    }
  },
));
