// The in-memory job store meets the shared JobStore contract
// (tests/backends/_job_store_contract.ts).

import { MemoryJobStore } from "../../../lib/backends/memory/memory_job_store.ts";
import { jobStoreContract } from "../_job_store_contract.ts";

Deno.test("the memory job store meets the JobStore contract", async (t) => {
  await jobStoreContract(t, () => new MemoryJobStore());
});
