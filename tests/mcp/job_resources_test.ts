// Job resources through the real server (v1 and v2 clients, real bash jobs): resources/read of an
// unknown job is invalid params naming the known jobs.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { CLIENT_KINDS, startServer, tempDir } from "../_harness.ts";
import { needing } from "../_requires.ts";

const needs = needing("bash");

for (const kind of CLIENT_KINDS) {
  Deno.test(
    needs(
      `resources/read of an unknown job is "invalid params" with the known jobs, not an internal error (${kind} client)`,
      async () => {
        await using state = await tempDir();
        await using server = await startServer({
          client: kind,
          args: ["--state-dir", state.path, "--foreground-window", "5"],
        });
        const ran = await server.call("shell", { command: "echo hi" });
        const id = /job (\d+-\d+)/.exec(ran.text)![1]!;
        // deno-lint-ignore no-explicit-any
        const error: any = await server.client.readResource({ uri: "anchorfs://jobs/1-999" }).then(
          () => undefined,
          (e: unknown) => e,
        );
        assert(error !== undefined, "the read should fail");
        assertEquals(error.code, -32602);
        assertStringIncludes(error.message, 'No job with id "1-999"');
        assertStringIncludes(error.message, `Recent jobs: ${id}`);
      },
    ),
  );
}
