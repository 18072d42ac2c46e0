import { createSshWorld } from "../ssh/_sshd.ts";
import { tempDir } from "../_harness.ts";
import { backendContract } from "./contract.ts";

Deno.test("the SFTP backend meets the FileBackend contract against a real sshd", async (t) => {
  await using world = await createSshWorld({
    config: (port) => `Host box\n  HostName 127.0.0.1\n  Port ${port}\n`,
  });
  await using dir = await tempDir();
  const pool = world.pool();
  try {
    const backend = await pool.openSftp({ host: "box" });
    await backendContract(t, { backend, root: dir.path, modes: true });
  } finally {
    await pool.close();
  }
});
