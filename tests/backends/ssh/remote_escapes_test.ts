// The escape table of tests/faults/escapes_test.ts for jobs on an ssh:// host, against a real
// sshd on 127.0.0.1 (its sessions run as root here, so the job gets a cgroup v2 on the host): one
// job holding every escape, ended by `jobs kill`, by its shell's end, by SIGTERM to the server,
// and by a server `kill -9` followed by a restart; no process survives on the host and nothing
// reaches the log after the terminal status. Skipped, with the reason, where this machine gives
// no cgroup v2 (the host is this machine).

import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { startServer, tempDir, type TestServer } from "../../_harness.ts";
import {
  eventually,
  livePidsMatching,
  pathExists,
  processAlive,
  uniqueMarker,
} from "../../mcp/_jobs_helpers.ts";
import { createSshWorld } from "./_sshd.ts";
import { needing } from "../../_requires.ts";
import { ESCAPES, escapesCommand } from "../../faults/_escapes.ts";

const needs = needing("sshd", "bash", "proc", "signals", "cgroup-v2");

type EndPath = "kill" | "end" | "server SIGTERM" | "server kill -9 + restart";

function readRecord(stateDir: string, id: string) {
  return JSON.parse(Deno.readTextFileSync(`${stateDir}/jobs/${id}/record.json`));
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

/** Ends the job by `path`; the server that reads its end last (the restarted one after -9). */
async function endBy(
  path: EndPath,
  server: TestServer,
  id: string,
  start: () => Promise<TestServer>,
) {
  if (path === "kill") await server.call("jobs", { action: "kill", id });
  if (path === "server SIGTERM") Deno.kill(server.pid!, "SIGTERM");
  if (path !== "server kill -9 + restart") return undefined;
  Deno.kill(server.pid!, "SIGKILL");
  await eventually(() => !processAlive(server.pid!));
  const next = await start();
  await next.call("jobs", { action: "read", id });
  return next;
}

for (const path of ["kill", "end", "server SIGTERM", "server kill -9 + restart"] as const) {
  Deno.test(
    needs(
      `remote escapes: ${path} leaves no process on the host and no byte after the end`,
      async () => {
        const world = await createSshWorld({
          config: (port) => `Host box\n  HostName 127.0.0.1\n  Port ${port}\n`,
        });
        await using _world = world;
        const env = world.env({ SSH_AUTH_SOCK: "" });
        await using remote = await tempDir("anchorfs-rescape-");
        await using local = await tempDir("anchorfs-rescape-local-");
        await using state = await tempDir("anchorfs-rescape-state-");
        const args = [
          "--path",
          local.path,
          "--state-dir",
          state.path,
          "--foreground-window",
          "0.3",
        ];
        const start = () => startServer({ client: "v2", args, env });
        const server = await start();
        let next: TestServer | undefined;
        const markers = Object.fromEntries(Object.keys(ESCAPES).map((n) => [n, uniqueMarker()]));
        try {
          const { command, readies } = escapesCommand(markers, remote.path, path === "end");
          const r = await server.call("shell", { command, cwd: `ssh://box${remote.path}` });
          const id = /job (\d+-\d+)/.exec(r.text)?.[1];
          assert(id, r.text);
          if (path !== "end") {
            assert(
              await eventually(() => readies.every(pathExists), 20_000),
              "escapes did not start",
            );
          }
          next = await endBy(path, server, id, start);
          assert(
            await eventually(() => readRecord(state.path, id).status !== "running", 20_000),
            "the job never ended",
          );
          const record = readRecord(state.path, id);
          const log = `${state.path}/jobs/${id}/output.log`;
          const atEnd = Deno.statSync(log).size;
          const left = () =>
            Object.entries(markers).filter(([, m]) => livePidsMatching(m).length > 0);
          assert(
            await eventually(() => left().length === 0, 15_000),
            `left: ${left().map(([n]) => n)}`,
          );
          await new Promise((r) => setTimeout(r, 400));
          assertEquals(Deno.statSync(log).size, atEnd, "the log grew after the end");
          // A server killed -9 never learned how its job was held; the others recorded it.
          if (path !== "server kill -9 + restart") {
            assertStringIncludes(record.containment ?? "", "cgroup v2 on the host (");
          }
        } finally {
          killLeft(markers);
          await next?.close();
          await server.close().catch(() => {});
        }
      },
    ),
  );
}
