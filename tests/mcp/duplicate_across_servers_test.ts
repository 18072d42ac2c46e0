// Two agent sessions (two anchorfs servers on one state dir) in one checkout: the same command
// in the same directory is refused in the second while the first runs it.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { startServer, tempDir } from "../_harness.ts";
import { needing } from "../_requires.ts";

const needs = needing("bash");

Deno.test(
  needs(
    "the duplicate guard spans servers sharing a state dir; the refusal says how to wait",
    async () => {
      await using dir = await tempDir();
      await using state = await tempDir();
      const args = ["--path", dir.path, "--state-dir", state.path, "--foreground-window", "0.3"];
      await using first = await startServer({ client: "v2", args });
      await using second = await startServer({ client: "v1", args });
      const command = "for i in 1 2 3 4 5 6 7 8 9 10; do sleep 1; done";
      const started = await first.call("shell", { command });
      const id = /as job (\d+-\d+)/.exec(started.text)?.[1];
      assert(id, started.text);
      const refused = await second.call("shell", { command });
      assert(refused.isError, refused.text);
      assertStringIncludes(refused.text, `already running in "${dir.path}" as job ${id}`);
      assertStringIncludes(refused.text, "started by another anchorfs server");
      assertStringIncludes(refused.text, `jobs {"action":"wait","id":"${id}"}`);
      // A different command runs side by side.
      const other = await second.call("shell", { command: "echo other" });
      assertEquals(other.isError, false, other.text);
      await first.call("jobs", { action: "kill", id });
    },
  ),
);
