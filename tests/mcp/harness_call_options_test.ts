// The test harness itself: `call(name, args, options)` hands request options (a timeout) to both
// SDK clients the way each takes them (v1: params, result schema, options; v2: params, options),
// through the real server.

import { assertEquals } from "../_assert.ts";
import { startServer, tempDir } from "../_harness.ts";

for (const client of ["v1", "v2"] as const) {
  Deno.test(`harness (${client}): call passes request options, such as a timeout, to the client`, async () => {
    await using dir = await tempDir();
    await using server = await startServer({ client, args: ["--path", dir.path] });
    const out = await server.call("workdir", {}, { timeout: 30_000 });
    assertEquals(out.isError, false, out.text);
  });
}
