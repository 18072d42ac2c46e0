// The confinement race through the real server (issue 29 item 3): with --allow PROJ --no-shell,
// an outside process swaps PROJ/sub with a symlink to a folder outside, atomically and in a loop
// (renameat2 RENAME_EXCHANGE, scripts/bench/_swapper.ts), while the client views, creates, edits,
// searches and lists through PROJ/sub. No answer may carry outside content and nothing may be
// written outside, whichever way the server opens paths (openat2, or the openat walk of kernels
// without it). Before the kernel confined the operations, every run leaked dozens of answers.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { startServer, tempDir } from "../_harness.ts";
import { needing } from "../_requires.ts";
import { buildSwapWorld, runSwapRace } from "../../scripts/bench/_swap_race.ts";

const needs = needing("posix-fs", "linux-ffi");

const COUNTS = { views: 300, creates: 120, replaces: 120, searches: 60, listings: 60 };

for (const method of ["openat2", "openat"] as const) {
  Deno.test(
    needs(
      `a directory swapped for a symlink to outside in a loop leaks nothing (${method})`,
      async () => {
        await using dir = await tempDir("anchorfs-race-");
        const world = await buildSwapWorld(await Deno.realPath(dir.path), 20);
        await using server = await startServer({
          client: "v1",
          args: ["--path", world.proj, "--allow", world.proj, "--no-shell"],
          env: method === "openat" ? { ANCHORFS_BENEATH: "openat" } : {},
        });
        const r = await runSwapRace(server, world, COUNTS);
        const leaks = Object.entries(r.kinds).filter(([, t]) => t.leaked > 0);
        assertEquals(
          { leaks, writtenOutside: r.writtenOutside, copiedInside: r.copiedInside },
          { leaks: [], writtenOutside: [], copiedInside: [] },
          r.samples.join("\n\n"),
        );
        // The race ran: the swapper exchanged the names many times, and some calls met the symlink
        // (refused) while others went through the folder (answered).
        assert(r.swaps > 100, `only ${r.swaps} swaps`);
        const refused = Object.values(r.kinds).reduce((n, t) => n + t.refused, 0);
        assert(refused > 0, "no call met the symlink");
        const inside = await server.call("view", { path: "sub/a.txt", full: true });
        assertStringIncludes(inside.text, "inside a");
        await server.close();
        assertStringIncludes(server.stderr(), `confinement: ${method}`);
      },
    ),
  );
}
