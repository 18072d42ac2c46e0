// Per-job limits through the real server: `--job-pids` stops a fork bomb at its cgroup's
// pids.max and a kill then takes every process of it; `--job-memory` ends a job that allocates
// past its cgroup's memory limit (or, where no memory controller can be used, the start-up log
// says the limit is not enforced and the job runs). Skipped, with the reason, where the machine
// gives jobs no such cgroup.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { eventually, startJobsServer } from "../mcp/_jobs_helpers.ts";
import { needing } from "../_requires.ts";

function readRecord(stateDir: string, id: string) {
  return JSON.parse(Deno.readTextFileSync(`${stateDir}/jobs/${id}/record.json`));
}

function readText(path: string): string {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return "";
  }
}

/** Live processes whose environment carries the job's cookie. */
function cookieHolders(cookie: string): number[] {
  const pids: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const environ = readText(`/proc/${entry.name}/environ`);
    const stat = readText(`/proc/${entry.name}/stat`);
    if (!environ.includes(cookie) || stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) {
      continue;
    }
    pids.push(Number(entry.name));
  }
  return pids;
}

Deno.test(
  needing("bash", "proc", "signals", "cgroup-pids")(
    "--job-pids stops a fork bomb at pids.max, and a kill takes every process of it",
    async () => {
      await using s = await startJobsServer("v1", {
        window: 0.3,
        args: ["--job-pids", "40"],
        env: { ANCHORFS_CONTAINMENT: "cgroup-v2" },
      });
      // Each call starts two more, forever: unbounded, it takes the machine.
      const r = await s.server.call("shell", {
        command: "bomb() { bomb | bomb & }; bomb; until false; do sleep 0.2; done",
      });
      const id = /job (\d+-\d+)/.exec(r.text)?.[1];
      assert(id, r.text);
      assertStringIncludes(s.server.stderr(), "job limits: pids.max 40 processes");
      const record = readRecord(s.stateDir, id);
      const limited = (record.cgroups as string[]).find((d) => readText(`${d}/pids.max`) !== "");
      assert(limited, JSON.stringify(record.cgroups));
      assertEquals(readText(`${limited}/pids.max`).trim(), "40");
      // The bomb hits the limit (forks refused) and never passes it.
      assert(
        await eventually(() => /max [1-9]/.test(readText(`${limited}/pids.events`)), 20_000),
        readText(`${limited}/pids.events`),
      );
      const peak = readText(`${limited}/pids.peak`).trim();
      if (peak !== "") assert(Number(peak) <= 40, `pids.peak ${peak}`);
      assert(cookieHolders(record.cookie).length <= 40);
      const killed = await s.server.call("jobs", { action: "kill", id });
      assertStringIncludes(killed.text, "KILLED on request");
      assert(
        await eventually(() => cookieHolders(record.cookie).length === 0),
        `left: ${cookieHolders(record.cookie).length}`,
      );
      // The end says the limit was what stopped it.
      assertStringIncludes(
        readRecord(s.stateDir, id).endReason,
        "refused at its pids.max (--job-pids)",
      );
    },
  ),
);

Deno.test(
  needing("bash", "proc", "cgroup-v2")(
    "--job-memory ends a job that allocates past its cgroup's limit, or says it is not enforced",
    async () => {
      await using s = await startJobsServer("v1", {
        window: 10,
        args: ["--job-memory", "32M"],
        env: { ANCHORFS_CONTAINMENT: "cgroup-v2" },
      });
      // A string doubled 27 times: 128 MB, and twice that while the last doubling runs.
      const r = await s.server.call("shell", {
        command: "awk 'BEGIN { s = \"x\"; for (i = 0; i < 27; i++) s = s s; print length(s) }'",
      });
      await eventually(() => s.server.stderr().includes("containment: "));
      if (s.server.stderr().includes("--job-memory 33554432 is not enforced")) {
        // No memory controller here: the job ran unlimited, and the log said so.
        assertStringIncludes(r.text, "134217728");
        return;
      }
      assertStringIncludes(s.server.stderr(), "memory");
      // The kernel's OOM killer ends `tail` in its cgroup: the pipeline fails.
      assertEquals(r.isError, true, r.text);
      assertStringIncludes(r.text, "FAILED");
      assertStringIncludes(r.text, "killed by the kernel at its memory limit (--job-memory)");
    },
  ),
);
