// The shell tool through the real server (real bash): a failing program piped into tail gets the
// note that its status was lost.

import { assert, assertStringIncludes } from "../_assert.ts";
import { startServer, tempDir } from "../_harness.ts";
import { needing } from "../_requires.ts";

const needs = needing("bash");

Deno.test(
  needs(
    "shell: a failing program piped into tail gets a note that its status was lost",
    async () => {
      await using dir = await tempDir();
      await using state = await tempDir();
      await using server = await startServer({
        client: "v1",
        args: ["--path", dir.path, "--state-dir", state.path],
      });
      const r = await server.call("shell", { command: "(echo FAIL; exit 3) 2>&1 | tail -5" });
      assert(!r.isError, r.text);
      assertStringIncludes(r.text, "succeeded (exit 0)");
      assertStringIncludes(r.text, "Exit 0 is tail's");
      assertStringIncludes(r.text, "without `| tail -5`");
      assertStringIncludes(r.text, "FAIL");
      const plain = await server.call("shell", { command: "echo hi | cat" });
      assert(!plain.text.includes("is lost"), plain.text);
    },
  ),
);
