import { LocalBackend } from "../../lib/backends/local/local_backend.ts";
import { tempDir } from "../_harness.ts";
import { backendContract } from "./contract.ts";

Deno.test("the local backend meets the FileBackend contract", async (t) => {
  await using dir = await tempDir();
  await backendContract(t, { backend: new LocalBackend(), root: dir.path, modes: true });
});
