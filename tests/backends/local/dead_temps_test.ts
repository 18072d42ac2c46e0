// Which writers count as gone when their temp files are swept, decided per platform: Linux reads
// /proc, macOS and Windows (no /proc) ask with signal 0. Both probes run here, on Linux, through
// the injected platform descriptions.

import { assertEquals } from "../../_assert.ts";
import { tempDir } from "../../_harness.ts";
import { isProcessAlive, removeDeadTemps } from "../../../lib/backends/local/dead_temps.ts";
import { describePlatform } from "../../../lib/core/platform/platform.ts";

const GONE = 2 ** 30; // above every pid_max

for (const os of ["linux", "darwin", "windows"]) {
  Deno.test(`isProcessAlive (${os} description): a running process is alive, an unused pid is not`, () => {
    const platform = describePlatform(os);
    assertEquals(isProcessAlive(Deno.pid, platform), true);
    assertEquals(isProcessAlive(Deno.ppid, platform), true);
    assertEquals(isProcessAlive(GONE, platform), false);
    assertEquals(isProcessAlive(0, platform), false);
  });
}

Deno.test("removeDeadTemps through the macOS description keeps a live writer's temp and drops a gone one's", async () => {
  await using dir = await tempDir();
  const live = `.a.txt.anchorfs-${Deno.ppid}-1.tmp`;
  const gone = `.b.txt.anchorfs-${GONE}-1.tmp`;
  for (const name of [live, gone]) await Deno.writeTextFile(`${dir.path}/${name}`, "partial");
  removeDeadTemps(dir.path, new Set(), Date.now(), describePlatform("darwin"));
  assertEquals([...Deno.readDirSync(dir.path)].map((e) => e.name), [live]);
});
