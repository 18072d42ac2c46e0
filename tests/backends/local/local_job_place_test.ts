// This machine as a place jobs run (the process runner and the reaper): the shared job place
// contract, with real processes in a temp directory and the disk job store.

import { DiskJobStore } from "../../../lib/backends/local/disk_job_store.ts";
import { localProcessRunner } from "../../../lib/backends/local/process_runner.ts";
import { localJobHost } from "../../../lib/ops/jobs/job_places.ts";
import { LocalReaping } from "../../../lib/ops/jobs/job_reaping.ts";
import { tempDir } from "../../_harness.ts";
import { needing } from "../../_requires.ts";
import { jobPlaceContract } from "../_job_place_contract.ts";

Deno.test(
  needing("bash", "proc", "signals")("this machine meets the job place contract", async (t) => {
    await using dir = await tempDir();
    await Deno.mkdir(`${dir.path}/a`);
    await Deno.mkdir(`${dir.path}/b`);
    const store = new DiskJobStore(`${dir.path}/state`, Deno.pid);
    const place = localJobHost(new LocalReaping(localProcessRunner, Deno.pid, 500), store);
    const at = (path: string) => ({ path, url: path });
    await jobPlaceContract(t, {
      place,
      store,
      cwd: at(`${dir.path}/a`),
      otherCwd: at(`${dir.path}/b`),
    });
  }),
);
