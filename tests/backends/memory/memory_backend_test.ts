// The in-memory backend meets the shared FileBackend contract (tests/backends/_contract.ts).

import { MemoryBackend } from "../../../lib/backends/memory/memory_backend.ts";
import { backendContract } from "../_contract.ts";

Deno.test("the memory backend meets the FileBackend contract", async (t) => {
  const backend = new MemoryBackend();
  await backend.mkdirp("/work");
  await backendContract(t, { backend, root: "/work", modes: true });
});
