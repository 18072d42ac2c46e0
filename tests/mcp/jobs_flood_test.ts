// Flood tests: output goes to disk, not through the server, so a command printing 1 GiB keeps
// the server small; a client reading stdout slowly while several jobs stream cannot make the
// server buffer without bound (heartbeats are coalesced, results kept).

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { MAIN_TS, REPO_ROOT, serverEnv, tempDir } from "../_harness.ts";
import { jobIdOf, startJobsServer } from "./_jobs_helpers.ts";
import { needing } from "../_requires.ts";

const needs = needing("bash", "proc");

const RSS_LIMIT_KB = 150 * 1024;

function rssKb(pid: number): number {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Samples the RSS of `pid` every 50 ms until stopped; returns the peak in KiB. */
function sampleRss(pid: number): { stop(): number } {
  let peak = rssKb(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssKb(pid))), 50);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, rssKb(pid));
    },
  };
}

Deno.test(
  needs(
    "flood: a command printing 1 GiB keeps the server under 150 MB and its tail readable",
    async () => {
      await using s = await startJobsServer("v1", {
        window: 0.2,
        env: { ANCHORFS_JOB_LOG_CAP: String(2 * 1024 ** 3) },
      });
      const sampler = sampleRss(s.server.pid!);
      const r = await s.server.call("shell", {
        command: "yes 0123456789abcdef | head -c 1073741824; echo; echo FLOOD-DONE",
      });
      const id = jobIdOf(r.raw);
      // Waited for as long as it takes (a loaded machine moves 1 GiB slowly): each wait is ≤ 50 s.
      let done = await s.server.call("jobs", { action: "wait", id });
      for (let i = 0; i < 10 && done.text.includes("is still running"); i++) {
        done = await s.server.call("jobs", { action: "wait", id });
      }
      const peak = sampler.stop();
      assertStringIncludes(done.text, "succeeded (exit 0)");
      assertStringIncludes(done.text, "FLOOD-DONE");
      assert(peak < RSS_LIMIT_KB, `server RSS peaked at ${Math.round(peak / 1024)} MB`);
      const record = JSON.parse(await Deno.readTextFile(`${s.stateDir}/jobs/${id}/record.json`));
      assertEquals(record.outputBytes, 1073741824 + "\nFLOOD-DONE\n".length);
      assertEquals(record.droppedBytes, 0);
      await Deno.remove(`${s.stateDir}/jobs/${id}`, { recursive: true });
    },
  ),
);

Deno.test(
  needs(
    "flood: a client reading stdout slowly while jobs stream keeps the server bounded",
    async () => {
      await using dir = await tempDir();
      await using state = await tempDir();
      const child = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          "--quiet",
          MAIN_TS,
          "mcp",
          "--path",
          dir.path,
          "--foreground-window",
          "3",
          "--state-dir",
          state.path,
        ],
        cwd: REPO_ROOT,
        env: serverEnv(),
        clearEnv: true,
        stdin: "piped",
        stdout: "piped",
        stderr: "null",
      }).spawn();
      const writer = child.stdin.getWriter();
      const send = (m: unknown) => writer.write(new TextEncoder().encode(`${JSON.stringify(m)}\n`));
      const reader = child.stdout.getReader();
      let buffered = "";
      const readLine = async (): Promise<string> => {
        while (!buffered.includes("\n")) {
          const { value, done } = await reader.read();
          if (done) throw new Error("server closed stdout");
          buffered += new TextDecoder().decode(value);
        }
        const at = buffered.indexOf("\n");
        const line = buffered.slice(0, at);
        buffered = buffered.slice(at + 1);
        return line;
      };
      await send({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "slow-reader", version: "1" },
        },
      });
      await readLine();
      await send({ jsonrpc: "2.0", method: "notifications/initialized" });
      const sampler = sampleRss(child.pid);
      // Four streaming jobs with heartbeats, and many calls whose results are 30 KB tails.
      const calls = 40;
      for (let i = 1; i <= 4; i++) {
        await send({
          jsonrpc: "2.0",
          id: i,
          method: "tools/call",
          params: {
            name: "shell",
            arguments: {
              command:
                `for _ in $(seq 60); do yes stream-${i} | head -c 1000000; sleep 0.05; done; echo end-${i}`,
            },
            _meta: { progressToken: `p${i}` },
          },
        });
      }
      for (let i = 0; i < calls; i++) {
        await send({
          jsonrpc: "2.0",
          id: 100 + i,
          method: "tools/call",
          params: {
            name: "shell",
            arguments: { command: `seq ${i} 60000` },
            _meta: { progressToken: `q${i}` },
          },
        });
      }
      // Read slowly: one line, then a pause, so the pipe stays full most of the time.
      const answered = new Set<number>();
      while (answered.size < calls + 4) {
        const message = JSON.parse(await readLine());
        if (message.id !== undefined) answered.add(message.id);
        await new Promise((r) => setTimeout(r, 30));
      }
      const peak = sampler.stop();
      await writer.close();
      await reader.cancel();
      await child.status;
      assert(peak < RSS_LIMIT_KB, `server RSS peaked at ${Math.round(peak / 1024)} MB`);
      assertEquals(answered.size, calls + 4);
    },
  ),
);
