// A job that ends while its record cannot be written, on the real server over stdio with a real
// job directory the disk refuses: the end notification, the resource, jobs list and jobs wait
// all say its record is not saved (where, the errno, the fix) while record.json still says
// running, and once the directory takes writes again the next jobs call writes the end.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { startServer, tempDir } from "../_harness.ts";
import { needing } from "../_requires.ts";

const needs = needing("bash", "posix-fs", "proc");

/** Whether a new file can be made in `dir` right now. */
async function canCreate(dir: string): Promise<boolean> {
  const probe = `${dir}/.probe-${crypto.randomUUID().slice(0, 8)}`;
  try {
    await Deno.writeTextFile(probe, "");
    await Deno.remove(probe);
    return true;
  } catch {
    return false;
  }
}

async function run(command: string, ...args: string[]): Promise<boolean> {
  const out = await new Deno.Command(command, { args, stdout: "null", stderr: "null" }).output()
    .catch(() => ({ success: false }));
  return out.success;
}

/**
 * Makes `dir` refuse new files for real, for whoever runs the test, and returns the undo. A mode
 * of 0555 does it for a normal user; root ignores modes, so then an immutable attribute (chattr
 * +i stops root too); where neither works, the directory is replaced by a file (ENOTDIR).
 */
async function refuseWrites(dir: string): Promise<{ how: string; undo: () => Promise<void> }> {
  await Deno.chmod(dir, 0o555);
  if (!(await canCreate(dir))) return { how: "EACCES", undo: () => Deno.chmod(dir, 0o700) };
  await Deno.chmod(dir, 0o700);
  if (await run("chattr", "+i", dir)) {
    if (!(await canCreate(dir))) {
      return { how: "EPERM", undo: async () => void await run("chattr", "-i", dir) };
    }
    await run("chattr", "-i", dir);
  }
  await Deno.rename(dir, `${dir}.away`);
  await Deno.writeTextFile(dir, "");
  return {
    how: "ENOTDIR",
    undo: async () => {
      await Deno.remove(dir);
      await Deno.rename(`${dir}.away`, dir);
    },
  };
}

const FIX: Record<string, string> = {
  EACCES: "Make that directory writable",
  EPERM: "Make that directory writable",
  ENOTDIR: "put the directory back",
};

Deno.test(
  needs(
    "a job whose end cannot be written says so in every answer, and is written later",
    async () => {
      await using state = await tempDir();
      await using gates = await tempDir();
      const server = await startServer({
        client: "v1",
        args: ["--state-dir", state.path, "--foreground-window", "0.5"],
      });
      // deno-lint-ignore no-explicit-any
      const notes: any[] = [];
      let noted!: () => void;
      const endNoted = new Promise<void>((r) => (noted = r));
      // deno-lint-ignore no-explicit-any
      server.client.fallbackNotificationHandler = (n: any) => {
        if (n.method === "notifications/claude/channel") {
          notes.push(n.params);
          noted();
        }
        return Promise.resolve();
      };
      let refused: { how: string; undo: () => Promise<void> } | undefined;
      try {
        const ran = await server.call("shell", {
          command: `until [ -f '${gates.path}/end' ]; do sleep 0.05; done; echo done; exit 3`,
        });
        assertStringIncludes(ran.text, "still running");
        const id = /anchorfs:\/\/jobs\/([\w-]+)/.exec(JSON.stringify(ran.raw))![1]!;
        const jobDir = `${state.path}/jobs/${id}`;
        const recordPath = `${jobDir}/record.json`;
        refused = await refuseWrites(jobDir);
        await Deno.writeTextFile(`${gates.path}/end`, "");
        await endNoted;
        const expected = [
          "RECORD NOT SAVED",
          JSON.stringify(recordPath),
          `(${refused.how}: `,
          FIX[refused.how]!,
          "still says it is running",
          `jobs {"action":"read","id":"${id}"}`,
        ];
        const note = notes[0].content as string;
        assertStringIncludes(note, "FAILED (exit 3)");
        for (const text of expected) assertStringIncludes(note, text);
        const resource = await server.client.readResource({ uri: `anchorfs://jobs/${id}` });
        for (const text of expected) assertStringIncludes(resource.contents[0].text, text);
        const waited = await server.call("jobs", { action: "wait", id });
        assertStringIncludes(waited.text, "FAILED (exit 3)");
        for (const text of expected) assertStringIncludes(waited.text, text);
        const listed = await server.call("jobs", { action: "list" });
        assertStringIncludes(listed.text, `RECORD NOT SAVED (${refused.how})`);
        if (refused.how !== "ENOTDIR") {
          assertEquals(JSON.parse(await Deno.readTextFile(recordPath)).status, "running");
        }
        await refused.undo();
        refused = undefined;
        const read = await server.call("jobs", { action: "read", id });
        assertStringIncludes(read.text, "FAILED (exit 3)");
        assert(!read.text.includes("RECORD NOT SAVED"), read.text);
        const record = JSON.parse(await Deno.readTextFile(recordPath));
        assertEquals([record.status, record.exitCode, record.unsaved], ["failed", 3, undefined]);
      } finally {
        await refused?.undo();
        await server.close();
      }
    },
  ),
);

Deno.test(
  needs("a server that exits with a job end it could not write says so on stderr", async () => {
    await using state = await tempDir();
    const server = await startServer({
      client: "v1",
      args: ["--state-dir", state.path, "--foreground-window", "0.5"],
    });
    let refused: { how: string; undo: () => Promise<void> } | undefined;
    try {
      const ran = await server.call("shell", {
        command: "until [ -f never ]; do sleep 0.05; done",
      });
      const id = /anchorfs:\/\/jobs\/([\w-]+)/.exec(JSON.stringify(ran.raw))![1]!;
      const jobDir = `${state.path}/jobs/${id}`;
      refused = await refuseWrites(jobDir);
      // Closing stdin shuts the server down: the job ends interrupted, and its end cannot land.
      await server.close();
      await waitForExit(server.pid!);
      assertStringIncludes(
        server.stderr(),
        `anchorfs: job ${id} ended (interrupted), but its record could not be written to ${
          JSON.stringify(`${jobDir}/record.json`)
        } (${refused.how}: `,
      );
    } finally {
      await refused?.undo();
      await server.close();
    }
  }),
);

/** Resolves once process `pid` is gone (a zombie counts as gone: PID 1 may not reap it). */
async function waitForExit(pid: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) return;
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the server (pid ${pid}) did not exit`);
}
