// The shell tool through the real server (v2 client, real bash): an empty cwd means the working
// directory.

import { assertEquals, assertStringIncludes } from "../_assert.ts";
import { startServer, tempDir } from "../_harness.ts";
import { needing } from "../_requires.ts";

const needs = needing("bash");

Deno.test(
  needs(
    'shell: an empty cwd means the working directory (models send "" for not set)',
    async () => {
      await using dir = await tempDir();
      await using state = await tempDir();
      await using server = await startServer({
        client: "v2",
        args: ["--path", dir.path, "--state-dir", state.path],
      });
      for (const cwd of ["", "  "]) {
        const r = await server.call("shell", { command: "pwd", cwd });
        assertEquals(r.isError, false, r.text);
        assertStringIncludes(r.text, `\n${dir.path}`);
      }
    },
  ),
);
