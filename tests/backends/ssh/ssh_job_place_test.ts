// An ssh host as a place jobs run (its job host, over a pooled connection to a real sshd on
// 127.0.0.1): the shared job place contract; the logs stay in a local disk job store.

import { DiskJobStore } from "../../../lib/backends/local/disk_job_store.ts";
import { tempDir } from "../../_harness.ts";
import { needing } from "../../_requires.ts";
import { jobPlaceContract } from "../_job_place_contract.ts";
import { createSshWorld } from "./_sshd.ts";

Deno.test(
  needing("sshd", "bash")("an ssh host meets the job place contract", async (t) => {
    await using world = await createSshWorld({
      config: (port) => `Host box\n  HostName 127.0.0.1\n  Port ${port}\n`,
    });
    await using dir = await tempDir();
    await Deno.mkdir(`${dir.path}/a`);
    const pool = world.pool({ timeoutSeconds: 30 });
    try {
      const host = await pool.open({ host: "box" });
      const store = new DiskJobStore(`${dir.path}/state`, Deno.pid);
      await jobPlaceContract(t, {
        place: host.jobs,
        store,
        cwd: { path: `${dir.path}/a`, url: `ssh://box${dir.path}/a` },
        otherCwd: { path: `${dir.path}/b`, url: `ssh://box${dir.path}/b` },
      });
    } finally {
      await pool.close();
    }
  }),
);
